/// Card-number arithmetic and presentation shared by every front end.
public enum CardNumber {
    /// True when the digits pass the Luhn (mod 10) check.
    public static func passesLuhn(_ digits: some BidirectionalCollection<UInt8>) -> Bool {
        guard !digits.isEmpty else { return false }
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            let value = Int(digit)
            sum += offset % 2 == 1 ? (value * 2 > 9 ? value * 2 - 9 : value * 2) : value
        }
        return sum % 10 == 0
    }

    /// The Luhn check digit that makes `body` followed by it pass `passesLuhn`.
    public static func luhnCheckDigit(for body: some BidirectionalCollection<UInt8>) -> UInt8 {
        var sum = 0
        for (offset, digit) in body.reversed().enumerated() {
            let value = Int(digit)
            sum += offset % 2 == 0 ? (value * 2 > 9 ? value * 2 - 9 : value * 2) : value
        }
        return UInt8((10 - sum % 10) % 10)
    }

    /// The digits split into display groups: "3782 822463 10005". Digits past the last
    /// group form one more group.
    public static func grouped(_ digits: [UInt8], groups: [Int]) -> String {
        // Exactly the length needed: up to 15 bytes make a small string, with no allocation
        // (the prompt groups the number after every key).
        var spaces = 0
        var boundary = 0
        for group in groups {
            boundary += group
            guard boundary < digits.count else { break }
            spaces += 1
        }
        return String(unsafeUninitializedCapacity: digits.count + spaces) { buffer in
            var written = 0
            var groupIndex = 0
            var left = groups.first ?? Int.max
            for digit in digits {
                if left == 0 {
                    buffer[written] = UInt8(ascii: " ")
                    written += 1
                    groupIndex += 1
                    // Past the last group, the rest of the digits form one more group.
                    left = groupIndex < groups.count ? groups[groupIndex] : Int.max
                }
                buffer[written] = digit + 48
                written += 1
                left -= 1
            }
            return written
        }
    }

    /// The format hint for a network's groups: "####  ######  #####".
    public static func hint(groups: [Int]) -> String {
        groups.map { String(repeating: "#", count: $0) }.joined(separator: " ")
    }

    /// First six and last four, the rest as `•`: "378282•••••0005". For text people read;
    /// machine-readable output (`check`, a delivered card's `masked`) uses `*` instead.
    public static func masked(_ digits: [UInt8]) -> String { maskingDigits(in: string(digits)) }

    /// The text with every ASCII digit after the sixth and before the last four replaced by
    /// `•`, other characters kept: "3782 822463 10005" → "3782 82•••• •0005". Text with ten
    /// digits or fewer is returned as it is (first six and last four cover it).
    public static func maskingDigits(in text: String) -> String {
        var bytes: [UInt8] = []
        appendMasking(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `maskingDigits(in: text)`'s bytes.
    public static func appendMasking(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            var total = 0
            for byte in bytes where byte &- 48 < 10 { total += 1 }
            guard total > 10 else { return out += bytes }
            out.reserveCapacity(out.count + bytes.count + (total - 10) * 2)
            var seen = 0
            for byte in bytes {
                if byte &- 48 < 10 {
                    seen += 1
                    if seen > 6 && seen <= total - 4 {
                        out.append(0xE2)  // •
                        out.append(0x80)
                        out.append(0xA2)
                        continue
                    }
                }
                out.append(byte)
            }
        }
    }

    /// True when `text` holds 8 or more ASCII digits in all, whatever stands between them
    /// (`4111 1111-1111.1111`): enough to be part of a card number, so the text is never kept
    /// or shown whole outside the live field. No `:` command needs that many digits.
    public static func mayHoldCardNumber(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 where byte &- 48 < 10 {
            count += 1
            if count >= 8 { return true }
        }
        return false
    }

    /// Digit values (each 0–9, not ASCII) as text of ASCII digits: `[4, 1, 1, 1]` → "4111".
    public static func string(_ digits: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: digits.count) { buffer in
            for (index, digit) in digits.enumerated() { buffer[index] = digit + 48 }
            return digits.count
        }
    }
}

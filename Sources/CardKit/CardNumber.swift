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

    /// Digit values (each 0–9, not ASCII) as text of ASCII digits: `[4, 1, 1, 1]` → "4111".
    public static func string(_ digits: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: digits.count) { buffer in
            for (index, digit) in digits.enumerated() { buffer[index] = digit + 48 }
            return digits.count
        }
    }
}

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

    /// The digits split into display groups: "3782 822463 10005". Digits past the last
    /// group form one more group.
    public static func grouped(_ digits: [UInt8], groups: [Int]) -> String {
        var text = ""
        text.reserveCapacity(digits.count + groups.count)
        var start = 0
        for size in groups where start < digits.count {
            if start > 0 { text.append(" ") }
            text += string(digits[start..<min(start + size, digits.count)])
            start += size
        }
        if start < digits.count {
            if start > 0 { text.append(" ") }
            text += string(digits[start...])
        }
        return text
    }

    /// The format hint for a network's groups: "####  ######  #####".
    public static func hint(groups: [Int]) -> String {
        groups.map { String(repeating: "#", count: $0) }.joined(separator: " ")
    }

    /// First six and last four, the rest as `•`: "378282•••••0005".
    public static func masked(_ digits: [UInt8]) -> String { maskingDigits(in: string(digits)) }

    /// The text with every ASCII digit after the sixth and before the last four replaced by
    /// `•`, other characters kept: "3782 822463 10005" → "3782 82•••• •0005". Text with ten
    /// digits or fewer is returned as it is (first six and last four cover it).
    public static func maskingDigits(in text: String) -> String {
        let total = text.reduce(0) { $0 + ($1.isASCIIDigit ? 1 : 0) }
        guard total > 10 else { return text }
        var seen = 0
        return String(text.map { character -> Character in
            guard character.isASCIIDigit else { return character }
            seen += 1
            return seen > 6 && seen <= total - 4 ? "•" : character
        })
    }

    public static func string(_ digits: some Sequence<UInt8>) -> String {
        String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
    }
}

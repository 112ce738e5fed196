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

    /// First six and last four, the rest as `•`: "378282•••••0005". Short numbers show only the last four.
    public static func masked(_ digits: [UInt8]) -> String {
        guard digits.count > 10 else { return String(repeating: "•", count: max(0, digits.count - 4)) + string(digits.suffix(4)) }
        return string(digits.prefix(6)) + String(repeating: "•", count: digits.count - 10) + string(digits.suffix(4))
    }

    static func string(_ digits: some Sequence<UInt8>) -> String {
        String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
    }
}

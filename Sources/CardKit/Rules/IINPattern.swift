/// An issuer identification number pattern: an inclusive range of digit strings of one
/// length. A prefix such as `"4"` is the range `"4"…"4"`.
///
/// Held as two numbers and a length, not as digit arrays: a rule file of 100,000 ranges then
/// costs no allocation per pattern.
public struct IINPattern: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The lowest prefix as a number (its digits read in base 10).
    let lowValue: UInt64
    /// The highest prefix as a number.
    let highValue: UInt64
    /// How many leading digits the pattern looks at; longer is more specific.
    public let length: Int

    /// The most digits a pattern can have: 19 (the longest card number, and the most that fit in 64 bits).
    private static let maxDigits = CardPolicy.longestNumber

    /// Lowest and highest prefix, as digit values 0–9, both of `length` digits.
    public var low: [UInt8] { Self.digits(lowValue, count: length) }
    /// The highest prefix, as digit values 0–9 (not ASCII), as long as `low`.
    public var high: [UInt8] { Self.digits(highValue, count: length) }

    /// The range `low`…`high`; nil unless both are non-empty strings of ASCII digits of one
    /// length (at most 19), `low` ≤ `high`.
    public init?(low: String, high: String) {
        guard let (l, count) = Self.value(low), let (h, highCount) = Self.value(high),
            count == highCount, l <= h
        else { return nil }
        self.lowValue = l
        self.highValue = h
        self.length = count
    }

    /// A pattern from values already checked: `length` digits (1–19), `lowValue` ≤ `highValue`.
    init(lowValue: UInt64, highValue: UInt64, length: Int) {
        self.lowValue = lowValue
        self.highValue = highValue
        self.length = length
    }

    /// The range `prefix`…`prefix`; nil unless `prefix` is a non-empty string of ASCII digits (at most 19).
    public init?(prefix: String) { self.init(low: prefix, high: prefix) }

    /// The pattern as written in rule files: `4`, or `51-55` for a range.
    public var description: String {
        let l = Self.text(lowValue, count: length)
        return lowValue == highValue ? l : "\(l)-\(Self.text(highValue, count: length))"
    }

    /// How the typed digits relate to this pattern.
    public enum Match: Equatable, Sendable {
        /// The digits are at least `length` long and their prefix lies in the range.
        case full
        /// The digits are shorter than the pattern but can still grow into it.
        case partial
        /// The digits can never match: their prefix lies outside the range.
        case none
    }

    /// How `digits` (each 0–9, not ASCII) relate to this pattern.
    public func match(_ digits: some Collection<UInt8>) -> Match {
        let n = min(digits.count, length)
        let head = digits.prefix(n).reduce(UInt64(0)) { $0 * 10 + UInt64($1) }
        var scale: UInt64 = 1
        for _ in n..<length { scale *= 10 }
        // Prefixes of one length compare as numbers the way they compare digit by digit.
        guard head >= lowValue / scale, head <= highValue / scale else { return .none }
        return digits.count >= length ? .full : .partial
    }

    /// True when some number matches both patterns fully.
    public func overlaps(_ other: IINPattern) -> Bool {
        guard length == other.length else { return false }
        return highValue >= other.lowValue && other.highValue >= lowValue
    }

    /// The value and digit count of a non-empty string of at most 19 ASCII digits.
    private static func value(_ text: String) -> (UInt64, Int)? {
        var text = text
        // Read through the contiguous UTF-8 (a small string's is on the stack): iterating the
        // view byte by byte costs several times more.
        return text.withUTF8 { bytes -> (UInt64, Int)? in
            guard !bytes.isEmpty, bytes.count <= maxDigits else { return nil }
            var value: UInt64 = 0
            for byte in bytes {
                guard byte &- 48 < 10 else { return nil }
                value = value &* 10 &+ UInt64(byte &- 48)
            }
            return (value, bytes.count)
        }
    }

    /// `value`'s digits, `count` of them (leading zeros included).
    static func digits(_ value: UInt64, count: Int) -> [UInt8] {
        var digits = [UInt8](repeating: 0, count: count)
        var rest = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            digits[i] = UInt8(rest % 10)
            rest /= 10
        }
        return digits
    }

    private static func text(_ value: UInt64, count: Int) -> String {
        String(decoding: digits(value, count: count).map { $0 + 48 }, as: UTF8.self)
    }
}

/// The digit values of a string of ASCII digits, or nil if any character is not one.
func digitValues(_ text: String) -> [UInt8]? {
    var values: [UInt8] = []
    values.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
        guard byte >= 48 && byte <= 57 else { return nil }
        values.append(byte - 48)
    }
    return values
}

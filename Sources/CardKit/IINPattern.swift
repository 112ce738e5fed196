/// An issuer identification number pattern: an inclusive range of digit strings of one
/// length. A prefix such as `"4"` is the range `"4"…"4"`.
public struct IINPattern: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Lowest and highest prefix, as digit values 0–9, both of `length` digits.
    public let low: [UInt8]
    /// The highest prefix, as digit values 0–9 (not ASCII), as long as `low`.
    public let high: [UInt8]

    /// The range `low`…`high`; nil unless both are non-empty strings of ASCII digits of one length, `low` ≤ `high`.
    public init?(low: String, high: String) {
        guard let l = digitValues(low), let h = digitValues(high), !l.isEmpty,
              l.count == h.count, !h.lexicographicallyPrecedes(l) else { return nil }
        self.low = l
        self.high = h
    }

    /// The range `prefix`…`prefix`; nil unless `prefix` is a non-empty string of ASCII digits.
    public init?(prefix: String) { self.init(low: prefix, high: prefix) }

    /// How many leading digits the pattern looks at; longer is more specific.
    public var length: Int { low.count }

    /// The pattern as written in rule files: `4`, or `51-55` for a range.
    public var description: String {
        let l = String(low.map { Character(Unicode.Scalar($0 + 48)) })
        let h = String(high.map { Character(Unicode.Scalar($0 + 48)) })
        return l == h ? l : "\(l)-\(h)"
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
        let head = digits.prefix(n)
        guard !head.lexicographicallyPrecedes(low.prefix(n)),
              !high.prefix(n).lexicographicallyPrecedes(head) else { return .none }
        return digits.count >= length ? .full : .partial
    }

    /// True when some number matches both patterns fully.
    public func overlaps(_ other: IINPattern) -> Bool {
        guard length == other.length else { return false }
        return !high.lexicographicallyPrecedes(other.low) && !other.high.lexicographicallyPrecedes(low)
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

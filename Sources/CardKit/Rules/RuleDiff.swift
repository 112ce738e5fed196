/// What a change of rules does to card numbers: every stretch of prefixes whose outcome
/// differs between two rule sets (`cardline rules diff`), found by walking both sets' patterns
/// side by side, not by sampling. Every pattern of either set starts or ends a stretch; between
/// two such bounds every number has the same outcome under each set, so one number of each
/// stretch is asked of each set's index (`RuleSet.detect`), and neighbouring stretches with the
/// same change are merged. Numbers at least as long as the longest pattern are walked once, at
/// that width; a number shorter than a pattern it begins is not decided by it, so each
/// shorter length a network allows is walked at its own width, for numbers of that length.
public struct RuleDiff: Sendable {
    /// What the rules do with the numbers of a stretch: the network that decides them, and what
    /// it asks of them.
    public struct Outcome: Equatable, Sendable {
        /// The deciding network's id.
        public var network: String
        /// The lengths the deciding pattern allows.
        public var lengths: [Int]
        /// Whether the Luhn check applies.
        public var luhn: Bool
        /// The security code's name (`CVV`, `CID`) and lengths.
        public var code: String
        public var codeLengths: ClosedRange<Int>
        /// The other networks on a co-badged card, in order.
        public var coBadged: [String]
        /// How the number is grouped, for each of its lengths that is grouped differently.
        public var groups: [[Int]]
        /// Whether the deciding network is retired.
        public var retired: Bool

        /// `mastercard (16; Luhn; CVC 3; 4-4-4-4)`, with `also visa` and `retired` when they apply.
        public var description: String {
            var parts = [runs(lengths), luhn ? "Luhn" : "no Luhn", "\(code) \(lengthWords(codeLengths))"]
            parts.append(groups.map { $0.map(String.init).joined(separator: "-") }.joined(separator: " or "))
            if !coBadged.isEmpty { parts.append("also " + coBadged.joined(separator: ", ")) }
            if retired { parts.append("retired") }
            return "\(network) (\(parts.joined(separator: "; ")))"
        }
    }

    /// A stretch of prefixes, `low` to `high` (as many digits each), whose outcome changed:
    /// nil for numbers no network takes. `length`: the stretch is of numbers of that length
    /// alone (shorter than the longest pattern); nil: of every length from `low`'s on.
    public struct Difference: Equatable, Sendable {
        public var low: String
        public var high: String
        public var length: Int?
        public var before: Outcome?
        public var after: Outcome?

        /// How many card numbers of each length the stretch holds (a length either outcome
        /// allows), by length.
        public var numbers: [(length: Int, count: Double)] {
            let lengths = Set((before?.lengths ?? []) + (after?.lengths ?? [])).sorted().filter {
                length.map([$0].contains) ?? ($0 >= low.count)
            }
            let span = Double(UInt64(high)! - UInt64(low)! + 1)
            return lengths.map { length in
                var count = span
                for _ in 0..<abs(length - low.count) { count = length >= low.count ? count * 10 : count / 10 }
                return (length, count.rounded(.down))
            }
        }

        public static func == (lhs: Difference, rhs: Difference) -> Bool {
            lhs.low == rhs.low && lhs.high == rhs.high && lhs.length == rhs.length && lhs.before == rhs.before
                && lhs.after == rhs.after
        }
    }

    /// The stretches that changed, in order.
    public var differences: [Difference] = []
    /// Networks only the second set has, and only the first (by id).
    public var added: [CardNetwork] = []
    public var removed: [CardNetwork] = []

    /// Whether the two sets treat every number alike and name the same networks.
    public var isEmpty: Bool { differences.isEmpty && added.isEmpty && removed.isEmpty }

    /// Compares `before` with `after`.
    public init(_ before: RuleSet, _ after: RuleSet) {
        let beforeIDs = Set(before.networks.map(\.id))
        let afterIDs = Set(after.networks.map(\.id))
        added = after.networks.filter { !beforeIDs.contains($0.id) }
        removed = before.networks.filter { !afterIDs.contains($0.id) }
        let width = max(before.longestPattern, after.longestPattern, 1)
        walk(before, after, width: width, length: nil)
        let lengths = Set((before.networks + after.networks).flatMap(\.allLengths)).filter { $0 < width }
        for length in lengths.sorted() { walk(before, after, width: length, length: length) }
    }

    /// Walks the prefixes of `width` digits, noting each stretch whose outcome differs; with
    /// `length`, for numbers of that length only.
    private mutating func walk(_ before: RuleSet, _ after: RuleSet, width: Int, length: Int?) {
        // Every bound as a prefix of `width` digits: where a pattern starts, and just past its
        // end (a longer pattern by its first `width` digits).
        var bounds: [UInt64] = [0]
        for network in before.networks + after.networks {
            for pattern in network.patterns {
                if pattern.length <= width {
                    let scale = power(width - pattern.length)
                    bounds.append(pattern.lowValue * scale)
                    bounds.append((pattern.highValue + 1) * scale)
                } else {
                    let scale = power(pattern.length - width)
                    bounds.append(pattern.lowValue / scale)
                    bounds.append(pattern.highValue / scale + 1)
                }
            }
        }
        let end = power(width)
        bounds = Array(Set(bounds.filter { $0 < end })).sorted()
        var digits = [UInt8](repeating: 0, count: width)
        for (index, start) in bounds.enumerated() {
            var rest = start
            for position in (0..<width).reversed() {
                digits[position] = UInt8(rest % 10)
                rest /= 10
            }
            let was = Self.outcome(of: digits, in: before, length: length)
            let now = Self.outcome(of: digits, in: after, length: length)
            guard was != now else { continue }
            let last = (index + 1 < bounds.count ? bounds[index + 1] : end) - 1
            // Merged with the stretch just before, when it changed the same way.
            if let previous = differences.last, previous.length == length, previous.before == was,
                previous.after == now, previous.high.count == width, UInt64(previous.high)! + 1 == start
            {
                differences[differences.count - 1].high = Self.text(last, width: width)
            } else {
                differences.append(
                    Difference(
                        low: Self.text(start, width: width), high: Self.text(last, width: width), length: length,
                        before: was, after: now))
            }
        }
    }

    /// What `set` does with numbers starting with `digits` (as long as its longest pattern);
    /// with `length`, with numbers of that length, `digits` long: nil unless a network decides
    /// them and allows the length.
    static func outcome(of digits: [UInt8], in set: RuleSet, length: Int? = nil) -> Outcome? {
        let detection = set.detect(digits)
        guard let network = detection.network else { return nil }
        if let length {
            guard detection.lengths.contains(length) else { return nil }
            let code = CardPolicy.securityCode(for: network)
            return Outcome(
                network: network.id, lengths: [length],
                luhn: network.requiresLuhn(digits, decidingLength: detection.decidingLength), code: code.name,
                codeLengths: code.lengths, coBadged: detection.coBadged.map(\.id),
                groups: [network.groups(forCount: length)], retired: network.status == .retired)
        }
        let code = CardPolicy.securityCode(for: network)
        return Outcome(
            network: network.id, lengths: detection.lengths.lengths,
            luhn: network.requiresLuhn(digits, decidingLength: detection.decidingLength), code: code.name,
            codeLengths: code.lengths, coBadged: detection.coBadged.map(\.id),
            groups: detection.lengths.lengths.reduce(into: []) { groups, length in
                let grouping = network.groups(forCount: length)
                if !groups.contains(grouping) { groups.append(grouping) }
            },
            retired: network.status == .retired)
    }

    static func text(_ value: UInt64, width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: width - digits.count) + digits
    }
}

/// 10 to the `exponent`.
private func power(_ exponent: Int) -> UInt64 {
    var result: UInt64 = 1
    for _ in 0..<exponent { result *= 10 }
    return result
}

/// `12-19`, `16`, `13, 16`: lengths as runs.
private func runs(_ lengths: [Int]) -> String {
    var parts: [String] = []
    var index = 0
    while index < lengths.count {
        var end = index
        while end + 1 < lengths.count && lengths[end + 1] == lengths[end] + 1 { end += 1 }
        parts.append(
            end > index + 1
                ? "\(lengths[index])-\(lengths[end])" : lengths[index...end].map(String.init).joined(separator: ", "))
        index = end + 1
    }
    return parts.joined(separator: ", ")
}

private func lengthWords(_ lengths: ClosedRange<Int>) -> String {
    lengths.count == 1 ? "\(lengths.lowerBound)" : "\(lengths.lowerBound)-\(lengths.upperBound)"
}

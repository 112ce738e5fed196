/// Made-up card numbers that the rules attribute to a given network, for rule authors,
/// `.session` writers and the proof that every pattern can be reached (`rules sample`,
/// `rules test`, `rules lint`).
extension RuleSet {
    /// Up to `count` numbers of `network` (which must be one of `networks`), the same for the
    /// same seed: each inside one of the network's patterns, in turn, so `count` at least the
    /// number of patterns covers every reachable one; of a length valid for that pattern (its
    /// lengths in turn); Luhn-valid when the network checks Luhn; and each one a number this
    /// rule set detects as `network` and finds valid. Patterns that can never decide a number
    /// (more specific patterns of other networks cover them) are skipped; none at all: empty.
    public func sampleNumbers(of network: CardNetwork, count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededRandom(seed: seed)
        var reachable: [Int] = []
        var numbers: [[UInt8]] = []
        // The first round: one number per pattern, in order, until there are enough.
        for index in network.patterns.indices where numbers.count < count {
            if let number = sampleNumber(of: network, pattern: index, round: 0, &random) {
                reachable.append(index)
                numbers.append(number)
            }
        }
        // More rounds (every pattern was tried): the reachable patterns in turn, with their next lengths.
        var turn = numbers.count
        while numbers.count < count && !reachable.isEmpty {
            let index = reachable[turn % reachable.count]
            if let number = sampleNumber(of: network, pattern: index, round: turn / reachable.count, &random) {
                numbers.append(number)
            }
            turn += 1
        }
        return numbers
    }

    /// One number decided by pattern `patternIndex` of `network`, of the length `round` picks
    /// among the pattern's lengths (the next ones when that one cannot be reached); nil when
    /// the pattern can decide no number of any of its lengths.
    public func sampleNumber(
        of network: CardNetwork, pattern patternIndex: Int, round: Int, _ random: inout SeededRandom
    ) -> [UInt8]? {
        guard let owner = networks.firstIndex(where: { $0 === network }) else { return nil }
        let lengths = network.patternLengths[patternIndex]
        guard !lengths.isEmpty else { return nil }
        for step in 0..<lengths.count {
            let length = lengths[(round + step) % lengths.count]
            if let number = sampleNumber(owner: owner, patternIndex: patternIndex, length: length, &random) {
                return number
            }
        }
        return nil
    }

    /// A made-up number that follows `digits`' path through these rules: after every digit the
    /// same detection (network, lengths, co-badged networks) and the same verdict (so Luhn-valid
    /// exactly where `digits` is). The first `kept` digits stay (they decide the network); every
    /// later one is another, picked at random, wherever another keeps the path. For
    /// `cardline --record` (`SessionRecorder`), which writes no card's digits.
    public func madeUpNumber(
        following digits: [UInt8], keeping kept: Int = 6, using random: inout some RandomNumberGenerator
    ) -> [UInt8] {
        var made: [UInt8] = []
        var typed: [UInt8] = []
        made.reserveCapacity(digits.count)
        typed.reserveCapacity(digits.count)
        defer { typed.overwriteAndEmpty() }
        for digit in digits {
            typed.append(digit)
            guard made.count >= kept else {
                made.append(digit)
                continue
            }
            let wanted = verdict(for: typed)
            var chosen = digit
            for candidate in (0...9).shuffled(using: &random) where candidate != digit {
                made.append(UInt8(candidate))
                let got = verdict(for: made)
                made.removeLast()
                if got.detection == wanted.detection && got.verdict == wanted.verdict {
                    chosen = UInt8(candidate)
                    break
                }
            }
            made.append(chosen)
        }
        return made
    }

    /// Patterns that decide no number at all, each as a warning at the pattern's place in its
    /// file. A network none of whose patterns can decide a number already has the load-time
    /// warning that it can never be detected, so its patterns are listed only when
    /// `includingHiddenNetworks`.
    public func unreachablePatterns(includingHiddenNetworks: Bool = false) -> [RuleError] {
        var warnings: [RuleError] = []
        for (owner, network) in networks.enumerated() {
            var random = SeededRandom(seed: 1)
            let unreachable = network.patterns.indices.filter { index in
                !network.patternLengths[index].contains {
                    sampleNumber(owner: owner, patternIndex: index, length: $0, &random) != nil
                }
            }
            guard includingHiddenNetworks || unreachable.count < network.patterns.count else { continue }
            for index in unreachable {
                let pattern = network.patterns[index]
                warnings.append(
                    RuleError(
                        file: network.file, location: network.location(ofPattern: index), severity: .warning,
                        message:
                            "pattern \(pattern) of `\(network.id)` can never decide a number: more specific patterns of other networks (or of its own with other lengths) cover it at every length it allows"
                    ))
            }
        }
        return warnings
    }

    /// A number of `length` digits that pattern `patternIndex` of `networks[owner]` decides,
    /// checked against the rules; nil when there is none.
    private func sampleNumber(owner: Int, patternIndex: Int, length: Int, _ random: inout SeededRandom) -> [UInt8]? {
        let network = networks[owner]
        let pattern = network.patterns[patternIndex]
        guard length >= pattern.length, length <= CardPolicy.longestNumber else { return nil }
        // The pattern's numbers of this length, less those longer patterns take: the gaps.
        let scale = pow10[length - pattern.length]
        var gaps: [(low: UInt64, high: UInt64)] = []
        var next = pattern.lowValue * scale
        let last = (pattern.highValue + 1) * scale - 1
        for taken in numbersTakenFrom(owner: owner, patternIndex: patternIndex, length: length) where taken.high >= next
        {
            if taken.low > last { break }
            if taken.low > next { gaps.append((next, taken.low - 1)) }
            next = taken.high + 1
            if next > last { break }
        }
        if next <= last { gaps.append((next, last)) }
        guard !gaps.isEmpty else { return nil }
        // A few tries from random gaps; a gap narrower than ten may hold no Luhn-valid number.
        for attempt in 0..<(gaps.count + 8) {
            let gap = attempt < 8 ? gaps[Int(random.next() % UInt64(gaps.count))] : gaps[attempt - 8]
            guard let candidate = number(in: gap, length: length, luhn: network.luhn, &random) else { continue }
            let found = verdict(for: candidate)
            if found.detection.network === network && found.verdict.isValid { return candidate }
        }
        return nil
    }

    /// A random number in `gap` (values of `length` digits), Luhn-valid when `luhn`; nil when
    /// the gap holds no Luhn-valid number.
    private func number(in gap: (low: UInt64, high: UInt64), length: Int, luhn: Bool, _ random: inout SeededRandom)
        -> [UInt8]?
    {
        let width = gap.high - gap.low
        let start = gap.low + (width == UInt64.max ? random.next() : random.next() % (width + 1))
        guard luhn else { return IINPattern.digits(start, count: length) }
        // Each run of ten numbers holds exactly one Luhn-valid one: look from the start's run
        // up to the gap's end, then from the gap's start.
        let firstBody = start / 10
        let lastBody = gap.high / 10
        for body in Array((firstBody...lastBody).prefix(2)) + Array(((gap.low / 10)...firstBody).prefix(2)) {
            var candidate = IINPattern.digits(body * 10, count: length)
            candidate[length - 1] = CardNumber.luhnCheckDigit(for: candidate[..<(length - 1)])
            let candidateValue = value(candidate)
            if candidateValue >= gap.low && candidateValue <= gap.high { return candidate }
        }
        return nil
    }
}

extension RuleSet {
    /// The network whose id is exactly `id`, or nil.
    public func network(id: String) -> CardNetwork? { networks.first { $0.id == id } }

    /// The most digits any pattern looks at. Digits past it cannot change a detection.
    public var longestPattern: Int { levels.last?.length ?? 0 }

    /// What the digits typed so far say about the network.
    public func detect(_ digits: [UInt8]) -> Detection {
        if let index = Self.shortIndex(digits), index < shortDetections.count { return shortDetections[index] }
        let found = match(digits.span)
        let decided = found.owner >= 0 ? networks[Int(found.owner)] : nil
        var detection = Detection(
            network: decided, hasCandidates: found.hasCandidates, maxLength: found.maxLength,
            decidingLength: found.decidingLength, lengths: found.lengths)
        detection.isFinal = found.final
        if let decided, decided.hasCoBadges {
            detection.coBadged = coBadged(digits, owner: Int(found.owner), decidingLength: found.decidingLength)
        }
        return detection
    }

    /// The numbers `shortDetections` holds, in its order: the empty one, the ten of one digit,
    /// the hundred of two.
    static let shortNumbers: [[UInt8]] =
        [[]] + (0..<10).map { [UInt8($0)] } + (0..<100).map { [UInt8($0 / 10), UInt8($0 % 10)] }

    /// Where `digits` stand in `shortNumbers`; nil for more than two, or a value that is not a digit.
    static func shortIndex(_ digits: [UInt8]) -> Int? {
        switch digits.count {
        case 0: return 0
        case 1: return digits[0] < 10 ? 1 + Int(digits[0]) : nil
        case 2: return digits[0] < 10 && digits[1] < 10 ? 11 + Int(digits[0]) * 10 + Int(digits[1]) : nil
        default: return nil
        }
    }

    /// The other networks of a number that `networks[owner]` decides by its pattern of
    /// `decidingLength` digits: those of the pattern's `coBadged` entry that are loaded, in
    /// `with` order; empty when the pattern is not co-badged.
    public func coBadged(_ digits: some Collection<UInt8>, owner: Int, decidingLength: Int) -> [CardNetwork] {
        guard coBadgePartners.indices.contains(owner),
            let entry = networks[owner].terms(of: digits, decidingLength: decidingLength)?.coBadge
        else { return [] }
        return coBadgePartners[owner][entry]
    }

    /// The allocation-free core of detection: the decided network's index (or -1), whether
    /// any network can still match, the longest length they allow, the deciding pattern's
    /// length, the lengths the patterns still possible allow (once no longer pattern can
    /// match, the deciding pattern's own), and whether no longer pattern can (`final`: digits
    /// after these change nothing). Digits past the 19th are not looked at.
    func match(_ typed: Span<UInt8>) -> (
        owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet, final: Bool
    ) {
        // The value of each prefix of the digits, made in one pass: no division per level.
        var prefix = InlineArray<20, UInt64>(repeating: 0)
        var typedValue: UInt64 = 0
        for index in 0..<min(typed.count, CardPolicy.longestNumber) {
            typedValue = typedValue &* 10 &+ UInt64(typed[index])
            prefix[index + 1] = typedValue
        }
        let levels = self.levels.span
        // Digits past the longest pattern (every record `check` reads, most keystrokes):
        // no level is partial, so the longest level with a full match decides alone.
        if typed.count >= longestPattern {
            for index in levels.indices.reversed() {
                let level = levels[index]
                if let found = level.index(containing: prefix[level.length]) {
                    let set = LengthSet(mask: level.lengthMasks[found])
                    return (level.owners[found], true, set.max, level.length, set, true)
                }
            }
            return (-1, false, 0, 0, LengthSet(mask: 0), true)
        }
        var bestOwner: Int32 = -1
        var bestLength = 0
        var bestLengths: UInt32 = 0
        var minOwner = Int32.max
        var maxOwner = Int32.min
        var lengths: UInt32 = 0
        var longerCanMatch = false
        // Walked by index through a span: a `for … in` over the array copied (retained) each
        // level, once per level per record or keystroke.
        for index in levels.indices {
            let level = levels[index]
            if level.length <= typed.count {
                if let found = level.index(containing: prefix[level.length]) {
                    // Levels ascend: the longest full match wins.
                    (bestOwner, bestLength, bestLengths) = (level.owners[found], level.length, level.lengthMasks[found])
                }
            } else if let span = level.span(prefix: typedValue, digits: typed.count) {
                longerCanMatch = true
                let summary = level.summary(of: span)
                minOwner = min(minOwner, summary.minOwner)
                maxOwner = max(maxOwner, summary.maxOwner)
                lengths |= summary.lengths
            }
        }
        if bestOwner >= 0 {
            minOwner = min(minOwner, bestOwner)
            maxOwner = max(maxOwner, bestOwner)
            lengths |= bestLengths
        }
        let decided = bestOwner >= 0 && minOwner == maxOwner
        let set = LengthSet(mask: lengths)
        return (decided ? bestOwner : -1, maxOwner >= 0, set.max, decided ? bestLength : 0, set, !longerCanMatch)
    }

    /// The index `check` looks whole numbers up in (`WholeNumberIndex`), made from this set's
    /// levels: once per checker, not at load.
    func wholeNumberIndex() -> WholeNumberIndex { WholeNumberIndex(levels) }

    /// Every network the digits could still belong to, in load order (for `rules test`).
    public func candidates(_ digits: some Collection<UInt8>) -> [CardNetwork] {
        let typed = Array(digits.prefix(CardPolicy.longestNumber))
        var owners = Set<Int32>()
        var best: (owner: Int32, length: Int)?
        for level in levels {
            if level.length <= typed.count {
                if let index = level.index(containing: value(typed.prefix(level.length))) {
                    best = (level.owners[index], level.length)
                }
            } else if let span = level.span(prefix: value(typed), digits: typed.count) {
                owners.formUnion(level.owners[span])
            }
        }
        if let best { owners.insert(best.owner) }
        return owners.sorted().map { networks[Int($0)] }
    }

    /// The decided network's own pattern that matched, for explaining a detection.
    public func decidingPattern(_ detection: Detection, _ digits: some Collection<UInt8>) -> IINPattern? {
        decidingPatternIndex(detection, digits).map { detection.network!.patterns[$0] }
    }

    /// The index in its network's `patterns` of the pattern that decided `detection`.
    public func decidingPatternIndex(_ detection: Detection, _ digits: some Collection<UInt8>) -> Int? {
        detection.network?.patterns.indices.first {
            detection.network!.patterns[$0].length == detection.decidingLength
                && detection.network!.patterns[$0].match(digits) == .full
        }
    }

    /// The `length`-digit numbers (as values) that a pattern of `networks[owner]` cannot decide
    /// because a longer pattern claims or could still claim them: one of another network, or
    /// one of the same network with other lengths that a number this long matches in full.
    /// Sorted by low end, possibly overlapping; for `rules sample`.
    func numbersTakenFrom(owner: Int, patternIndex: Int, length: Int) -> [(low: UInt64, high: UInt64)] {
        let network = networks[owner]
        let pattern = network.patterns[patternIndex]
        let mask = LengthSet(network.patternLengths[patternIndex]).mask
        var taken: [(low: UInt64, high: UInt64)] = []
        for level in levels where level.length > pattern.length {
            let factor = pow10[level.length - pattern.length]
            guard let span = level.span(low: pattern.lowValue * factor, high: (pattern.highValue + 1) * factor - 1)
            else { continue }
            for i in span {
                let own = level.owners[i] == Int32(owner)
                if own && (level.lengthMasks[i] == mask || level.length > length) { continue }
                if level.length <= length {
                    let scale = pow10[length - level.length]
                    taken.append((level.lows[i] * scale, (level.highs[i] + 1) * scale - 1))
                } else {
                    // Longer than the number: it could still grow into it, so the network is undecided.
                    let scale = pow10[level.length - length]
                    taken.append((level.lows[i] / scale, level.highs[i] / scale))
                }
            }
        }
        return taken.sorted { $0.low < $1.low }
    }
}

/// The card networks in force: a value the engine is given, never a global registry.
///
/// Matching uses an index built once: for each pattern length, the patterns as sorted,
/// disjoint intervals (a network's own overlapping patterns merged; two networks overlapping
/// at one length is a tie, refused), with range-min/max tables over them. Detecting what a
/// partial number can become then costs, per pattern length in use, two binary searches and
/// three table look-ups: it does not grow with the number of patterns.
public struct RuleSet: Sendable {
    /// Networks in load order (later sources override earlier ones by id).
    public let networks: [CardNetwork]
    /// Problems that do not stop the set from loading (a network hidden by others, say).
    public let warnings: [RuleError]
    private let levels: [IntervalLevel]
    /// What an empty number says (every card starts there): worked out once.
    private var emptyDetection: Detection?

    /// One rule file's text and the path to name in messages.
    public struct FileText: Sendable {
        /// The path to name in messages.
        public var path: String
        /// The file's contents: UTF-8 JSON.
        public var bytes: [UInt8]
        /// A rule file's text from its path and bytes.
        public init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// Builds a rule set from folders of rule files, in priority order: a network in a later
    /// folder replaces one with the same id from an earlier folder, and a file
    /// `{"id": …, "disabled": true}` removes it; the same id twice within one folder is an
    /// error, as are two networks whose patterns tie for the same numbers.
    public static func load(folders: [[FileText]]) throws(RuleErrors) -> RuleSet {
        var problems: [RuleError] = []
        var warnings: [RuleError] = []
        var networks: [CardNetwork] = []
        for folder in folders {
            var seenHere: [String: String] = [:]
            for file in folder {
                var decoder = RuleFile(file: file.path)
                let content = decoder.decode(file.bytes)
                problems += decoder.problems
                let (id, location): (String, SourceLocation)
                switch content {
                case .network(let network): (id, location) = (network.id, network.idLocation)
                case .disable(let disabled, let at): (id, location) = (disabled, at)
                case nil: continue
                }
                if let other = seenHere[id] {
                    problems.append(RuleError(file: file.path, location: location, message: "network id `\(id.escapingControlCharacters)` is also defined in \(other.escapingControlCharacters)"))
                    continue
                }
                seenHere[id] = file.path
                let existing = networks.firstIndex { $0.id == id }
                switch content {
                case .network(let network):
                    if let existing { networks[existing] = network } else { networks.append(network) }
                case .disable:
                    if let existing {
                        networks.remove(at: existing)
                    } else {
                        warnings.append(RuleError(file: file.path, location: location, severity: .warning,
                                                  message: "disables `\(id.escapingControlCharacters)`, which no earlier rule folder defines"))
                    }
                case nil:
                    break
                }
            }
        }
        let set: RuleSet
        do throws(RuleErrors) {
            set = try RuleSet(networks: networks)
        } catch {
            throw RuleErrors(errors: problems + error.errors + warnings)
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems + warnings + set.warnings) }
        return RuleSet(networks: set.networks, warnings: warnings + set.warnings, levels: set.levels)
    }

    private init(networks: [CardNetwork], warnings: [RuleError], levels: [IntervalLevel]) {
        self.networks = networks
        self.warnings = warnings
        self.levels = levels
        emptyDetection = detect([])
    }

    /// A rule set from networks already built. Refuses two networks whose patterns of the same
    /// length overlap, because neither would be more specific; warns about a network whose
    /// every pattern is covered by more specific patterns of others.
    public init(networks: [CardNetwork]) throws(RuleErrors) {
        var problems: [RuleError] = []
        var byLength: [Int: [Interval]] = [:]
        for (index, network) in networks.enumerated() {
            for (number, pattern) in network.patterns.enumerated() {
                byLength[pattern.length, default: []].append(Interval(pattern, owner: index, patternIndex: number))
            }
        }
        var levels: [IntervalLevel] = []
        for length in byLength.keys.sorted() {
            let sorted = byLength[length]!.sorted { $0.low < $1.low }
            // Ties: in order of low end, keep the interval that reaches highest so far.
            var reach: Interval?
            for interval in sorted {
                if let current = reach, interval.low <= current.high, current.owner != interval.owner {
                    // Reported at the network loaded later (usually the file just added).
                    let (earlier, later) = current.owner < interval.owner ? (current, interval) : (interval, current)
                    let a = networks[earlier.owner], b = networks[later.owner]
                    problems.append(RuleError(
                        file: b.file, location: b.location(ofPattern: later.patternIndex),
                        message: "pattern \(b.patterns[later.patternIndex]) of `\(b.id)` ties with pattern \(a.patterns[earlier.patternIndex]) of `\(a.id)` (\(a.file.escapingControlCharacters):\(a.location(ofPattern: earlier.patternIndex))); make one of them more specific"))
                }
                if reach == nil || reach!.high < interval.high { reach = interval }
            }
            levels.append(IntervalLevel(length: length, intervals: sorted, networks: networks))
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems) }
        self.networks = networks
        self.levels = levels
        self.warnings = Self.hiddenNetworks(networks, levels)
        emptyDetection = detect([])
    }

    /// The network whose id is exactly `id`, or nil.
    public func network(id: String) -> CardNetwork? { networks.first { $0.id == id } }

    /// The most digits any pattern looks at. Digits past it cannot change a detection.
    public var longestPattern: Int { levels.last?.length ?? 0 }

    /// What the digits typed so far say about the network.
    public func detect(_ digits: [UInt8]) -> Detection {
        if digits.isEmpty, let emptyDetection { return emptyDetection }
        let found = digits.withUnsafeBufferPointer { match(UnsafeBufferPointer(rebasing: $0.prefix(19))) }
        let decided = found.owner >= 0 ? networks[Int(found.owner)] : nil
        return Detection(network: decided, hasCandidates: found.hasCandidates, maxLength: found.maxLength,
                         decidingLength: found.decidingLength)
    }

    /// The allocation-free core of detection: the decided network's index (or -1), whether
    /// any network can still match, the longest length they allow, the deciding pattern's length.
    public func match(_ typed: UnsafeBufferPointer<UInt8>) -> (owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int) {
        // The value of each prefix of the digits, made in one pass: no division per level.
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: typed.count + 1) { prefix in
            var typedValue: UInt64 = 0
            prefix[0] = 0
            for (index, digit) in typed.enumerated() {
                typedValue = typedValue &* 10 &+ UInt64(digit)
                prefix[index + 1] = typedValue
            }
            return levels.withUnsafeBufferPointer { levels in
                // Digits past the longest pattern (every record `check` reads, most keystrokes):
                // no level is partial, so the longest level with a full match decides alone.
                if typed.count >= longestPattern {
                    for index in levels.indices.reversed() {
                        let level = levels[index]
                        if let owner = level.owner(containing: prefix[level.length]) {
                            return (owner, true, networks[Int(owner)].maxLength, level.length)
                        }
                    }
                    return (-1, false, 0, 0)
                }
                var bestOwner: Int32 = -1, bestLength = 0
                var minOwner = Int32.max, maxOwner = Int32.min, maxLength: Int32 = 0
                // Walked by index through the buffer: a `for … in` over the array copied
                // (retained) each level, once per level per record or keystroke.
                for index in levels.indices {
                    let level = levels[index]
                    if level.length <= typed.count {
                        if let owner = level.owner(containing: prefix[level.length]) {
                            (bestOwner, bestLength) = (owner, level.length)  // levels ascend: the longest full match wins
                        }
                    } else if let span = level.span(prefix: typedValue, digits: typed.count) {
                        minOwner = min(minOwner, level.minOwner.query(span))
                        maxOwner = max(maxOwner, level.maxOwner.query(span))
                        maxLength = max(maxLength, level.maxLength.query(span))
                    }
                }
                if bestOwner >= 0 {
                    minOwner = min(minOwner, bestOwner)
                    maxOwner = max(maxOwner, bestOwner)
                    maxLength = max(maxLength, Int32(networks[Int(bestOwner)].maxLength))
                }
                let decided = bestOwner >= 0 && minOwner == maxOwner
                return (decided ? bestOwner : -1, maxOwner >= 0, Int(maxLength), decided ? bestLength : 0)
            }
        }
    }

    /// Every network the digits could still belong to, in load order (for `rules test`).
    public func candidates(_ digits: some Collection<UInt8>) -> [CardNetwork] {
        let typed = Array(digits.prefix(19))
        var owners = Set<Int32>()
        var best: (owner: Int32, length: Int)?
        for level in levels {
            if level.length <= typed.count {
                if let owner = level.owner(containing: value(typed.prefix(level.length))) { best = (owner, level.length) }
            } else if let span = level.span(prefix: value(typed), digits: typed.count) {
                owners.formUnion(level.owners[span])
            }
        }
        if let best { owners.insert(best.owner) }
        return owners.sorted().map { networks[Int($0)] }
    }

    /// The decided network's own pattern that matched, for explaining a detection.
    public func decidingPattern(_ detection: Detection, _ digits: some Collection<UInt8>) -> IINPattern? {
        detection.network?.patterns.first { $0.length == detection.decidingLength && $0.match(digits) == .full }
    }

    /// Networks every one of whose patterns lies under more specific patterns of others.
    private static func hiddenNetworks(_ networks: [CardNetwork], _ levels: [IntervalLevel]) -> [RuleError] {
        guard let deepest = levels.last?.length else { return [] }
        var warnings: [RuleError] = []
        for (index, network) in networks.enumerated() where !network.patterns.isEmpty {
            let hidden = network.patterns.allSatisfy { pattern in
                // The pattern's numbers at the deepest length, and what longer levels of
                // other networks cover of them, all at that length.
                let scale = pow10[deepest - pattern.length]
                var next = value(pattern.low) * scale
                let end = (value(pattern.high) + 1) * scale
                var pieces: [(UInt64, UInt64)] = []
                for level in levels where level.length > pattern.length {
                    let factor = pow10[level.length - pattern.length]
                    guard let span = level.span(low: value(pattern.low) * factor, high: (value(pattern.high) + 1) * factor - 1) else { continue }
                    let fill = pow10[deepest - level.length]
                    for i in span where level.owners[i] != Int32(index) {
                        pieces.append((level.lows[i] * fill, (level.highs[i] + 1) * fill))
                    }
                }
                for piece in pieces.sorted(by: { $0.0 < $1.0 }) where piece.0 <= next { next = max(next, piece.1) }
                return next >= end
            }
            if hidden {
                warnings.append(RuleError(file: network.file, location: network.idLocation, severity: .warning,
                                          message: "network `\(network.id)` can never be detected: more specific patterns of other networks cover all of its own"))
            }
        }
        return warnings
    }
}

/// What the digits typed so far say about the network.
public struct Detection: Equatable, Sendable {
    /// Set once exactly one network remains possible and one of its patterns matches in full
    /// (the longest full match wins).
    public var network: CardNetwork?
    /// False when no network can start with the digits.
    public var hasCandidates: Bool
    /// The longest length any still-possible network allows; digits beyond it are refused.
    public var maxLength: Int
    /// How many digits the pattern that decided `network` looks at.
    public var decidingLength: Int
}

extension CardNetwork {
    func location(ofPattern index: Int) -> SourceLocation {
        patternLocations.indices.contains(index) ? patternLocations[index] : idLocation
    }
}

// MARK: - The index

/// A pattern as numbers: its low and high prefixes, all of one length.
private struct Interval {
    var low: UInt64
    var high: UInt64
    var owner: Int
    var patternIndex: Int

    init(_ pattern: IINPattern, owner: Int, patternIndex: Int) {
        low = value(pattern.low)
        high = value(pattern.high)
        self.owner = owner
        self.patternIndex = patternIndex
    }
}

/// The intervals of one pattern length, disjoint and sorted, with range tables. A class, so
/// walking the levels on every keystroke or record does not copy (and retain) its arrays.
private final class IntervalLevel: Sendable {
    let length: Int
    let lows: [UInt64]
    let highs: [UInt64]
    let owners: [Int32]
    let minOwner: SparseTable
    let maxOwner: SparseTable
    let maxLength: SparseTable

    /// `intervals` sorted by low end, with no overlap between different owners.
    init(length: Int, intervals: [Interval], networks: [CardNetwork]) {
        var lows: [UInt64] = [], highs: [UInt64] = [], owners: [Int32] = []
        for interval in intervals {
            // A network's own overlapping or adjacent patterns become one interval.
            if let last = owners.last, last == Int32(interval.owner), interval.low <= highs[highs.count - 1] &+ 1 {
                highs[highs.count - 1] = max(highs[highs.count - 1], interval.high)
                continue
            }
            lows.append(interval.low)
            highs.append(interval.high)
            owners.append(Int32(interval.owner))
        }
        self.length = length
        self.lows = lows
        self.highs = highs
        self.owners = owners
        minOwner = SparseTable(owners, keepsLarger: false)
        maxOwner = SparseTable(owners, keepsLarger: true)
        maxLength = SparseTable(owners.map { Int32(networks[Int($0)].maxLength) }, keepsLarger: true)
    }

    /// The owner of the interval holding `value`, if one does.
    func owner(containing value: UInt64) -> Int32? {
        let index = firstIndex(in: lows) { $0 > value } - 1
        return index >= 0 && highs[index] >= value ? owners[index] : nil
    }

    /// The intervals a number starting with `prefix` (`digits` digits long, fewer than the
    /// level's) could fall in.
    func span(prefix: UInt64, digits: Int) -> Range<Int>? {
        let scale = pow10[length - digits]
        let low = prefix * scale
        return span(low: low, high: low + scale - 1)
    }

    /// The intervals overlapping [low, high].
    func span(low: UInt64, high: UInt64) -> Range<Int>? {
        let start = firstIndex(in: highs) { $0 >= low }
        let end = firstIndex(in: lows) { $0 > high }
        return start < end ? start..<end : nil
    }

    /// Binary search: the first index whose element satisfies `isAfter` (which is monotonic).
    @inline(__always)
    private func firstIndex(in array: [UInt64], where isAfter: (UInt64) -> Bool) -> Int {
        array.withUnsafeBufferPointer { array in
            var low = 0, high = array.count
            while low < high {
                let middle = (low + high) / 2
                if isAfter(array[middle]) { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }
}

/// Range minimum or maximum in O(1) after an O(n log n) build. The rows are one flat array
/// (row r starts at r × count): a query reads it without retaining an inner array.
private struct SparseTable: Sendable {
    private let cells: [Int32]
    private let count: Int
    private let keepsLarger: Bool

    init(_ values: [Int32], keepsLarger: Bool) {
        self.keepsLarger = keepsLarger
        count = values.count
        var cells = values
        var width = 1
        var previous = 0  // where the previous row starts
        while width * 2 <= values.count {
            for i in 0..<values.count {
                let a = cells[previous + i]
                let b = i + width < values.count ? cells[previous + i + width] : a
                cells.append(keepsLarger ? max(a, b) : min(a, b))
            }
            previous += values.count
            width *= 2
        }
        self.cells = cells
    }

    func query(_ range: Range<Int>) -> Int32 {
        let row = Int.bitWidth - 1 - range.count.leadingZeroBitCount
        let base = row * count
        return cells.withUnsafeBufferPointer { cells in
            let a = cells[base + range.lowerBound], b = cells[base + range.upperBound - (1 << row)]
            return keepsLarger ? max(a, b) : min(a, b)
        }
    }
}

/// Powers of ten up to 10^19 (the largest that fits in UInt64), as `pow10[n]`. A switch, not
/// a global array: reading a lazily initialised global table cost a `swift_once` and a
/// retain/release on every look-up, several per record in `check`.
private let pow10 = PowersOfTen()

private struct PowersOfTen: Sendable {
    @inline(__always) subscript(n: Int) -> UInt64 {
        switch n {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        case 8: return 100_000_000
        case 9: return 1_000_000_000
        case 10: return 10_000_000_000
        case 11: return 100_000_000_000
        case 12: return 1_000_000_000_000
        case 13: return 10_000_000_000_000
        case 14: return 100_000_000_000_000
        case 15: return 1_000_000_000_000_000
        case 16: return 10_000_000_000_000_000
        case 17: return 100_000_000_000_000_000
        case 18: return 1_000_000_000_000_000_000
        case 19: return 10_000_000_000_000_000_000
        default: preconditionFailure("10^\(n) does not fit in 64 bits")
        }
    }
}

/// Digit values as a number (at most 19 digits).
private func value(_ digits: some Sequence<UInt8>) -> UInt64 {
    digits.reduce(0) { $0 * 10 + UInt64($1) }
}

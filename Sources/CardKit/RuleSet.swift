/// The card networks in force: a value the engine is given, never a global registry.
///
/// Matching uses an index built once: for each pattern length, the patterns as sorted,
/// disjoint intervals (a network's own overlapping patterns merged; two networks overlapping
/// at one length is a tie, refused), with range-min/max tables over them. Detecting what a
/// partial number can become then costs, per pattern length in use, two binary searches and
/// three table look-ups: it does not grow with the number of patterns.
public struct RuleSet: Sendable {
    /// Networks in load order (later sources override earlier ones by id): the ones matched.
    public let networks: [CardNetwork]
    /// Retired networks that were read but are not matched (`includeRetired` was false).
    public private(set) var retired: [CardNetwork] = []
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
    /// error, as are two networks whose patterns tie for the same numbers. Networks with
    /// `"status": "retired"` are read and checked but kept in `retired`, not matched, unless
    /// `includeRetired`.
    public static func load(folders: [[FileText]], includeRetired: Bool = false) throws(RuleErrors) -> RuleSet {
        var problems: [RuleError] = []
        var warnings: [RuleError] = []
        var networks: [CardNetwork] = []
        var indexByID: [String: Int] = [:]  // where each id stands in `networks`
        for folder in folders {
            var seenHere: [String: String] = [:]
            for file in folder {
                var decoder = RuleFile(file: file.path)
                let content = decoder.decode(file.bytes)
                problems += decoder.problems
                warnings += decoder.warnings
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
                let existing = indexByID[id]
                switch content {
                case .network(let network):
                    if let existing {
                        networks[existing] = network
                    } else {
                        indexByID[id] = networks.count
                        networks.append(network)
                    }
                case .disable:
                    if let existing {
                        networks.remove(at: existing)
                        indexByID[id] = nil
                        for later in existing..<networks.count { indexByID[networks[later].id] = later }
                    } else {
                        warnings.append(RuleError(file: file.path, location: location, severity: .warning,
                                                  message: "disables `\(id.escapingControlCharacters)`, which no earlier rule folder defines"))
                    }
                case nil:
                    break
                }
            }
        }
        warnings += Self.familyWarnings(networks)
        let retired = includeRetired ? [] : networks.filter { $0.status == .retired }
        if !retired.isEmpty { networks.removeAll { $0.status == .retired } }
        let set: RuleSet
        do throws(RuleErrors) {
            set = try RuleSet(networks: networks)
        } catch {
            throw RuleErrors(errors: problems + error.errors + warnings)
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems + warnings + set.warnings) }
        return RuleSet(networks: set.networks, retired: retired, warnings: warnings + set.warnings, levels: set.levels)
    }

    /// A `family` that names no network loaded (a typo, or a family network another folder
    /// disabled) or a network that has a family itself (families do not nest: `--networks`
    /// takes one level): warnings, since the file itself is fine and another may have changed.
    private static func familyWarnings(_ networks: [CardNetwork]) -> [RuleError] {
        var warnings: [RuleError] = []
        for network in networks where network.hasFamily {
            let family = network.family
            guard let head = networks.first(where: { $0.id == family }) else {
                var message = "family `\(family)` names no network loaded"
                if let guess = closest(to: family, in: networks.map(\.id)) { message += "; did you mean `\(guess)`?" }
                warnings.append(RuleError(file: network.file, location: network.familyLocation, severity: .warning,
                                          message: message + " (`--networks \(family)` still takes `\(network.id)`)"))
                continue
            }
            if head.hasFamily {
                warnings.append(RuleError(file: network.file, location: network.familyLocation, severity: .warning,
                                          message: "family `\(family)` is itself in family `\(head.family)`; families do not nest, so `--networks \(head.family)` does not take `\(network.id)`"))
            }
        }
        return warnings
    }

    private init(networks: [CardNetwork], retired: [CardNetwork], warnings: [RuleError], levels: [IntervalLevel]) {
        self.networks = networks
        self.retired = retired
        self.warnings = warnings
        self.levels = levels
        emptyDetection = detect([])
    }

    /// The same networks with the retired ones matched too (for sampling a retired network).
    public func includingRetired() throws(RuleErrors) -> RuleSet {
        retired.isEmpty ? self : try RuleSet(networks: networks + retired)
    }

    /// A rule set from networks already built. Refuses two networks whose patterns of the same
    /// length overlap, because neither would be more specific; warns about a network whose
    /// every pattern is covered by more specific patterns of others.
    public init(networks: [CardNetwork]) throws(RuleErrors) {
        var problems: [RuleError] = []
        // By pattern length (1–19), in an array rather than a dictionary: no hashing per pattern.
        var byLength = [[Interval]](repeating: [], count: 20)
        var counts = [Int](repeating: 0, count: 20)  // reserved first: growing 100,000 intervals by doubling faults in twice the memory
        for network in networks { for pattern in network.patterns { counts[pattern.length] += 1 } }
        for length in byLength.indices where counts[length] > 0 { byLength[length].reserveCapacity(counts[length]) }
        for (index, network) in networks.enumerated() {
            var lengths = LengthSet(mask: 0), lengthsOf: [Int] = []  // the last pattern's, reused while they repeat
            for (number, pattern) in network.patterns.enumerated() {
                let own = network.patternLengths[number]
                if own != lengthsOf { (lengths, lengthsOf) = (LengthSet(own), own) }
                byLength[pattern.length].append(Interval(pattern, owner: index, patternIndex: number, lengths: lengths))
            }
        }
        var levels: [IntervalLevel] = []
        for length in byLength.indices where !byLength[length].isEmpty {
            let sorted = sortedByLow(Self.yieldingToRetired(byLength[length], networks))
            // Ties: in order of low end, keep the interval that reaches highest so far.
            var reach: Interval?
            for interval in sorted {
                if let current = reach, interval.low <= current.high, current.owner == interval.owner, current.lengths != interval.lengths {
                    // One network's patterns overlapping with different lengths: which apply?
                    let network = networks[interval.owner]
                    let (earlier, later) = current.patternIndex < interval.patternIndex ? (current, interval) : (interval, current)
                    problems.append(RuleError(
                        file: network.file, location: network.location(ofPattern: later.patternIndex),
                        message: "pattern \(network.patterns[later.patternIndex]) of `\(network.id)` overlaps its pattern \(network.patterns[earlier.patternIndex]) (\(network.location(ofPattern: earlier.patternIndex))) with other lengths; make one of them more specific"))
                }
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
            levels.append(IntervalLevel(length: length, intervals: sorted))
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems) }
        self.networks = networks
        self.levels = levels
        self.warnings = Self.hiddenNetworks(networks, levels)
        emptyDetection = detect([])
    }

    /// With retired networks matched (`--retired`), a retired network's pattern wins over an
    /// active one of the same length that covers the same numbers (Laser's `6304` is also a
    /// Maestro prefix today): the active intervals lose the parts retired ones cover, so only
    /// two retired networks can tie. Without retired networks: the intervals as they are.
    private static func yieldingToRetired(_ intervals: [Interval], _ networks: [CardNetwork]) -> [Interval] {
        let retired = intervals.filter { networks[$0.owner].status == .retired }
        guard !retired.isEmpty else { return intervals }
        var result = retired
        for interval in intervals where networks[interval.owner].status != .retired {
            var pieces = [interval]
            for cut in retired where cut.low <= interval.high && interval.low <= cut.high {
                pieces = pieces.flatMap { piece -> [Interval] in
                    guard cut.low <= piece.high && piece.low <= cut.high else { return [piece] }
                    var kept: [Interval] = []
                    if piece.low < cut.low { var before = piece; before.high = cut.low - 1; kept.append(before) }
                    if piece.high > cut.high { var after = piece; after.low = cut.high + 1; kept.append(after) }
                    return kept
                }
            }
            result += pieces
        }
        return result
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
                         decidingLength: found.decidingLength, lengths: found.lengths)
    }

    /// The allocation-free core of detection: the decided network's index (or -1), whether
    /// any network can still match, the longest length they allow, the deciding pattern's
    /// length, and the lengths the patterns still possible allow (once no longer pattern can
    /// match, the deciding pattern's own).
    public func match(_ typed: UnsafeBufferPointer<UInt8>) -> (owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet) {
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
                        if let found = level.index(containing: prefix[level.length]) {
                            let set = LengthSet(mask: level.lengthMasks[found])
                            return (level.owners[found], true, set.max, level.length, set)
                        }
                    }
                    return (-1, false, 0, 0, LengthSet(mask: 0))
                }
                var bestOwner: Int32 = -1, bestLength = 0, bestLengths: UInt32 = 0
                var minOwner = Int32.max, maxOwner = Int32.min, lengths: UInt32 = 0
                // Walked by index through the buffer: a `for … in` over the array copied
                // (retained) each level, once per level per record or keystroke.
                for index in levels.indices {
                    let level = levels[index]
                    if level.length <= typed.count {
                        if let found = level.index(containing: prefix[level.length]) {
                            // Levels ascend: the longest full match wins.
                            (bestOwner, bestLength, bestLengths) = (level.owners[found], level.length, level.lengthMasks[found])
                        }
                    } else if let span = level.span(prefix: typedValue, digits: typed.count) {
                        minOwner = min(minOwner, level.minOwner.query(span))
                        maxOwner = max(maxOwner, level.maxOwner.query(span))
                        lengths |= UInt32(bitPattern: level.lengthUnion.query(span))
                    }
                }
                if bestOwner >= 0 {
                    minOwner = min(minOwner, bestOwner)
                    maxOwner = max(maxOwner, bestOwner)
                    lengths |= bestLengths
                }
                let decided = bestOwner >= 0 && minOwner == maxOwner
                let set = LengthSet(mask: lengths)
                return (decided ? bestOwner : -1, maxOwner >= 0, set.max, decided ? bestLength : 0, set)
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
                if let index = level.index(containing: value(typed.prefix(level.length))) { best = (level.owners[index], level.length) }
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
        detection.network?.patterns.indices.first { detection.network!.patterns[$0].length == detection.decidingLength
            && detection.network!.patterns[$0].match(digits) == .full }
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
            guard let span = level.span(low: pattern.lowValue * factor, high: (pattern.highValue + 1) * factor - 1) else { continue }
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

    /// Networks every one of whose patterns lies under more specific patterns of others.
    private static func hiddenNetworks(_ networks: [CardNetwork], _ levels: [IntervalLevel]) -> [RuleError] {
        guard let deepest = levels.last?.length else { return [] }
        var warnings: [RuleError] = []
        for (index, network) in networks.enumerated() where !network.patterns.isEmpty {
            let hidden = network.patterns.allSatisfy { pattern in
                // The pattern's numbers at the deepest length, and what longer levels of
                // other networks cover of them, all at that length.
                let scale = pow10[deepest - pattern.length]
                var next = pattern.lowValue * scale
                let end = (pattern.highValue + 1) * scale
                var pieces: [(UInt64, UInt64)] = []
                for level in levels where level.length > pattern.length {
                    let factor = pow10[level.length - pattern.length]
                    guard let span = level.span(low: pattern.lowValue * factor, high: (pattern.highValue + 1) * factor - 1) else { continue }
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
    /// The longest length any still-possible pattern allows; digits beyond it are refused.
    public var maxLength: Int
    /// How many digits the pattern that decided `network` looks at.
    public var decidingLength: Int
    /// The lengths the patterns still possible allow: the deciding pattern's own once no
    /// longer pattern can match (Visa `4…`: 16; Visa `413600…`: 13 and 16).
    public var lengths: LengthSet

    /// A detection from its parts.
    public init(network: CardNetwork?, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet) {
        self.network = network
        self.hasCandidates = hasCandidates
        self.maxLength = maxLength
        self.decidingLength = decidingLength
        self.lengths = lengths
    }
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
    /// The pattern's valid lengths.
    var lengths: LengthSet

    init(_ pattern: IINPattern, owner: Int, patternIndex: Int, lengths: LengthSet) {
        low = pattern.lowValue
        high = pattern.highValue
        self.owner = owner
        self.patternIndex = patternIndex
        self.lengths = lengths
    }
}

/// `intervals` sorted by low end, stably: equal lows keep their order, as with the standard
/// library's sort, on which the order of tie messages depends. Large levels (a bank's
/// thousands of ranges) go through a radix sort on 16-bit digits of the low end, linear in
/// their number; a merge sort of 100,000 intervals was a sixth of loading them.
private func sortedByLow(_ intervals: [Interval]) -> [Interval] {
    guard intervals.count > 256 else { return intervals.sorted { $0.low < $1.low } }
    return stableOrder(ofKeys: intervals.map(\.low)).map { intervals[Int($0)] }
}

/// The indices of `keys` in ascending order of key, equal keys in index order: an LSD radix
/// sort on 16-bit digits, each pass stable, passes where every key has the same digit skipped.
func stableOrder(ofKeys keys: [UInt64]) -> [Int32] {
    let count = keys.count
    var order = [Int32](unsafeUninitializedCapacity: count) { order, initialized in
        for i in 0..<count { order[i] = Int32(i) }
        initialized = count
    }
    var scratch = order
    var counts = [Int](repeating: 0, count: 1 << 16 + 1)
    keys.withUnsafeBufferPointer { keys in
        for shift in stride(from: UInt64(0), to: 64, by: 16) {
            for i in counts.indices { counts[i] = 0 }
            for key in keys { counts[Int(truncatingIfNeeded: key >> shift) & 0xFFFF + 1] += 1 }
            if counts.contains(count) { continue }  // every key has the same digit here: nothing to move
            for i in 1..<counts.count { counts[i] += counts[i - 1] }
            order.withUnsafeBufferPointer { order in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    for index in order {
                        let digit = Int(truncatingIfNeeded: keys[Int(index)] >> shift) & 0xFFFF
                        scratch[counts[digit]] = index
                        counts[digit] += 1
                    }
                }
            }
            swap(&order, &scratch)
        }
    }
    return order
}

/// The intervals of one pattern length, disjoint and sorted, with range tables. A class, so
/// walking the levels on every keystroke or record does not copy (and retain) its arrays.
private final class IntervalLevel: Sendable {
    let length: Int
    let lows: [UInt64]
    let highs: [UInt64]
    let owners: [Int32]
    /// Each interval's valid lengths, as `LengthSet` masks.
    let lengthMasks: [UInt32]
    let minOwner: SparseTable
    let maxOwner: SparseTable
    /// The union of the intervals' lengths over a span.
    let lengthUnion: SparseTable

    /// `intervals` sorted by low end, with no overlap between different owners (nor between
    /// one owner's patterns with different lengths).
    init(length: Int, intervals: [Interval]) {
        var lows: [UInt64] = [], highs: [UInt64] = [], owners: [Int32] = [], masks: [UInt32] = []
        lows.reserveCapacity(intervals.count)
        highs.reserveCapacity(intervals.count)
        owners.reserveCapacity(intervals.count)
        masks.reserveCapacity(intervals.count)
        for interval in intervals {
            // A network's own overlapping or adjacent patterns with the same lengths become one interval.
            if let last = owners.last, last == Int32(interval.owner), masks[masks.count - 1] == interval.lengths.mask,
               interval.low <= highs[highs.count - 1] &+ 1 {
                highs[highs.count - 1] = max(highs[highs.count - 1], interval.high)
                continue
            }
            lows.append(interval.low)
            highs.append(interval.high)
            owners.append(Int32(interval.owner))
            masks.append(interval.lengths.mask)
        }
        self.length = length
        self.lows = lows
        self.highs = highs
        self.owners = owners
        self.lengthMasks = masks
        minOwner = SparseTable(owners, combining: .min)
        maxOwner = SparseTable(owners, combining: .max)
        lengthUnion = SparseTable(masks.map { Int32(bitPattern: $0) }, combining: .union)
    }

    /// The index of the interval holding `value`, if one does.
    func index(containing value: UInt64) -> Int? {
        let index = firstIndex(in: lows) { $0 > value } - 1
        return index >= 0 && highs[index] >= value ? index : nil
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

/// Range minimum, maximum or bitwise union in O(1), built in linear time and memory: the
/// values in blocks of 32, each value with the combination from its block's start to it and
/// from it to its block's end, and a sparse table over whole blocks. A query is the end of
/// its first block, the start of its last, and the blocks between; a span inside one block
/// (at most 32 values) is combined directly. (A sparse table over every value had 17 rows for
/// 100,000 intervals: 20 MB over three tables, whose page faults cost more than building it.)
private struct SparseTable: Sendable {
    /// How two values combine; each is idempotent, so overlapping halves may answer a query.
    enum Combining: Sendable { case min, max, union }

    private static let blockShift = 5
    private static let blockSize = 1 << blockShift

    private let values: [Int32]
    /// For each value, the combination from its block's start up to it.
    private let fromBlockStart: [Int32]
    /// For each value, the combination from it to its block's end.
    private let toBlockEnd: [Int32]
    /// Sparse table over whole blocks: row r (spans of 2^r blocks) starts at r × blockCount.
    private let blocks: [Int32]
    private let blockCount: Int
    private let combining: Combining

    init(_ values: [Int32], combining: Combining) {
        self.values = values
        self.combining = combining
        let count = values.count, size = Self.blockSize
        switch combining {
        case .min: (fromBlockStart, toBlockEnd) = Self.scanBlocks(values) { Swift.min($0, $1) }
        case .max: (fromBlockStart, toBlockEnd) = Self.scanBlocks(values) { Swift.max($0, $1) }
        case .union: (fromBlockStart, toBlockEnd) = Self.scanBlocks(values) { $0 | $1 }
        }
        let toEnd = toBlockEnd
        let blockCount = (count + size - 1) / size
        self.blockCount = blockCount
        var blocks = (0..<blockCount).map { toEnd[$0 * size] }  // row 0: each whole block
        var width = 1
        while width * 2 <= blockCount {
            let previous = blocks.count - blockCount
            for i in 0..<blockCount {
                blocks.append(i + width < blockCount ? Self.combine(blocks[previous + i], blocks[previous + i + width], combining) : blocks[previous + i])
            }
            width *= 2
        }
        self.blocks = blocks
    }

    /// Each value combined with those before it in its block, and with those after it.
    @inline(__always)
    private static func scanBlocks(_ values: [Int32], _ combine: (Int32, Int32) -> Int32) -> (fromStart: [Int32], toEnd: [Int32]) {
        var fromStart = values, toEnd = values
        let count = values.count
        fromStart.withUnsafeMutableBufferPointer { fromStart in
            toEnd.withUnsafeMutableBufferPointer { toEnd in
                for blockStart in stride(from: 0, to: count, by: blockSize) {
                    let blockEnd = min(blockStart + blockSize, count)
                    for i in (blockStart + 1)..<max(blockStart + 1, blockEnd) { fromStart[i] = combine(fromStart[i - 1], fromStart[i]) }
                    for i in stride(from: blockEnd - 2, through: blockStart, by: -1) { toEnd[i] = combine(toEnd[i], toEnd[i + 1]) }
                }
            }
        }
        return (fromStart, toEnd)
    }

    private static func combine(_ a: Int32, _ b: Int32, _ combining: Combining) -> Int32 {
        switch combining {
        case .min: return min(a, b)
        case .max: return max(a, b)
        case .union: return a | b
        }
    }

    func query(_ range: Range<Int>) -> Int32 {
        let first = range.lowerBound, last = range.upperBound - 1
        let firstBlock = first >> Self.blockShift, lastBlock = last >> Self.blockShift
        if firstBlock == lastBlock {
            var result = values[first]
            for i in first..<range.upperBound { result = Self.combine(result, values[i], combining) }
            return result
        }
        var result = Self.combine(toBlockEnd[first], fromBlockStart[last], combining)
        let between = lastBlock - firstBlock - 1
        if between > 0 {
            let row = Int.bitWidth - 1 - between.leadingZeroBitCount
            let base = row * blockCount
            result = Self.combine(result, Self.combine(blocks[base + firstBlock + 1], blocks[base + lastBlock - (1 << row)], combining), combining)
        }
        return result
    }
}

/// Powers of ten up to 10^19 (the largest that fits in UInt64), as `pow10[n]`. A switch, not
/// a global array: reading a lazily initialised global table cost a `swift_once` and a
/// retain/release on every look-up, several per record in `check`.
let pow10 = PowersOfTen()

struct PowersOfTen: Sendable {
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
func value(_ digits: some Sequence<UInt8>) -> UInt64 {
    digits.reduce(0) { $0 * 10 + UInt64($1) }
}

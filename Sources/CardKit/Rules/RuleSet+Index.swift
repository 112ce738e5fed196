// MARK: - The index

extension RuleSet {
    /// A level's intervals, made from its patterns in order of low end: each checked against
    /// the one reaching highest so far (a tie between networks, or one network's patterns
    /// overlapping with other lengths, is a problem), and merged into the last one when both
    /// are the same network's with the same lengths (overlapping or adjacent).
    static func level(
        _ length: Int, _ run: SortedRun, _ networks: [CardNetwork],
        _ problems: inout [RuleError]
    ) -> IntervalLevel {
        var lows: [UInt64] = []
        var highs: [UInt64] = []
        var owners: [Int32] = []
        var masks: [UInt32] = []
        lows.reserveCapacity(run.count)
        highs.reserveCapacity(run.count)
        owners.reserveCapacity(run.count)
        masks.reserveCapacity(run.count)
        // The interval reaching highest so far (nil: none yet).
        var reaching: PatternList.Item? = nil
        var reachHigh: UInt64 = 0
        for place in 0..<run.count {
            let item = run.item(place)
            if let reach = reaching {
                if item.low <= reachHigh && (reach.owner != item.owner || reach.mask != item.mask) {
                    problems.append(conflict(reach, item, networks))
                }
                if reachHigh < item.high { (reaching, reachHigh) = (item, item.high) }
            } else {
                (reaching, reachHigh) = (item, item.high)
            }
            if let last = lows.indices.last, owners[last] == item.owner, masks[last] == item.mask,
                item.low <= highs[last] &+ 1
            {
                highs[last] = max(highs[last], item.high)
            } else {
                lows.append(item.low)
                highs.append(item.high)
                owners.append(item.owner)
                masks.append(item.mask)
            }
        }
        return IntervalLevel(length: length, lows: lows, highs: highs, owners: owners, masks: masks)
    }

    /// The problem with pattern `later` overlapping `current` (the one reaching highest before
    /// it): one network's patterns with other lengths, or two networks' tie.
    private static func conflict(_ current: PatternList.Item, _ later: PatternList.Item, _ networks: [CardNetwork])
        -> RuleError
    {
        let (currentOwner, owner) = (Int(current.owner), Int(later.owner))
        let (currentPattern, pattern) = (Int(current.pattern), Int(later.pattern))
        if currentOwner == owner {
            // One network's patterns overlapping with different lengths: which apply?
            let network = networks[owner]
            let (earlier, later) = (min(currentPattern, pattern), max(currentPattern, pattern))
            return RuleError(
                file: network.file, location: network.location(ofPattern: later),
                message:
                    "pattern \(network.patterns[later]) of `\(network.id)` overlaps its pattern \(network.patterns[earlier]) (\(network.location(ofPattern: earlier))) with other lengths; make one of them more specific"
            )
        }
        // Reported at the network loaded later (usually the file just added).
        let (earlier, later) =
            currentOwner < owner
            ? ((currentOwner, currentPattern), (owner, pattern)) : ((owner, pattern), (currentOwner, currentPattern))
        let a = networks[earlier.0]
        let b = networks[later.0]
        return RuleError(
            file: b.file, location: b.location(ofPattern: later.1),
            message:
                "pattern \(b.patterns[later.1]) of `\(b.id)` ties with pattern \(a.patterns[earlier.1]) of `\(a.id)` (\(a.file.escapingControlCharacters):\(a.location(ofPattern: earlier.1))); make one of them more specific"
        )
    }
}

/// The patterns of one length in order of low end, equal ones in load order
/// (`RuleSet.patternRuns`): the places in `items` after `first` of `order`'s words, in the bits
/// under `indexMask`.
struct SortedRun: Sendable {
    var items: [PatternList.Item] = []
    var first = 0
    var order: [UInt64] = []
    var indexMask: UInt64 = 0

    var count: Int { order.count }

    /// The pattern at `place` in order.
    func item(_ place: Int) -> PatternList.Item { items[first + Int(truncatingIfNeeded: order[place] & indexMask)] }
}

/// Patterns of one length while a level is made, one record each (a level visits them in
/// order of low end, which is random in the order they were gathered: one cache line a
/// pattern rather than one in each of five arrays). `patternRuns` gathers them; a retired
/// network's yielding (`yieldingToRetired`) makes a list of its own.
struct PatternList {
    struct Item: Sendable {
        var low: UInt64
        var high: UInt64
        var owner: Int32
        /// The pattern's index in its network's `patterns` (for messages).
        var pattern: Int32
        /// Its valid lengths, as a `LengthSet` mask.
        var mask: UInt32
    }
    var items: [Item] = []
    var count: Int { items.count }

    mutating func append(_ other: PatternList, _ i: Int) { items.append(other.items[i]) }
}

/// Sorts `words` into ascending order, given that they already ascend in the bits below
/// `bits` and are zero above: only `bits` need sorting, keeping the order of words equal
/// there. More than a thousand go through an LSD radix sort on those bits, at most 16 a pass
/// (100,000 eight-digit patterns take two passes), linear in their number; a merge sort of
/// 100,000 intervals was a sixth of loading them.
func sortWords(_ words: inout [UInt64], bits: Range<Int>) {
    let count = words.count
    guard !bits.isEmpty, count > 1 else { return }
    guard count > 1024 else { return words.sort() }
    let passes = (bits.count + 15) / 16
    let width = (bits.count + passes - 1) / passes
    let digitMask = UInt64(1) << UInt64(width) - 1
    var scratch = [UInt64](repeating: 0, count: count)
    var starts = [Int](repeating: 0, count: 1 << width)
    for pass in 0..<passes {
        let shift = UInt64(bits.lowerBound + pass * width)
        do {
            var starts = starts.mutableSpan
            let from = words.span
            for digit in 0..<starts.count { starts[digit] = 0 }
            for i in 0..<count { starts[Int(truncatingIfNeeded: from[i] &>> shift & digitMask)] += 1 }
            var total = 0
            for digit in 0..<starts.count { (starts[digit], total) = (total, total + starts[digit]) }
            var to = scratch.mutableSpan
            for i in 0..<count {
                let word = from[i]
                let digit = Int(truncatingIfNeeded: word &>> shift & digitMask)
                to[starts[digit]] = word
                starts[digit] += 1
            }
        }
        swap(&words, &scratch)
    }
}

/// The indices of `keys` in ascending order of key, equal keys in index order: each key less
/// the smallest shares a word with its index (`sortWords`). Keys too far apart for that (wide
/// patterns of 15 digits or more, by the hundred thousand) go through a comparison sort.
func stableOrder(ofKeys keys: [UInt64]) -> [Int32] {
    let count = keys.count
    guard count > 1 else { return count == 1 ? [0] : [] }
    var smallest = keys[0]
    var largest = keys[0]
    for key in keys { (smallest, largest) = (min(smallest, key), max(largest, key)) }
    let indexBits = Int.bitWidth - (count - 1).leadingZeroBitCount
    let keyBits = UInt64.bitWidth - (largest - smallest).leadingZeroBitCount
    guard keyBits + indexBits <= UInt64.bitWidth else {
        return keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map { Int32(truncatingIfNeeded: $0) }
    }
    var words = keys.enumerated().map { (keys[$0.offset] - smallest) << UInt64(indexBits) | UInt64($0.offset) }
    sortWords(&words, bits: indexBits..<indexBits + keyBits)
    let indexMask = UInt64(1) << UInt64(indexBits) - 1
    return words.map { Int32(truncatingIfNeeded: $0 & indexMask) }
}

/// The intervals of one pattern length, disjoint and sorted, with range tables. A class, so
/// walking the levels on every keystroke or record does not copy (and retain) its arrays.
final class IntervalLevel: Sendable {
    let length: Int
    let lows: [UInt64]
    let highs: [UInt64]
    let owners: [Int32]
    /// Each interval's valid lengths, as `LengthSet` masks.
    let lengthMasks: [UInt32]
    /// The smallest and largest owner and the union of the lengths over all the intervals:
    /// what an empty number asks (`RuleSet.shortDetections`, made at load).
    private let whole: SpanSummary
    /// The same over any span, made with the level.
    private let tables: RangeTables

    /// `intervals` sorted by low end, disjoint (a network's own overlapping patterns with the
    /// same lengths merged), with no overlap between different owners.
    init(length: Int, lows: [UInt64], highs: [UInt64], owners: [Int32], masks: [UInt32]) {
        self.length = length
        self.lows = lows
        self.highs = highs
        self.owners = owners
        lengthMasks = masks
        var whole = SpanSummary(owner: owners[0], lengths: masks[0])
        do {
            let owners = owners.span
            let masks = masks.span
            for i in 1..<owners.count { whole = whole.combined(with: SpanSummary(owner: owners[i], lengths: masks[i])) }
        }
        self.whole = whole
        tables = RangeTables(owners: owners, masks: masks)
    }

    /// The smallest and largest owner and the union of the lengths over `span` (not empty).
    @inline(__always)
    func summary(of span: Range<Int>) -> SpanSummary {
        span.count == lows.count ? whole : tables.query(span)
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
        let array = array.span
        var low = 0
        var high = array.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(array[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// What a span of intervals holds: the smallest and largest owner and the union of the lengths.
struct SpanSummary: Sendable {
    var minOwner: Int32
    var maxOwner: Int32
    var lengths: UInt32

    init(owner: Int32, lengths: UInt32) { (minOwner, maxOwner, self.lengths) = (owner, owner, lengths) }

    @inline(__always)
    func combined(with other: SpanSummary) -> SpanSummary {
        var result = self
        result.minOwner = min(minOwner, other.minOwner)
        result.maxOwner = max(maxOwner, other.maxOwner)
        result.lengths |= other.lengths
        return result
    }
}

/// The `SpanSummary` of any span of a level in O(1), built in linear time and memory: the
/// intervals in blocks of 32, each with the summary from its block's start to it and from it
/// to its block's end, and a sparse table over whole blocks. A query is the end of its first
/// block, the start of its last, and the blocks between; a span inside one block (at most 32
/// intervals) is summed directly. (A sparse table over every interval had 17 rows for 100,000
/// of them: 20 MB, whose page faults cost more than building it.)
final class RangeTables: Sendable {
    private static let blockShift = 5
    private static let blockSize = 1 << blockShift

    private let owners: [Int32]
    private let masks: [UInt32]
    /// For each interval, the summary from its block's start up to it.
    private let fromBlockStart: [SpanSummary]
    /// For each interval, the summary from it to its block's end.
    private let toBlockEnd: [SpanSummary]
    /// Sparse table over whole blocks: row r (spans of 2^r blocks) starts at r × blockCount.
    private let blocks: [SpanSummary]
    private let blockCount: Int

    init(owners: [Int32], masks: [UInt32]) {
        self.owners = owners
        self.masks = masks
        let count = owners.count
        let size = Self.blockSize
        let blockCount = (count + size - 1) / size
        var rows = 1
        while 1 << rows <= blockCount { rows += 1 }
        let empty = SpanSummary(owner: 0, lengths: 0)
        var fromStart = [SpanSummary](repeating: empty, count: count)
        var toEnd = fromStart
        var blocks = [SpanSummary](repeating: empty, count: rows * blockCount)
        do {
            let owners = owners.span
            let masks = masks.span
            var fromStart = fromStart.mutableSpan
            var toEnd = toEnd.mutableSpan
            var blocks = blocks.mutableSpan
            for blockStart in stride(from: 0, to: count, by: size) {
                let blockEnd = min(blockStart + size, count)
                var running = SpanSummary(owner: owners[blockStart], lengths: masks[blockStart])
                fromStart[blockStart] = running
                for i in blockStart + 1..<max(blockStart + 1, blockEnd) {
                    running = running.combined(with: SpanSummary(owner: owners[i], lengths: masks[i]))
                    fromStart[i] = running
                }
                blocks[blockStart / size] = running  // row 0: each whole block
                running = SpanSummary(owner: owners[blockEnd - 1], lengths: masks[blockEnd - 1])
                toEnd[blockEnd - 1] = running
                for i in stride(from: blockEnd - 2, through: blockStart, by: -1) {
                    running = running.combined(with: SpanSummary(owner: owners[i], lengths: masks[i]))
                    toEnd[i] = running
                }
            }
            for row in 1..<rows {
                let width = 1 << (row - 1)
                let previous = (row - 1) * blockCount
                let base = row * blockCount
                for i in 0..<blockCount {
                    blocks[base + i] =
                        i + width < blockCount
                        ? blocks[previous + i].combined(with: blocks[previous + i + width]) : blocks[previous + i]
                }
            }
        }
        (fromBlockStart, toBlockEnd, self.blocks, self.blockCount) = (fromStart, toEnd, blocks, blockCount)
    }

    func query(_ range: Range<Int>) -> SpanSummary {
        let first = range.lowerBound
        let last = range.upperBound - 1
        let firstBlock = first >> Self.blockShift
        let lastBlock = last >> Self.blockShift
        if firstBlock == lastBlock {
            var result = SpanSummary(owner: owners[first], lengths: masks[first])
            for i in first + 1..<range.upperBound {
                result = result.combined(with: SpanSummary(owner: owners[i], lengths: masks[i]))
            }
            return result
        }
        var result = toBlockEnd[first].combined(with: fromBlockStart[last])
        let between = lastBlock - firstBlock - 1
        if between > 0 {
            let row = Int.bitWidth - 1 - between.leadingZeroBitCount
            let base = row * blockCount
            result = result.combined(with: blocks[base + firstBlock + 1]).combined(
                with: blocks[base + lastBlock - (1 << row)])
        }
        return result
    }
}

extension RuleSet {

    /// The networks' patterns gathered by length, each length's in order of low end (equal
    /// ones in load order): what `init(networks:)` makes levels of. With `anyRetired`, an
    /// active pattern yields the numbers a retired one of its length covers
    /// (`yieldingToRetired`).
    static func patternRuns(_ networks: [CardNetwork], anyRetired: Bool) -> [SortedRun?] {
        // Each network's top-level lengths as a mask: most patterns have them.
        let topMasks = networks.map { LengthSet($0.lengths).mask }
        // By pattern length (1–19), in arrays rather than a dictionary: no hashing per pattern.
        var counts = InlineArray<20, Int>(repeating: 0)
        var lowest = InlineArray<20, UInt64>(repeating: .max)
        var highest = InlineArray<20, UInt64>(repeating: 0)
        for network in networks {
            for pattern in network.patterns {
                counts[pattern.length] += 1
                lowest[pattern.length] = min(lowest[pattern.length], pattern.lowValue)
                highest[pattern.length] = max(highest[pattern.length], pattern.lowValue)
            }
        }
        // Every pattern once, gathered by length into flat arrays in load order (one pass over
        // the networks; sorting then touches no network or pattern array again).
        var firsts = InlineArray<20, Int>(repeating: 0)  // where each length's patterns start
        var total = 0
        for length in 0..<20 {
            firsts[length] = total
            total += counts[length]
        }
        // One record a pattern, not five arrays: a level visits them in sorted order, which is
        // random in the gathered order, and then reads one cache line a pattern.
        var gathered = [PatternList.Item](
            repeating: PatternList.Item(low: 0, high: 0, owner: 0, pattern: 0, mask: 0), count: total)
        var next = firsts
        for (owner, network) in networks.enumerated() {
            let own = network.patternLengths
            let topMask = topMasks[owner]
            // The leading patterns share one array (usually `lengths` itself: one mask).
            let sharedMask =
                own.sharedCount == 0 ? 0 : own.shared == network.lengths ? topMask : LengthSet(own.shared).mask
            for (number, pattern) in network.patterns.enumerated() {
                let at = next[pattern.length]
                next[pattern.length] = at + 1
                let mask: UInt32
                if number < own.sharedCount {
                    mask = sharedMask
                } else {
                    let lengths = own.rest[number - own.sharedCount]
                    mask = lengths == network.lengths ? topMask : LengthSet(lengths).mask
                }
                gathered[at] = PatternList.Item(
                    low: pattern.lowValue, high: pattern.highValue, owner: Int32(truncatingIfNeeded: owner),
                    pattern: Int32(truncatingIfNeeded: number), mask: mask)
            }
        }
        var runs = [SortedRun?](repeating: nil, count: 20)
        for length in 1...CardPolicy.longestNumber where counts[length] > 0 {
            let first = firsts[length]
            let count = counts[length]
            // The length's patterns by low end, equal ones in load order: each as one word, its
            // low end less the lowest above its place, sorted.
            let indexBits = Int.bitWidth - max(count - 1, 1).leadingZeroBitCount
            let keyBits = UInt64.bitWidth - (highest[length] - lowest[length]).leadingZeroBitCount
            if !anyRetired && keyBits + indexBits <= UInt64.bitWidth {
                let base = lowest[length]
                var words = (0..<count).map { (gathered[first + $0].low - base) << UInt64(indexBits) | UInt64($0) }
                sortWords(&words, bits: indexBits..<indexBits + keyBits)
                runs[length] = SortedRun(
                    items: gathered, first: first, order: words, indexMask: UInt64(1) << UInt64(indexBits) - 1)
            } else {
                // Retired networks to yield to, or patterns too far apart to share a word with
                // their place: a list of them, and the stable order of their low ends.
                var list = PatternList(items: Array(gathered[first..<(first + count)]))
                if anyRetired { list = RuleSet.yieldingToRetired(list, networks) }
                let order = stableOrder(ofKeys: list.items.map(\.low)).map { UInt64(truncatingIfNeeded: $0) }
                runs[length] = SortedRun(items: list.items, first: 0, order: order, indexMask: UInt64(UInt32.max))
            }
        }
        return runs
    }

    /// With retired networks matched (`--retired`), a retired network's pattern wins over an
    /// active one of the same length that covers the same numbers (Laser's `6304` is also a
    /// Maestro prefix today): the active intervals lose the parts retired ones cover, so only
    /// two retired networks can tie.
    fileprivate static func yieldingToRetired(_ list: PatternList, _ networks: [CardNetwork]) -> PatternList {
        let isRetired = list.items.map { networks[Int($0.owner)].status == .retired }
        var result = PatternList()
        for i in 0..<list.count where isRetired[i] { result.append(list, i) }
        let retired = result
        guard retired.count > 0 else { return list }
        for i in 0..<list.count where !isRetired[i] {
            let item = list.items[i]
            var pieces = [(low: item.low, high: item.high)]
            for cut in retired.items where cut.low <= item.high && item.low <= cut.high {
                pieces = pieces.flatMap { piece -> [(low: UInt64, high: UInt64)] in
                    guard cut.low <= piece.high && piece.low <= cut.high else { return [piece] }
                    var kept: [(low: UInt64, high: UInt64)] = []
                    if piece.low < cut.low { kept.append((piece.low, cut.low - 1)) }
                    if piece.high > cut.high { kept.append((cut.high + 1, piece.high)) }
                    return kept
                }
            }
            for piece in pieces {
                result.items.append(
                    PatternList.Item(
                        low: piece.low, high: piece.high, owner: item.owner, pattern: item.pattern, mask: item.mask))
            }
        }
        return result
    }
}

extension RuleSet {
    /// Networks every one of whose patterns lies under more specific patterns of others.
    static func hiddenNetworks(_ networks: [CardNetwork], _ levels: [IntervalLevel]) -> [RuleError] {
        guard let deepest = levels.last?.length else { return [] }
        var warnings: [RuleError] = []
        for index in networks.indices where !networks[index].patterns.isEmpty {
            let network = networks[index]
            let hidden = network.patterns.allSatisfy { pattern in
                // The pattern's numbers at the deepest length, and what longer levels of
                // other networks cover of them, all at that length.
                let scale = pow10[deepest - pattern.length]
                var next = pattern.lowValue * scale
                let end = (pattern.highValue + 1) * scale
                // Its first and last numbers first, with no list made: most patterns have one
                // that no longer pattern of another network takes, and are not hidden.
                func takenByOthers(_ number: UInt64) -> Bool {
                    for level in levels where level.length > pattern.length {
                        if let i = level.index(containing: number / pow10[deepest - level.length]),
                            level.owners[i] != Int32(index)
                        {
                            return true
                        }
                    }
                    return false
                }
                guard takenByOthers(next), takenByOthers(end - 1) else { return false }
                let spans = levels.compactMap { level -> (IntervalLevel, Range<Int>)? in
                    guard level.length > pattern.length else { return nil }
                    let factor = pow10[level.length - pattern.length]
                    return level.span(low: pattern.lowValue * factor, high: (pattern.highValue + 1) * factor - 1).map {
                        (level, $0)
                    }
                }
                if spans.count == 1, let (level, span) = spans.first {
                    // One level's intervals, already in order: the first gap answers.
                    let fill = pow10[deepest - level.length]
                    for i in span where level.owners[i] != Int32(index) {
                        guard level.lows[i] * fill <= next else { return false }
                        next = max(next, (level.highs[i] + 1) * fill)
                    }
                    return next >= end
                }
                var pieces: [(UInt64, UInt64)] = []
                for (level, span) in spans {
                    let fill = pow10[deepest - level.length]
                    for i in span where level.owners[i] != Int32(index) {
                        pieces.append((level.lows[i] * fill, (level.highs[i] + 1) * fill))
                    }
                }
                pieces.sort { $0.0 < $1.0 }
                for piece in pieces where piece.0 <= next { next = max(next, piece.1) }
                return next >= end
            }
            if hidden {
                warnings.append(
                    RuleError(
                        file: network.file, location: network.idLocation, severity: .warning,
                        message:
                            "network `\(network.id)` can never be detected: more specific patterns of other networks cover all of its own"
                    ))
            }
        }
        return warnings
    }
}

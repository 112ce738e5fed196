/// The card networks in force: a value the engine is given, never a global registry.
///
/// Matching uses an index built once: for each pattern length, the patterns as sorted,
/// disjoint intervals (a network's own overlapping patterns merged; two networks overlapping
/// at one length is a tie, refused), with range-min/max tables over them (made when first
/// asked for: `IntervalLevel.summary(of:)`). Detecting what a
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
    /// For each network (by index in `networks`), for each of its `coBadges` entries, the
    /// networks loaded here that the entry names, in `with` order: what a co-badged number's
    /// detection lists (`Detection.coBadged`). Empty for a network without entries.
    private var coBadgePartners: [[[CardNetwork]]] = []
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
        try load(decoded: folders.map { $0.map(decode) }, includeRetired: includeRetired)
    }

    /// One rule file read and checked on its own, as `load(folders:)` reads each: what
    /// `load(decoded:)` puts together. Files do not depend on each other until then, so a
    /// caller with many may decode them on several threads.
    public static func decode(_ file: FileText) -> DecodedFile {
        var decoder = RuleFile(file: file.path)
        let content = decoder.decode(file.bytes)
        return DecodedFile(path: file.path, content: content, problems: decoder.problems, warnings: decoder.warnings)
    }

    /// A rule file as `decode(_:)` read it: its network (or the network it disables), or its
    /// problems.
    public struct DecodedFile: Sendable {
        let path: String
        let content: RuleFile.Content?
        let problems: [RuleError]
        let warnings: [RuleError]
    }

    /// `load(folders:)` of files already decoded (`decode(_:)`), in the same order: the same
    /// rule set, problems and warnings.
    public static func load(decoded folders: [[DecodedFile]], includeRetired: Bool = false) throws(RuleErrors)
        -> RuleSet
    {
        var problems: [RuleError] = []
        var warnings: [RuleError] = []
        var networks: [CardNetwork] = []
        // One table for every id read: its place in `named`, found with one hash a file.
        var places: [String: Int] = [:]
        places.reserveCapacity(folders.reduce(0) { $0 + $1.count })  // (a thousand files: no growing)
        var named: [NamedID] = []
        named.reserveCapacity(places.capacity)
        for (folderIndex, folder) in folders.enumerated() {
            for file in folder {
                let content = file.content
                // (Appending an empty list to an empty one still made a new buffer each time.)
                if !file.problems.isEmpty { problems += file.problems }
                if !file.warnings.isEmpty { warnings += file.warnings }
                let (id, location): (String, SourceLocation)
                switch content {
                case .network(let network): (id, location) = (network.id, network.idLocation)
                case .disable(let disabled, let at): (id, location) = (disabled, at)
                case nil: continue
                }
                let (place, fresh) = Self.place(&places[id, default: -1], next: named.count)
                if fresh {
                    named.append(NamedID(network: nil, folder: folderIndex, file: file.path))
                } else if named[place].folder == folderIndex {
                    problems.append(
                        RuleError(
                            file: file.path, location: location,
                            message:
                                "network id `\(id.escapingControlCharacters)` is also defined in \(named[place].file.escapingControlCharacters)"
                        ))
                    continue
                } else {
                    (named[place].folder, named[place].file) = (folderIndex, file.path)
                }
                let existing = named[place].network
                switch content {
                case .network(let network):
                    if let existing {
                        networks[existing] = network
                    } else {
                        named[place].network = networks.count
                        networks.append(network)
                    }
                case .disable:
                    if let existing {
                        networks.remove(at: existing)
                        named[place].network = nil
                        for later in existing..<networks.count { named[places[networks[later].id]!].network = later }
                    } else {
                        warnings.append(
                            RuleError(
                                file: file.path, location: location, severity: .warning,
                                message:
                                    "disables `\(id.escapingControlCharacters)`, which no earlier rule folder defines"))
                    }
                case nil:
                    break
                }
            }
        }
        warnings += Self.familyWarnings(networks)
        warnings += Self.coBadgeWarnings(networks)
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

    /// An id read by `load(decoded:)`: where its network stands in the networks (nil when none
    /// does: disabled), and the last folder and file that named it.
    private struct NamedID {
        var network: Int?
        var folder: Int
        var file: String
    }

    /// `slot`'s place, or `next` put there when it has none (-1): with whether it is new.
    private static func place(_ slot: inout Int, next: Int) -> (place: Int, fresh: Bool) {
        if slot >= 0 { return (slot, false) }
        slot = next
        return (next, true)
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
                warnings.append(
                    RuleError(
                        file: network.file, location: network.familyLocation, severity: .warning,
                        message: message + " (`--networks \(family)` still takes `\(network.id)`)"))
                continue
            }
            if head.hasFamily {
                warnings.append(
                    RuleError(
                        file: network.file, location: network.familyLocation, severity: .warning,
                        message:
                            "family `\(family)` is itself in family `\(head.family)`; families do not nest, so `--networks \(head.family)` does not take `\(network.id)`"
                    ))
            }
        }
        return warnings
    }

    /// A `coBadged.with` id that names no network read (a typo, or a network another folder
    /// disabled): a warning, like a `family` that names none; the cards are then of the
    /// networks that are there.
    private static func coBadgeWarnings(_ networks: [CardNetwork]) -> [RuleError] {
        var warnings: [RuleError] = []
        for network in networks {
            for entry in network.coBadges {
                for (id, location) in zip(entry.with, entry.locations) where !networks.contains(where: { $0.id == id })
                {
                    var message = "`coBadged.with` names `\(id)`, which no network loaded has"
                    if let guess = closest(to: id, in: networks.map(\.id)) { message += "; did you mean `\(guess)`?" }
                    warnings.append(
                        RuleError(
                            file: network.file, location: location, severity: .warning,
                            message: message + " (these cards are then of `\(network.id)` alone)"))
                }
            }
        }
        return warnings
    }

    /// `coBadgePartners` for these networks.
    private static func coBadgePartners(_ networks: [CardNetwork]) -> [[[CardNetwork]]] {
        guard networks.contains(where: \.hasCoBadges) else { return [] }
        return networks.map { network in
            network.coBadges.map { entry in entry.with.compactMap { id in networks.first { $0.id == id } } }
        }
    }

    private init(networks: [CardNetwork], retired: [CardNetwork], warnings: [RuleError], levels: [IntervalLevel]) {
        self.networks = networks
        self.retired = retired
        self.warnings = warnings
        self.levels = levels
        coBadgePartners = Self.coBadgePartners(networks)
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
        let runs = Self.patternRuns(networks, anyRetired: networks.contains { $0.status == .retired })
        var problems: [RuleError] = []
        var levels: [IntervalLevel] = []
        for length in 1...CardPolicy.longestNumber {
            guard let run = runs[length] else { continue }
            levels.append(Self.level(length, run, networks, &problems))
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems) }
        self.networks = networks
        self.levels = levels
        warnings = Self.hiddenNetworks(networks, levels)
        coBadgePartners = Self.coBadgePartners(networks)
        emptyDetection = detect([])
    }

    /// The networks' patterns gathered by length, each length's in order of low end (equal
    /// ones in load order): what `init(networks:)` makes levels of. With `anyRetired`, an
    /// active pattern yields the numbers a retired one of its length covers
    /// (`yieldingToRetired`).
    fileprivate static func patternRuns(_ networks: [CardNetwork], anyRetired: Bool) -> [SortedRun?] {
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

    /// The network whose id is exactly `id`, or nil.
    public func network(id: String) -> CardNetwork? { networks.first { $0.id == id } }

    /// Every level's intervals in words (length, then each interval's low, high, owner and
    /// lengths mask): for the tests that two ways of making the index make the same one.
    var levelsDescription: String {
        levels.map { level in
            "\(level.length): "
                + level.lows.indices.map {
                    "\(level.lows[$0])-\(level.highs[$0]) \(level.owners[$0]) \(level.lengthMasks[$0])"
                }.joined(separator: ", ")
        }.joined(separator: "\n")
    }

    /// The most digits any pattern looks at. Digits past it cannot change a detection.
    public var longestPattern: Int { levels.last?.length ?? 0 }

    /// What the digits typed so far say about the network.
    public func detect(_ digits: [UInt8]) -> Detection {
        if digits.isEmpty, let emptyDetection { return emptyDetection }
        let found = match(digits.span)
        let decided = found.owner >= 0 ? networks[Int(found.owner)] : nil
        var detection = Detection(
            network: decided, hasCandidates: found.hasCandidates, maxLength: found.maxLength,
            decidingLength: found.decidingLength, lengths: found.lengths)
        if let decided, decided.hasCoBadges {
            detection.coBadged = coBadged(digits, owner: Int(found.owner), decidingLength: found.decidingLength)
        }
        return detection
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
    /// length, and the lengths the patterns still possible allow (once no longer pattern can
    /// match, the deciding pattern's own). Digits past the 19th are not looked at.
    public func match(_ typed: UnsafeBufferPointer<UInt8>) -> (
        owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet
    ) {  // unsafe: `check` reads records into a raw buffer
        match(typed.span)  // unsafe: a view of that buffer, no copy per record
    }

    /// `match(_:)` over digits in any contiguous memory.
    func match(_ typed: Span<UInt8>) -> (
        owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet
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
                    return (level.owners[found], true, set.max, level.length, set)
                }
            }
            return (-1, false, 0, 0, LengthSet(mask: 0))
        }
        var bestOwner: Int32 = -1
        var bestLength = 0
        var bestLengths: UInt32 = 0
        var minOwner = Int32.max
        var maxOwner = Int32.min
        var lengths: UInt32 = 0
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
        return (decided ? bestOwner : -1, maxOwner >= 0, set.max, decided ? bestLength : 0, set)
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

    /// Networks every one of whose patterns lies under more specific patterns of others.
    private static func hiddenNetworks(_ networks: [CardNetwork], _ levels: [IntervalLevel]) -> [RuleError] {
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

extension CardNetwork {
    func location(ofPattern index: Int) -> SourceLocation {
        patternLocations.indices.contains(index) ? patternLocations[index] : idLocation
    }
}

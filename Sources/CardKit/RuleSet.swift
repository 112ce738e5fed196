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
    public static func load(decoded folders: [[DecodedFile]], includeRetired: Bool = false) throws(RuleErrors) -> RuleSet {
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
                    problems.append(RuleError(file: file.path, location: location, message: "network id `\(id.escapingControlCharacters)` is also defined in \(named[place].file.escapingControlCharacters)"))
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
                        warnings.append(RuleError(file: file.path, location: location, severity: .warning,
                                                  message: "disables `\(id.escapingControlCharacters)`, which no earlier rule folder defines"))
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

    /// A `coBadged.with` id that names no network read (a typo, or a network another folder
    /// disabled): a warning, like a `family` that names none; the cards are then of the
    /// networks that are there.
    private static func coBadgeWarnings(_ networks: [CardNetwork]) -> [RuleError] {
        var warnings: [RuleError] = []
        for network in networks {
            for entry in network.coBadges {
                for (id, location) in zip(entry.with, entry.locations) where !networks.contains(where: { $0.id == id }) {
                    var message = "`coBadged.with` names `\(id)`, which no network loaded has"
                    if let guess = closest(to: id, in: networks.map(\.id)) { message += "; did you mean `\(guess)`?" }
                    warnings.append(RuleError(file: network.file, location: location, severity: .warning,
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
        var lowest = InlineArray<20, UInt64>(repeating: .max), highest = InlineArray<20, UInt64>(repeating: 0)
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
        var gathered = [PatternList.Item](repeating: PatternList.Item(low: 0, high: 0, owner: 0, pattern: 0, mask: 0), count: total)
        var next = firsts
        for (owner, network) in networks.enumerated() {
            let own = network.patternLengths, topMask = topMasks[owner]
            // The leading patterns share one array (usually `lengths` itself: one mask).
            let sharedMask = own.sharedCount == 0 ? 0 : own.shared == network.lengths ? topMask : LengthSet(own.shared).mask
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
                gathered[at] = PatternList.Item(low: pattern.lowValue, high: pattern.highValue, owner: Int32(truncatingIfNeeded: owner),
                                                pattern: Int32(truncatingIfNeeded: number), mask: mask)
            }
        }
        var runs = [SortedRun?](repeating: nil, count: 20)
        for length in 1...CardPolicy.longestNumber where counts[length] > 0 {
            let first = firsts[length], count = counts[length]
            // The length's patterns by low end, equal ones in load order: each as one word, its
            // low end less the lowest above its place, sorted.
            let indexBits = Int.bitWidth - max(count - 1, 1).leadingZeroBitCount
            let keyBits = UInt64.bitWidth - (highest[length] - lowest[length]).leadingZeroBitCount
            if !anyRetired && keyBits + indexBits <= UInt64.bitWidth {
                let base = lowest[length]
                var words = (0..<count).map { (gathered[first + $0].low - base) << UInt64(indexBits) | UInt64($0) }
                sortWords(&words, bits: indexBits..<indexBits + keyBits)
                runs[length] = SortedRun(items: gathered, first: first, order: words, indexMask: UInt64(1) << UInt64(indexBits) - 1)
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
                result.items.append(PatternList.Item(low: piece.low, high: piece.high, owner: item.owner, pattern: item.pattern, mask: item.mask))
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
            "\(level.length): " + level.lows.indices.map { "\(level.lows[$0])-\(level.highs[$0]) \(level.owners[$0]) \(level.lengthMasks[$0])" }.joined(separator: ", ")
        }.joined(separator: "\n")
    }

    /// The most digits any pattern looks at. Digits past it cannot change a detection.
    public var longestPattern: Int { levels.last?.length ?? 0 }

    /// What the digits typed so far say about the network.
    public func detect(_ digits: [UInt8]) -> Detection {
        if digits.isEmpty, let emptyDetection { return emptyDetection }
        let found = match(digits.span)
        let decided = found.owner >= 0 ? networks[Int(found.owner)] : nil
        var detection = Detection(network: decided, hasCandidates: found.hasCandidates, maxLength: found.maxLength,
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
              let entry = networks[owner].terms(of: digits, decidingLength: decidingLength)?.coBadge else { return [] }
        return coBadgePartners[owner][entry]
    }

    /// The allocation-free core of detection: the decided network's index (or -1), whether
    /// any network can still match, the longest length they allow, the deciding pattern's
    /// length, and the lengths the patterns still possible allow (once no longer pattern can
    /// match, the deciding pattern's own). Digits past the 19th are not looked at.
    public func match(_ typed: UnsafeBufferPointer<UInt8>) -> (owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet) {  // unsafe: `check` reads records into a raw buffer
        match(typed.span)  // unsafe: a view of that buffer, no copy per record
    }

    /// `match(_:)` over digits in any contiguous memory.
    func match(_ typed: Span<UInt8>) -> (owner: Int32, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet) {
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
        var bestOwner: Int32 = -1, bestLength = 0, bestLengths: UInt32 = 0
        var minOwner = Int32.max, maxOwner = Int32.min, lengths: UInt32 = 0
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
                        if let i = level.index(containing: number / pow10[deepest - level.length]), level.owners[i] != Int32(index) { return true }
                    }
                    return false
                }
                guard takenByOthers(next), takenByOthers(end - 1) else { return false }
                let spans = levels.compactMap { level -> (IntervalLevel, Range<Int>)? in
                    guard level.length > pattern.length else { return nil }
                    let factor = pow10[level.length - pattern.length]
                    return level.span(low: pattern.lowValue * factor, high: (pattern.highValue + 1) * factor - 1).map { (level, $0) }
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
    /// When the deciding pattern is one of `network`'s `coBadged` entries: the other networks
    /// on the card that are loaded, in the entry's `with` order (Visa for a Dankort `4571…`);
    /// empty otherwise. The number's lengths, groups and code are still `network`'s.
    public var coBadged: [CardNetwork] {
        get { coBadgedNetworks ?? [] }
        set { coBadgedNetworks = newValue.isEmpty ? nil : newValue }
    }
    /// `coBadged`, nil when empty: a detection is copied on every key, and a nil costs no
    /// reference count.
    private var coBadgedNetworks: [CardNetwork]?
    /// Whether the number is a co-badged card's (`coBadged` is not empty).
    public var isCoBadged: Bool { coBadgedNetworks != nil }

    /// A detection from its parts.
    public init(network: CardNetwork?, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet,
                coBadged: [CardNetwork] = []) {
        self.network = network
        self.hasCandidates = hasCandidates
        self.maxLength = maxLength
        self.decidingLength = decidingLength
        self.lengths = lengths
        self.coBadgedNetworks = coBadged.isEmpty ? nil : coBadged
    }

    /// The networks of the number, the one home of that list: the co-badged ones first (the
    /// international schemes a `coBadged` entry names, which a card is reported as by
    /// default), then the deciding network; just the deciding network for most numbers; empty
    /// while none is decided.
    public var networks: [CardNetwork] {
        guard let network else { return [] }
        guard let coBadgedNetworks else { return [network] }
        return coBadgedNetworks + [network]
    }

    /// The networks a card with this number can be delivered as, the one rule of that choice
    /// (the prompt's badge and Ctrl-N, `check`'s `network`): `networks` less those `accepts`
    /// refuses, when it takes some (all of them when it takes none: they name the refusal).
    /// The first is the default, a co-badged card's first `with` network that is taken.
    public func networks(takenBy accepts: (CardNetwork) -> Bool) -> [CardNetwork] {
        let all = networks
        guard all.count > 1 else { return all }
        let taken = all.filter(accepts)
        return taken.isEmpty ? all : taken
    }
}

extension CardNetwork {
    func location(ofPattern index: Int) -> SourceLocation {
        patternLocations.indices.contains(index) ? patternLocations[index] : idLocation
    }
}

// MARK: - The index

extension RuleSet {
    /// A level's intervals, made from its patterns in order of low end: each checked against
    /// the one reaching highest so far (a tie between networks, or one network's patterns
    /// overlapping with other lengths, is a problem), and merged into the last one when both
    /// are the same network's with the same lengths (overlapping or adjacent).
    fileprivate static func level(_ length: Int, _ run: SortedRun, _ networks: [CardNetwork],
                                  _ problems: inout [RuleError]) -> IntervalLevel {
        var lows: [UInt64] = [], highs: [UInt64] = []
        var owners: [Int32] = [], masks: [UInt32] = []
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
            if let last = lows.indices.last, owners[last] == item.owner, masks[last] == item.mask, item.low <= highs[last] &+ 1 {
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
    private static func conflict(_ current: PatternList.Item, _ later: PatternList.Item, _ networks: [CardNetwork]) -> RuleError {
        let (currentOwner, owner) = (Int(current.owner), Int(later.owner))
        let (currentPattern, pattern) = (Int(current.pattern), Int(later.pattern))
        if currentOwner == owner {
            // One network's patterns overlapping with different lengths: which apply?
            let network = networks[owner]
            let (earlier, later) = (min(currentPattern, pattern), max(currentPattern, pattern))
            return RuleError(
                file: network.file, location: network.location(ofPattern: later),
                message: "pattern \(network.patterns[later]) of `\(network.id)` overlaps its pattern \(network.patterns[earlier]) (\(network.location(ofPattern: earlier))) with other lengths; make one of them more specific")
        }
        // Reported at the network loaded later (usually the file just added).
        let (earlier, later) = currentOwner < owner ? ((currentOwner, currentPattern), (owner, pattern)) : ((owner, pattern), (currentOwner, currentPattern))
        let a = networks[earlier.0], b = networks[later.0]
        return RuleError(
            file: b.file, location: b.location(ofPattern: later.1),
            message: "pattern \(b.patterns[later.1]) of `\(b.id)` ties with pattern \(a.patterns[earlier.1]) of `\(a.id)` (\(a.file.escapingControlCharacters):\(a.location(ofPattern: earlier.1))); make one of them more specific")
    }
}

/// The patterns of one length in order of low end, equal ones in load order
/// (`RuleSet.patternRuns`): the places in `items` after `first` of `order`'s words, in the bits
/// under `indexMask`.
fileprivate struct SortedRun: Sendable {
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
private struct PatternList {
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
    let passes = (bits.count + 15) / 16, width = (bits.count + passes - 1) / passes
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
                let word = from[i], digit = Int(truncatingIfNeeded: word &>> shift & digitMask)
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
    var smallest = keys[0], largest = keys[0]
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
private final class IntervalLevel: Sendable {
    let length: Int
    let lows: [UInt64]
    let highs: [UInt64]
    let owners: [Int32]
    /// Each interval's valid lengths, as `LengthSet` masks.
    let lengthMasks: [UInt32]
    /// The smallest and largest owner and the union of the lengths over all the intervals:
    /// what an empty number asks (`RuleSet.emptyDetection`, made at load).
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
            let owners = owners.span, masks = masks.span
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
        var low = 0, high = array.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(array[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// The levels painted onto one list, for numbers at least as long as the longest pattern
/// (every record `check` reads): the numbers' first `length` digits in sorted, disjoint
/// segments, each with what the longest full match there says (a longer level painted over a
/// shorter one). One binary search a number, instead of one per level: what `match` answers
/// for such numbers, in a sixth of the instructions.
struct WholeNumberIndex: Sendable {
    /// How many leading digits are looked up: the longest pattern's (0: no patterns).
    let length: Int
    private let starts: [UInt64]
    private let ends: [UInt64]
    private let owners: [Int32]
    private let masks: [UInt32]
    /// The deciding pattern's length in each segment.
    private let patternLengths: [UInt8]
    /// A first level in front of the binary search: the prefixes cut into buckets of
    /// `1 << bucketShift` values, `buckets[b]` the first segment starting in bucket `b` or
    /// later (one more entry at the end). A prefix's segment is the last starting at or below
    /// it: among those that start in its bucket, or the one before them. About two buckets a
    /// segment, so that the search has a segment or two to halve instead of all of them
    /// (eleven halvings with the bundled rules).
    private let buckets: [Int32]
    private let bucketShift: UInt64

    fileprivate init(_ levels: [IntervalLevel]) {
        let length = levels.last?.length ?? 0
        var painted = Segments()
        for level in levels {
            let scale = pow10[length - level.length]
            var next = Segments()
            next.reserve(painted.count + 2 * level.lows.count)
            // The old segment being laid down, perhaps with its start cut off.
            var current: (start: UInt64, end: UInt64, index: Int)? = painted.count > 0 ? (painted.starts[0], painted.ends[0], 0) : nil
            func advance(_ index: Int) -> (start: UInt64, end: UInt64, index: Int)? {
                index + 1 < painted.count ? (painted.starts[index + 1], painted.ends[index + 1], index + 1) : nil
            }
            for i in level.lows.indices {
                let start = level.lows[i] * scale, end = (level.highs[i] + 1) * scale - 1
                // The old segments before this interval, the last perhaps cut short.
                while let c = current, c.start < start {
                    next.append(painted, c.index, start: c.start, end: min(c.end, start - 1))
                    if c.end < start { current = advance(c.index) } else { current = (start, c.end, c.index); break }
                }
                next.append(start: start, end: end, owner: level.owners[i], mask: level.lengthMasks[i], length: UInt8(level.length))
                // Those it covers dropped, the last perhaps cut.
                while let c = current, c.start <= end {
                    if c.end <= end { current = advance(c.index) } else { current = (end + 1, c.end, c.index); break }
                }
            }
            while let c = current {
                next.append(painted, c.index, start: c.start, end: c.end)
                current = advance(c.index)
            }
            painted = next
        }
        self.length = length
        (starts, ends, owners, masks, patternLengths) = (painted.starts, painted.ends, painted.owners, painted.masks, painted.lengths)
        // The largest prefix's bits, less those that make about two buckets a segment (at
        // most 2^16 buckets).
        let largest = length > 0 ? pow10[length] - 1 : 0
        let bucketBits = min(16, UInt64.bitWidth - max(painted.count, 1).leadingZeroBitCount + 1)
        let shift = UInt64(max(0, (UInt64.bitWidth - largest.leadingZeroBitCount) - bucketBits))
        var buckets = [Int32](repeating: Int32(starts.count), count: Int(largest >> shift) + 2)
        var bucket = 0
        for (segment, start) in starts.enumerated() {
            let first = Int(start >> shift)
            while bucket <= first {
                buckets[bucket] = Int32(segment)
                bucket += 1
            }
        }
        self.buckets = buckets
        bucketShift = shift
    }

    /// What the longest full match says of a number whose first `length` digits are `prefix`:
    /// the owner (or -1), the valid lengths, and the deciding pattern's length.
    @inline(__always)
    func match(prefix: UInt64) -> (owner: Int32, lengths: LengthSet, decidingLength: Int) {
        let starts = self.starts.span
        // The first segment past the prefix is among its bucket's, or the next bucket's first.
        let bucket = Int(truncatingIfNeeded: prefix &>> bucketShift)
        guard bucket &+ 1 < buckets.count else { return (-1, LengthSet(mask: 0), 0) }
        var low = Int(buckets[bucket]), high = Int(buckets[bucket &+ 1])
        while low < high {
            let middle = (low &+ high) &>> 1
            if starts[middle] > prefix { high = middle } else { low = middle &+ 1 }
        }
        let index = low &- 1
        guard index >= 0, ends[index] >= prefix else { return (-1, LengthSet(mask: 0), 0) }
        return (owners[index], LengthSet(mask: masks[index]), Int(patternLengths[index]))
    }

    /// Segments as parallel arrays, while painting.
    private struct Segments {
        var starts: [UInt64] = [], ends: [UInt64] = [], owners: [Int32] = [], masks: [UInt32] = [], lengths: [UInt8] = []
        var count: Int { starts.count }

        mutating func reserve(_ count: Int) {
            starts.reserveCapacity(count)
            ends.reserveCapacity(count)
            owners.reserveCapacity(count)
            masks.reserveCapacity(count)
            lengths.reserveCapacity(count)
        }

        mutating func append(start: UInt64, end: UInt64, owner: Int32, mask: UInt32, length: UInt8) {
            starts.append(start)
            ends.append(end)
            owners.append(owner)
            masks.append(mask)
            lengths.append(length)
        }

        /// `other`'s segment `index`, from `start` to `end`.
        mutating func append(_ other: Segments, _ index: Int, start: UInt64, end: UInt64) {
            append(start: start, end: end, owner: other.owners[index], mask: other.masks[index], length: other.lengths[index])
        }
    }
}

/// What a span of intervals holds: the smallest and largest owner and the union of the lengths.
private struct SpanSummary: Sendable {
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
private final class RangeTables: Sendable {
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
        let count = owners.count, size = Self.blockSize
        let blockCount = (count + size - 1) / size
        var rows = 1
        while 1 << rows <= blockCount { rows += 1 }
        let empty = SpanSummary(owner: 0, lengths: 0)
        var fromStart = [SpanSummary](repeating: empty, count: count), toEnd = fromStart
        var blocks = [SpanSummary](repeating: empty, count: rows * blockCount)
        do {
            let owners = owners.span, masks = masks.span
            var fromStart = fromStart.mutableSpan, toEnd = toEnd.mutableSpan, blocks = blocks.mutableSpan
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
                let width = 1 << (row - 1), previous = (row - 1) * blockCount, base = row * blockCount
                for i in 0..<blockCount {
                    blocks[base + i] = i + width < blockCount ? blocks[previous + i].combined(with: blocks[previous + i + width]) : blocks[previous + i]
                }
            }
        }
        (fromBlockStart, toBlockEnd, self.blocks, self.blockCount) = (fromStart, toEnd, blocks, blockCount)
    }

    func query(_ range: Range<Int>) -> SpanSummary {
        let first = range.lowerBound, last = range.upperBound - 1
        let firstBlock = first >> Self.blockShift, lastBlock = last >> Self.blockShift
        if firstBlock == lastBlock {
            var result = SpanSummary(owner: owners[first], lengths: masks[first])
            for i in first + 1..<range.upperBound { result = result.combined(with: SpanSummary(owner: owners[i], lengths: masks[i])) }
            return result
        }
        var result = toBlockEnd[first].combined(with: fromBlockStart[last])
        let between = lastBlock - firstBlock - 1
        if between > 0 {
            let row = Int.bitWidth - 1 - between.leadingZeroBitCount
            let base = row * blockCount
            result = result.combined(with: blocks[base + firstBlock + 1]).combined(with: blocks[base + lastBlock - (1 << row)])
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

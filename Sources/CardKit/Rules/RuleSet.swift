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
    let levels: [IntervalLevel]
    /// For each network (by index in `networks`), for each of its `coBadges` entries, the
    /// networks loaded here that the entry names, in `with` order: what a co-badged number's
    /// detection lists (`Detection.coBadged`). Empty for a network without entries.
    private(set) var coBadgePartners: [[[CardNetwork]]] = []
    /// What the numbers of up to two digits say (every card starts there and passes through
    /// them), by `shortIndex`: worked out once.
    private(set) var shortDetections: [Detection] = []

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
    static func coBadgePartners(_ networks: [CardNetwork]) -> [[[CardNetwork]]] {
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
        shortDetections = Self.shortNumbers.map { detect($0) }  // (each matched: the table is empty)
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
        shortDetections = Self.shortNumbers.map { detect($0) }  // (each matched: the table is empty)
    }
}

extension CardNetwork {
    func location(ofPattern index: Int) -> SourceLocation {
        patternLocations.indices.contains(index) ? patternLocations[index] : idLocation
    }
}

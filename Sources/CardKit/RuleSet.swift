/// The card networks in force: a value the engine is given, never a global registry.
public struct RuleSet: Sendable {
    /// Networks in load order (later sources override earlier ones by id).
    public let networks: [CardNetwork]

    /// One rule file's text and the path to name in messages.
    public struct FileText: Sendable {
        public var path: String
        public var bytes: [UInt8]
        public init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// Builds a rule set from folders of rule files, in priority order: a network in a later
    /// folder replaces one with the same id from an earlier folder; the same id twice within
    /// one folder is an error, as are two networks whose patterns tie for the same numbers.
    public static func load(folders: [[FileText]]) throws(RuleErrors) -> RuleSet {
        var problems: [RuleError] = []
        var byID: [String: Int] = [:]
        var networks: [CardNetwork] = []
        for folder in folders {
            var seenHere: [String: String] = [:]
            for file in folder {
                var decoder = RuleFile(file: file.path)
                let network = decoder.decode(file.bytes)
                problems += decoder.problems
                guard let network else { continue }
                if let other = seenHere[network.id] {
                    problems.append(RuleError(file: file.path, location: SourceLocation(line: 1, column: 1),
                                              message: "network id `\(network.id)` is also defined in \(other)"))
                    continue
                }
                seenHere[network.id] = file.path
                if let index = byID[network.id] {
                    networks[index] = network
                } else {
                    byID[network.id] = networks.count
                    networks.append(network)
                }
            }
        }
        let set: RuleSet
        do throws(RuleErrors) {
            set = try RuleSet(networks: networks)
        } catch {
            throw RuleErrors(errors: problems + error.errors)
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems) }
        return set
    }

    /// A rule set from networks already built; refuses two networks whose patterns of the
    /// same length overlap, because neither would be more specific.
    public init(networks: [CardNetwork]) throws(RuleErrors) {
        var problems: [RuleError] = []
        var byLength: [Int: [(pattern: IINPattern, network: Int)]] = [:]
        for (index, network) in networks.enumerated() {
            for pattern in network.patterns { byLength[pattern.length, default: []].append((pattern, index)) }
        }
        for length in byLength.keys.sorted() {
            let sorted = byLength[length]!.sorted { $0.pattern.low.lexicographicallyPrecedes($1.pattern.low) }
            // Sweep in order of low end, keeping the entry that reaches highest so far.
            var reach: (pattern: IINPattern, network: Int)?
            for entry in sorted {
                if let current = reach, current.pattern.overlaps(entry.pattern), current.network != entry.network {
                    let a = networks[current.network], b = networks[entry.network]
                    problems.append(RuleError(
                        file: b.file, location: SourceLocation(line: 1, column: 1),
                        message: "pattern \(entry.pattern) of `\(b.id)` ties with pattern \(current.pattern) of `\(a.id)` (\(a.file)); make one of them more specific"))
                }
                if reach == nil || reach!.pattern.high.lexicographicallyPrecedes(entry.pattern.high) { reach = entry }
            }
        }
        guard problems.isEmpty else { throw RuleErrors(errors: problems) }
        self.networks = networks
    }

    public func network(id: String) -> CardNetwork? { networks.first { $0.id == id } }

    /// What the digits typed so far say about the network.
    public func detect(_ digits: some Collection<UInt8>) -> Detection {
        var bestLength = 0
        var bestOwners: [Int] = []
        var bestPattern: IINPattern?
        var partial = Set<Int>()
        for (index, network) in networks.enumerated() {
            for pattern in network.patterns {
                switch pattern.match(digits) {
                case .none:
                    continue
                case .partial:
                    partial.insert(index)
                case .full:
                    if pattern.length > bestLength {
                        bestLength = pattern.length
                        bestOwners = [index]
                        bestPattern = pattern
                    } else if pattern.length == bestLength, !bestOwners.contains(index) {
                        bestOwners.append(index)
                    }
                }
            }
        }
        let candidateIndexes = partial.union(bestOwners).sorted()
        let candidates = candidateIndexes.map { networks[$0] }
        let decided = candidateIndexes.count == 1 && bestOwners == candidateIndexes ? networks[bestOwners[0]] : nil
        return Detection(candidates: candidates, network: decided, decidingPattern: decided == nil ? nil : bestPattern)
    }
}

/// The networks a number could belong to, and the one it does belong to once that is settled.
public struct Detection: Equatable, Sendable {
    /// Networks the digits could still grow into, in load order. Empty: no network starts so.
    public var candidates: [CardNetwork]
    /// Set once exactly one network remains and one of its patterns matches in full.
    public var network: CardNetwork?
    /// The pattern that decided `network`.
    public var decidingPattern: IINPattern?

    /// The longest length any candidate allows; digits beyond it are refused.
    public var maxLength: Int { candidates.map(\.maxLength).max() ?? 0 }
}

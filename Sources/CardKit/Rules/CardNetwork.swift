/// One card network, as its rule file describes it. Immutable once loaded; a class, so that
/// passing it around (every detection on every keystroke or record holds one) costs one
/// reference count rather than one per field.
public final class CardNetwork: Equatable, Sendable, Identifiable {
    /// Stable lower-case identifier (`visa`, `american-express`).
    public let id: String
    /// Name for people (`American Express`).
    public let name: String
    /// Name of the logo badge the front end shows (`AMEX`).
    public let logo: String
    /// IIN patterns; a number belongs to the network whose most specific pattern matches it.
    /// The top-level `prefixes` and `ranges` first, then those of each `lengthsFor` entry.
    public let patterns: [IINPattern]
    /// The valid number lengths of the top-level patterns (`lengths` in the file), ascending.
    public let lengths: [Int]
    /// The valid lengths of each pattern, in `patterns` order: `lengths` for a top-level
    /// pattern, its entry's lengths for a `lengthsFor` pattern. A number has the lengths of the
    /// pattern that decides it (the longest that matches).
    public let patternLengths: PatternLengths
    /// Every length any of the network's patterns allows, ascending.
    public let allLengths: [Int]
    /// Whether the network still issues cards; a retired one is not matched unless asked for.
    public let status: Status
    /// The network this one is a product line of (`visa` for Visa Electron), whose name in
    /// `--networks` takes it too; its own id when the rule file names none.
    public let family: String
    /// Where `family` stands in the rule file (the id's location when it names none).
    public let familyLocation: SourceLocation
    /// Every way the file groups the digits for display, one a length (Diners Club: `[4, 6, 4]`
    /// for 14 digits, `[4, 4, 4, 4]` for 16), by the length each adds up to, ascending; a
    /// number is grouped as the shortest length it has not passed (`groups(forCount:)`).
    public let groupings: [[Int]]
    /// Their format hints, `#### ###### #####` (made once: views show one on every key).
    public let formatHints: [String]
    /// The first grouping (`[4, 6, 5]`) and its hint; digits past a grouping form one last group.
    public var groups: [Int] { groupings[0] }
    public var formatHint: String { formatHints[0] }

    /// The grouping a number of `count` digits is shown in: the first that holds that many
    /// digits, else the longest.
    public func groups(forCount count: Int) -> [Int] { groupings[grouping(forCount: count)] }
    /// The format hint of `groups(forCount:)`.
    public func formatHint(forCount count: Int) -> String { formatHints[grouping(forCount: count)] }

    private func grouping(forCount count: Int) -> Int {
        guard groupings.count > 1 else { return 0 }
        return groupings.firstIndex { $0.reduce(0, +) >= count } ?? groupings.count - 1
    }
    /// The security code's name on this network's cards and its length.
    public let cvv: SecurityCode
    /// Whether numbers must pass the Luhn check: the file's `luhn`, for every pattern whose
    /// terms (`patternTerms`) do not say otherwise.
    public let luhn: Bool
    /// The file's `coBadged` entries: the other networks on the cards of some patterns.
    public let coBadges: [CoBadge]
    /// The patterns whose terms are not the network's own (a `luhn` of their own, or
    /// co-badging), by index in `patterns`, ascending; empty for most networks. Which terms a
    /// number has is the deciding pattern's (`terms(of:decidingLength:)`).
    public let patternTerms: [PatternTerms]
    /// The termed patterns by length, then low end, for `findTerms`' binary search (a network
    /// such as eftpos has hundreds, looked up on every digit that decides it).
    private let termRanges: [TermRange]
    /// The chip applications of the network's cards (`aids`: AIDs such as `A0000000031010`),
    /// which a chip read tries when the card lists no directory and which name the network of
    /// each application it reads; empty for a network without chip cards.
    public let aids: [[UInt8]]
    /// The file this network was read from, for `rules` listings and messages.
    public let file: String
    /// Where the id and each pattern stand in the file, for messages about them.
    public let idLocation: SourceLocation
    /// Where each pattern stands in the file, in `patterns` order (may be empty).
    public let patternLocations: [SourceLocation]

    /// Whether a network still issues cards (`"status"` in its rule file).
    public enum Status: String, Equatable, Sendable {
        /// Issued today: matched by default.
        case active
        /// No longer issued (Laser, Solo, Switch); its BINs may belong to other networks now,
        /// so it is listed and can be sampled, but matched only when asked for.
        case retired
    }

    /// The security code printed on the network's cards.
    public struct SecurityCode: Equatable, Sendable {
        /// `CVV`, `CVC`, `CID`, …
        public var name: String
        /// How many digits it has.
        public var length: Int
        /// Where it is printed, for help text ("back" or "front").
        public var side: String

        /// A security code from its name, its number of digits and the side it is printed on.
        public init(name: String, length: Int, side: String) {
            self.name = name
            self.length = length
            self.side = side
        }
    }

    /// A `coBadged` entry of a rule file: numbers of its patterns are cards of this network
    /// and of the networks it names (Dankort's `4571…` is also a Visa card).
    public struct CoBadge: Equatable, Sendable {
        /// The other networks' ids, as `with` lists them: the first loaded (and accepted) one
        /// is what such a card is reported as by default.
        public var with: [String]
        /// Where each id stands in the file, in `with` order.
        public var locations: [SourceLocation]

        /// An entry from its ids and where each stands.
        public init(with: [String], locations: [SourceLocation] = []) {
            self.with = with
            self.locations = locations
        }
    }

    /// What one pattern says beyond its lengths, where that is not the network's own: the
    /// Luhn check of a `lengthsFor` or `coBadged` entry, and the `coBadged` entry it comes from.
    public struct PatternTerms: Equatable, Sendable {
        /// The pattern's index in `patterns`.
        public var pattern: Int
        /// Whether numbers of the pattern must pass the Luhn check.
        public var luhn: Bool
        /// The pattern's entry in `coBadges`, or nil when it is not co-badged.
        public var coBadge: Int?

        /// The terms of pattern `pattern`.
        public init(pattern: Int, luhn: Bool, coBadge: Int? = nil) {
            self.pattern = pattern
            self.luhn = luhn
            self.coBadge = coBadge
        }
    }

    /// A network from its rule-file fields; `formatHint` is made from
    /// them here. `patternLengths` gives each pattern's own lengths (missing entries: `lengths`).
    /// `family` nil: the network is its own family. `patternTerms` (by ascending pattern index)
    /// give patterns a Luhn check other than `luhn` or a `coBadges` entry.
    public convenience init(
        id: String, name: String, logo: String, patterns: [IINPattern], lengths: [Int],
        groups: [Int], moreGroups: [[Int]] = [], cvv: SecurityCode, luhn: Bool, file: String,
        idLocation: SourceLocation = SourceLocation(line: 1, column: 1), patternLocations: [SourceLocation] = [],
        patternLengths: [[Int]] = [], status: Status = .active,
        family: String? = nil, familyLocation: SourceLocation? = nil,
        coBadges: [CoBadge] = [], patternTerms: [PatternTerms] = [], aids: [[UInt8]] = []
    ) {
        let perPattern =
            patternLengths.count == patterns.count
            ? patternLengths
            : patterns.indices.map { patternLengths.indices.contains($0) ? patternLengths[$0] : lengths }
        self.init(
            id: id, name: name, logo: logo, patterns: patterns, lengths: lengths, groupings: [groups] + moreGroups,
            cvv: cvv, luhn: luhn,
            file: file, idLocation: idLocation, patternLocations: patternLocations,
            lengthsOfPatterns: PatternLengths(perPattern), status: status, family: family,
            familyLocation: familyLocation,
            coBadges: coBadges, patternTerms: patternTerms, aids: aids)
    }

    /// The same, with each pattern's lengths given whole (`RuleFile`: the top-level patterns
    /// sharing the network's one array, with no array a pattern).
    init(
        id: String, name: String, logo: String, patterns: [IINPattern], lengths: [Int],
        groupings: [[Int]], cvv: SecurityCode, luhn: Bool, file: String,
        idLocation: SourceLocation, patternLocations: [SourceLocation],
        lengthsOfPatterns perPattern: PatternLengths, status: Status,
        family: String?, familyLocation: SourceLocation?,
        coBadges: [CoBadge], patternTerms: [PatternTerms], aids: [[UInt8]]
    ) {
        precondition(perPattern.count == patterns.count, "one entry of lengths a pattern")
        self.id = id
        self.name = name
        self.logo = logo
        self.patterns = patterns
        self.lengths = lengths
        self.patternLengths = perPattern
        if perPattern.allEqual(to: lengths) && zip(lengths, lengths.dropFirst()).allSatisfy({ $0 < $1 }) {
            self.allLengths = lengths  // the usual case, without a set (1,000 networks at load)
        } else {
            var all = Set(lengths)
            for own in perPattern.distinctArrays where own != lengths { all.formUnion(own) }
            self.allLengths = all.sorted()
        }
        self.status = status
        self.family = family ?? id
        self.familyLocation = familyLocation ?? idLocation
        precondition(!groupings.isEmpty, "a grouping at least")
        self.groupings = groupings.sorted { $0.reduce(0, +) < $1.reduce(0, +) }
        self.formatHints = self.groupings.map(CardPolicy.hint(groups:))
        self.cvv = cvv
        self.luhn = luhn
        self.coBadges = coBadges
        self.patternTerms = patternTerms
        termRanges = TermRange.sorted(patterns, patternTerms)
        self.aids = aids
        self.file = file
        self.idLocation = idLocation
        self.patternLocations = patternLocations
    }

    /// The same network: the same object, or the same definition from the same file.
    public static func == (a: CardNetwork, b: CardNetwork) -> Bool {
        a === b
            || (a.id == b.id && a.file == b.file && a.patterns == b.patterns && a.lengths == b.lengths
                && a.patternLengths == b.patternLengths && a.status == b.status && a.family == b.family
                && a.groupings == b.groupings && a.cvv == b.cvv && a.luhn == b.luhn && a.name == b.name
                && a.logo == b.logo
                && a.coBadges == b.coBadges && a.patternTerms == b.patternTerms && a.aids == b.aids)
    }

    /// "a Visa number has 16 digits" / "… has 13, 16 or 19 digits", for the top-level lengths.
    public var lengthPhrase: String { lengthPhrase(lengths) }

    /// The same phrase for the given lengths (a pattern's own, say): "a Visa number has 16 or 19 digits".
    public func lengthPhrase(_ lengths: [Int]) -> String {
        let words = lengths.map(String.init)
        let list =
            words.count <= 1 ? (words.first ?? "no") : words.dropLast().joined(separator: ", ") + " or " + words.last!
        return "\(article(for: name)) \(name) number has \(list) digits"
    }

    /// Whether the network names another as its family (Visa Electron: `visa`).
    public var hasFamily: Bool { family != id }

    /// The terms of the pattern that decides `digits` (the network's own pattern of
    /// `decidingLength` digits that they match), or nil when they are the network's own. One
    /// look at `patternTerms` (empty for most networks); a rule file in which two patterns of
    /// one length with different terms overlap is refused, so at most one can match.
    @inline(__always)
    public func terms(of digits: some Collection<UInt8>, decidingLength: Int) -> PatternTerms? {
        patternTerms.isEmpty ? nil : findTerms(of: digits, decidingLength: decidingLength)
    }

    private func findTerms(of digits: some Collection<UInt8>, decidingLength: Int) -> PatternTerms? {
        // A pattern matches in full when the number's first `decidingLength` digits, read once
        // as a number, lie in its range (`IINPattern.match`'s test, without reading them again
        // for each pattern: a network such as Visa has many co-badged patterns).
        guard digits.count >= decidingLength else { return nil }
        let prefix = digits.prefix(decidingLength).reduce(UInt64(0)) { $0 * 10 + UInt64($1) }
        // The last range of that length starting at or before the prefix, then back while an
        // earlier one can still reach it: the first termed pattern (in file order) that matches.
        let ranges = termRanges
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if (range.length, range.low) > (decidingLength, prefix) { high = middle } else { low = middle + 1 }
        }
        var found: Int?
        var index = low - 1
        while index >= 0 {
            let range = ranges[index]
            guard range.length == decidingLength, range.reach >= prefix else { break }
            if range.high >= prefix { found = min(found ?? .max, range.terms) }
            index -= 1
        }
        return found.map { patternTerms[$0] }
    }

    /// A termed pattern's range: its length, low and high ends, the highest end of its length
    /// up to it in `sorted` order, and its entry in `patternTerms`.
    private struct TermRange: Sendable {
        var length: Int
        var low: UInt64
        var high: UInt64
        var reach: UInt64
        var terms: Int

        /// The ranges of `terms`' patterns by length, then low end.
        static func sorted(_ patterns: [IINPattern], _ terms: [PatternTerms]) -> [TermRange] {
            var ranges = terms.indices.map { index in
                let pattern = patterns[terms[index].pattern]
                return TermRange(
                    length: pattern.length, low: pattern.lowValue, high: pattern.highValue, reach: 0, terms: index)
            }
            ranges.sort { ($0.length, $0.low) < ($1.length, $1.low) }
            for index in ranges.indices {
                let before = index > 0 && ranges[index - 1].length == ranges[index].length ? ranges[index - 1].reach : 0
                ranges[index].reach = max(before, ranges[index].high)
            }
            return ranges
        }
    }

    /// Whether a number decided by this network's pattern of `decidingLength` digits must pass
    /// the Luhn check: that pattern's terms say, else the network's `luhn`.
    @inline(__always)
    public func requiresLuhn(_ digits: some Collection<UInt8>, decidingLength: Int) -> Bool {
        patternTerms.isEmpty ? luhn : (findTerms(of: digits, decidingLength: decidingLength)?.luhn ?? luhn)
    }

    /// Whether some patterns' numbers are co-badged cards (the file has `coBadged` entries).
    public var hasCoBadges: Bool { !coBadges.isEmpty }

}

/// A set of card-number lengths (0–31) as one bit mask: what a detection carries on every key,
/// without an array.
public struct LengthSet: Equatable, Hashable, Sendable {
    /// Bit n set: length n is in the set.
    public var mask: UInt32

    /// The set with these bits.
    public init(mask: UInt32) { self.mask = mask }

    /// The set of these lengths (each 0–31).
    public init(_ lengths: some Sequence<Int>) {
        mask = lengths.reduce(0) { $0 | (1 << UInt32($1)) }
    }

    /// Whether `length` is in the set.
    public func contains(_ length: Int) -> Bool { length >= 0 && length < 32 && mask & (1 << UInt32(length)) != 0 }

    /// The largest length, or 0 for the empty set.
    public var max: Int { mask == 0 ? 0 : 31 - mask.leadingZeroBitCount }

    /// The lengths, ascending.
    public var lengths: [Int] { (0..<32).filter { contains($0) } }

    /// Whether the set is empty.
    public var isEmpty: Bool { mask == 0 }

    /// How a number of `count` digits stands, for the patterns that allow these lengths (a
    /// detection's `lengths`). The one rule for "complete": the prompt moves on by itself
    /// only at `.final`, Enter (or Tab) takes `.completeCanGrow` too, and `check`, `replay`
    /// and submit call a number complete exactly when `isComplete`. Bit arithmetic only: it
    /// runs on every key.
    @inline(__always)
    public func completeness(of count: Int) -> Completeness {
        guard count >= 0 && count < 32 else { return .notALength }
        let longer = count >= 31 ? 0 : mask >> UInt32(count + 1)
        if contains(count) { return longer == 0 ? .final : .completeCanGrow }
        return longer == 0 ? .notALength : .incomplete
    }
}

/// The valid lengths of each of a network's patterns (`CardNetwork.patternLengths`), without
/// an array a pattern: the leading patterns that share one array (a rule file's top-level
/// `prefixes` and `ranges`, which have the network's `lengths`) are counted, not stored; each
/// pattern after them (a `lengthsFor` or `coBadged` entry's) has its entry's array. A bank's
/// file of 100,000 ranges then holds one array, not 100,000 references to it.
public struct PatternLengths: RandomAccessCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    /// The lengths of the first `sharedCount` patterns.
    let shared: [Int]
    /// How many leading patterns have `shared`.
    let sharedCount: Int
    /// The lengths of each pattern after them.
    let rest: [[Int]]

    /// `count` patterns with `shared` (the network's lengths), then one a pattern, `rest`.
    init(shared: [Int], count: Int, then rest: [[Int]] = []) {
        (self.shared, sharedCount, self.rest) = (shared, count, rest)
    }

    /// Each pattern's lengths, in pattern order.
    public init(_ lengths: [[Int]]) { self.init(shared: [], count: 0, then: lengths) }

    /// Each pattern's lengths, written out: `[[16, 19], [13, 16, 19]]`.
    public init(arrayLiteral lengths: [Int]...) { self.init(lengths) }

    /// The first pattern's index: 0.
    public var startIndex: Int { 0 }
    /// How many patterns there are.
    public var endIndex: Int { sharedCount + rest.count }

    /// Pattern `index`'s lengths.
    public subscript(index: Int) -> [Int] {
        // (A negative index falls to `rest`, which refuses it.)
        index >= 0 && index < sharedCount ? shared : rest[index - sharedCount]
    }

    /// Whether every pattern has exactly `lengths`.
    func allEqual(to lengths: [Int]) -> Bool {
        (sharedCount == 0 || shared == lengths) && rest.allSatisfy { $0 == lengths }
    }

    /// Every array of lengths some pattern has, each shared one once (perhaps repeated).
    var distinctArrays: [[Int]] { (sharedCount > 0 ? [shared] : []) + rest }

    /// The same lengths for every pattern, however they are held.
    public static func == (a: PatternLengths, b: PatternLengths) -> Bool { a.elementsEqual(b) }
}

/// How the digits typed stand against the lengths their patterns allow
/// (`LengthSet.completeness(of:)`).
public enum Completeness: Equatable, Sendable {
    /// Not a valid length yet; more digits can make one.
    case incomplete
    /// A valid length, and a longer one is still possible (a 16-digit Maestro, which may have
    /// 19): complete, but the person may keep typing, so the prompt does not move on by itself.
    case completeCanGrow
    /// A valid length and the longest possible: the number cannot grow, the prompt moves on.
    case final
    /// Not a valid length and no longer one is possible.
    case notALength

    /// Whether the digits make a number of a valid length.
    public var isComplete: Bool { self == .final || self == .completeCanGrow }
}

/// "a" or "an" for a name, by its first letter.
public func article(for word: String) -> String {
    guard let first = word.first?.lowercased() else { return "a" }
    return "aeiou".contains(first) ? "an" : "a"
}

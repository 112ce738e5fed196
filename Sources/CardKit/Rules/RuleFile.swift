import CardChip

/// Turns one rule file's JSON into a `CardNetwork`, collecting every problem with the line
/// and column of the value at fault rather than stopping at the first.
struct RuleFile {
    static let knownFields = [
        "$schema", "id", "name", "logo", "prefixes", "ranges", "lengths",
        "autoAdvance", "groups", "cvv", "luhn", "source", "note", "disabled",
        "lengthsFor", "status", "family", "coBadged", "aids",
    ]
    /// The fields of a rule file, in the order of `knownFields` (a key's raw value is its
    /// place there): a field is looked up by its place, not by comparing its name.
    enum Key: Int, CaseIterable {
        case schema, id, name, logo, prefixes, ranges, lengths, autoAdvance, groups, cvv, luhn, source, note, disabled,
            lengthsFor, status, family, coBadged, aids
        /// The key as a rule file writes it.
        var name: String { RuleFile.knownFields[rawValue] }
    }
    /// Fields of one `lengthsFor` entry.
    static let entryFields = ["prefixes", "ranges", "lengths", "luhn"]
    /// Fields of one `coBadged` entry.
    static let coBadgedFields = ["with", "prefixes", "ranges", "lengths", "luhn"]
    /// Fields a file that disables a network may hold.
    static let disablingFields: Set = ["$schema", "id", "disabled", "source", "note"]
    /// The most digits a pattern may have (the longest card number).
    static let maxPatternLength = CardPolicy.longestNumber

    /// What a valid rule file says.
    enum Content: Sendable {
        case network(CardNetwork)
        /// `{"id": "maestro", "disabled": true}`: drop that network from earlier folders.
        case disable(id: String, location: SourceLocation)
    }
    static let validLengths = CardPolicy.numberLengths

    let file: String
    /// Errors: the file is refused when there is one.
    var problems: [RuleError] = []
    /// Problems worth a word that do not stop the file from loading.
    private(set) var warnings: [RuleError] = []

    init(file: String) { self.file = file }

    /// What the text says, or nil when `problems` holds at least one error.
    mutating func decode(_ bytes: [UInt8]) -> Content? {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            fail(error.location, "invalid JSON: \(error.message)")
            return nil
        }
        guard case .object(let members, _) = root else {
            fail(root.location, "a rule file holds one JSON object, found \(root.kindName)")
            return nil
        }
        // (A constant, not a variable: passed on without a copy.)
        let fields = takeFields(Fields.ruleFile, members, Self.knownFields, named: "")
        let objectStart = root.location

        if let value = fields[.disabled] {
            guard case .bool(let disabled, _) = value else {
                fail(value.location, "`disabled` must be true or false, found \(value.kindName)")
                return nil
            }
            if disabled {
                let id = requiredString(.id, fields, objectStart)
                for member in members
                where !Self.disablingFields.contains(member.key) && Self.knownFields.contains(member.key) {
                    fail(
                        member.keyLocation,
                        "a file that disables a network holds only `id` and `disabled` (and `source`, `note`); remove `\(member.key)`"
                    )
                }
                guard problems.isEmpty, let id else { return nil }
                return .disable(id: id.value, location: id.location)
            }
        }

        let id = requiredString(.id, fields, objectStart)
        if let id, !isValidID(id.value) {
            fail(
                id.location,
                "id `\(id.value.escapingControlCharacters)` must be lower-case letters, digits and '-', starting with a letter or digit"
            )
        }
        let name = requiredString(.name, fields, objectStart)
        let logo = fields[.logo].flatMap { string($0, "logo") }
        checkShown(name, "name")
        checkShown(logo, "logo")

        var patterns: [IINPattern] = []
        var patternLocations: [SourceLocation] = []
        let patternCount = readPatterns(fields, into: &patterns, &patternLocations)
        if patternCount == 0 && !Self.hasMalformedPatterns(fields) {
            fail(
                fields["prefixes"]?.location ?? fields["ranges"]?.location ?? objectStart,
                "a network needs at least one IIN pattern in `prefixes` or `ranges`")
        }

        var lengths: [Int] = []
        if let value = fields[.lengths] {
            lengths = integers(value, "lengths", allowed: Self.validLengths) ?? []
            if case .array(let items, _) = value, items.isEmpty {
                fail(value.location, "`lengths` must list at least one length")
            }
        } else {
            fail(objectStart, "missing required field `lengths`")
        }
        lengths = Self.ascending(lengths)  // without repeats, ascending (each is 8–19 here)
        let maxLength = lengths.last ?? 16
        var luhn = true
        if let value = fields[.luhn] {
            if case .bool(let flag, _) = value {
                luhn = flag
            } else {
                fail(value.location, "`luhn` must be true or false, found \(value.kindName)")
            }
        }
        // The top-level patterns share `lengths` (counted, not an array each); entries' follow.
        var read = EntryPatterns(
            patterns: patterns, locations: patternLocations, topCount: patterns.count, topLengths: lengths)
        (patterns, patternLocations) = ([], [])  // (one reference each: appending does not copy)
        if let value = fields[.lengthsFor] { readLengthsFor(value, networkLengths: lengths, luhn: luhn, &read) }
        if let value = fields[.coBadged] {
            readCoBadged(value, networkLengths: lengths, luhn: luhn, id: id?.value, &read)
        }
        if !read.terms.isEmpty { checkTermsOverlap(read, id: id?.value.escapingControlCharacters) }
        (patterns, patternLocations) = (read.patterns, read.locations)
        let patternLengths = PatternLengths(shared: lengths, count: read.topCount, then: read.entryLengths)
        // The top-level patterns share the network's own lengths: only entries' are added.
        var allLengths = LengthSet(lengths)
        for own in read.entryLengths where own != lengths { allLengths.mask |= LengthSet(own).mask }

        var status = CardNetwork.Status.active
        if let value = fields[.status], let text = string(value, "status") {
            if let known = CardNetwork.Status(rawValue: text.value) {
                status = known
            } else {
                fail(
                    text.location,
                    "`status` must be \"active\" or \"retired\", found \"\(text.value.escapingControlCharacters)\"")
            }
        }

        // `autoAdvance` (lengths that moved on by themselves) could cut a longer valid number
        // short, so it no longer has an effect: a number moves on by itself only when no longer
        // length of its pattern is possible (`LengthSet.completeness`). Still checked, so an
        // old file keeps loading and a wrong one stays wrong; a warning says to use `lengthsFor`.
        if let value = fields[.autoAdvance], let listed = integers(value, "autoAdvance", allowed: Self.validLengths) {
            var wrong = false
            for (item, length) in zip(arrayItems(value), listed) where !allLengths.contains(length) && !lengths.isEmpty
            {
                fail(item.location, "autoAdvance length \(length) is not one of the network's lengths")
                wrong = true
            }
            if !wrong {
                warnings.append(
                    RuleError(
                        file: file, location: value.location, severity: .warning,
                        message:
                            "`autoAdvance` has no effect: a number moves on by itself only once no longer length of its pattern is possible, and Enter takes a shorter valid one; give ranges their own lengths with `lengthsFor`"
                    ))
            }
        }

        var family: (value: String, location: SourceLocation)?
        if let value = fields[.family], let text = string(value, "family") {
            if !isValidID(text.value) {
                fail(
                    text.location,
                    "family `\(text.value.escapingControlCharacters)` must be a network id: lower-case letters, digits and '-', starting with a letter or digit"
                )
            } else if text.value == id?.value {
                fail(text.location, "`family` names the network itself; leave it out (a network is its own family)")
            } else {
                family = text
            }
        }

        // `groups`: one grouping (`[4, 6, 5]`), or one for each of several lengths
        // (`[[4, 6, 4], [4, 4, 4, 4]]`), each adding up to a length, no two to the same.
        var groupings = [Self.groupsOfFour[maxLength]]
        if let value = fields[.groups] {
            let items = arrayItems(value)
            let nested = items.contains { if case .array = $0 { return true } else { return false } }
            var read: [[Int]] = []
            for item in nested ? items : [value] {
                guard let listed = integers(item, "groups", allowed: 1...CardPolicy.longestNumber) else { continue }
                let total = listed.reduce(0, +)
                if listed.isEmpty {
                    fail(item.location, "`groups` must list at least one group size")
                } else if !lengths.isEmpty && !lengths.contains(total) {
                    fail(
                        item.location,
                        "groups add up to \(total) digits, which is not one of the lengths \(lengths.map(String.init).joined(separator: ", "))"
                    )
                } else if read.contains(where: { $0.reduce(0, +) == total }) {
                    fail(item.location, "two groupings add up to \(total) digits; give one a length")
                } else {
                    read.append(listed)
                }
            }
            if !read.isEmpty { groupings = read }
        }

        var cvv: CardNetwork.SecurityCode?
        if let value = fields[.cvv] {
            cvv = securityCode(value)
        } else {
            fail(objectStart, "missing required field `cvv`")
        }

        var aids: [[UInt8]] = []
        if let value = fields[.aids] { aids = readAIDs(value) }
        if let value = fields[.source] { _ = string(value, "source") }
        if let value = fields[.note] { _ = string(value, "note") }
        if let value = fields[.schema] { _ = string(value, "$schema") }

        guard problems.isEmpty, let id, let name, let cvv else { return nil }
        return .network(
            CardNetwork(
                id: id.value, name: name.value, logo: logo?.value ?? id.value.uppercased(),
                patterns: patterns, lengths: lengths,
                groupings: groupings, cvv: cvv, luhn: luhn, file: file,
                idLocation: id.location, patternLocations: patternLocations,
                lengthsOfPatterns: patternLengths, status: status,
                family: family?.value, familyLocation: family?.location,
                coBadges: read.coBadges, patternTerms: read.terms, aids: aids))
    }

    /// Reads `aids`: the chip applications of the network's cards, each 5 to 16 bytes in hex
    /// (`"A0000000031010"`), none twice.
    private mutating func readAIDs(_ value: JSONValue) -> [[UInt8]] {
        guard let items = array(value, "aids") else { return [] }
        var aids: [[UInt8]] = []
        for item in items {
            guard let text = string(item, "each AID of `aids`") else { continue }
            guard let bytes = Hex.bytes(text.value), (5...16).contains(bytes.count) else {
                fail(
                    text.location,
                    "AID \"\(text.value.escapingControlCharacters)\" must be 10 to 32 hex digits (5 to 16 bytes), like \"A0000000031010\""
                )
                continue
            }
            if aids.contains(bytes) {
                fail(text.location, "`aids` lists \(Hex.string(bytes)) twice")
                continue
            }
            aids.append(bytes)
        }
        return aids
    }

    // MARK: - Patterns

    /// Reads `prefixes` and `ranges` of an object (the file, or a `lengthsFor` entry) into
    /// `patterns`; returns how many items they list.
    private mutating func readPatterns(
        _ fields: Fields, into patterns: inout [IINPattern], _ patternLocations: inout [SourceLocation]
    ) -> Int {
        var patternCount = 0
        if let value = fields["prefixes"], let items = array(value, "prefixes") {
            patternCount += items.count
            for item in items {
                guard let text = string(item, "each prefix") else { continue }
                if Self.isTooLong(text.value) {
                    fail(
                        item.location,
                        "prefix \"\(text.value.escapingControlCharacters)\" is longer than \(Self.maxPatternLength) digits"
                    )
                } else if let pattern = IINPattern(prefix: text.value) {
                    patterns.append(pattern)
                    patternLocations.append(item.location)
                } else {
                    fail(
                        item.location,
                        "prefix \"\(text.value.escapingControlCharacters)\" must be one or more digits 0-9")
                }
            }
        }
        if let value = fields["ranges"], let items = array(value, "ranges") {
            patternCount += items.count
            for item in items {
                guard case .array(let ends, _) = item, ends.count == 2 else {
                    fail(item.location, "each range is an array of two digit strings, like [\"2221\", \"2720\"]")
                    continue
                }
                guard let low = string(ends[0], "a range's low end"), let high = string(ends[1], "a range's high end")
                else { continue }
                if Self.isTooLong(low.value) || Self.isTooLong(high.value) {
                    fail(item.location, "range ends are longer than \(Self.maxPatternLength) digits")
                } else if let pattern = IINPattern(low: low.value, high: high.value) {
                    patterns.append(pattern)
                    patternLocations.append(item.location)
                } else if digitValues(low.value) == nil || low.value.isEmpty {
                    fail(
                        ends[0].location,
                        "range end \"\(low.value.escapingControlCharacters)\" must be one or more digits 0-9")
                } else if digitValues(high.value) == nil || high.value.isEmpty {
                    fail(
                        ends[1].location,
                        "range end \"\(high.value.escapingControlCharacters)\" must be one or more digits 0-9")
                } else if low.value.count != high.value.count {
                    fail(
                        item.location,
                        "range ends \"\(low.value.escapingControlCharacters)\" and \"\(high.value.escapingControlCharacters)\" must have the same number of digits"
                    )
                } else {
                    fail(
                        item.location,
                        "range low end \"\(low.value.escapingControlCharacters)\" is above its high end \"\(high.value.escapingControlCharacters)\""
                    )
                }
            }
        }
        return patternCount
    }

    /// The patterns of a file as they are read: the top-level ones, then each entry's, with
    /// their locations, lengths and (where not the network's own) terms.
    struct EntryPatterns {
        var patterns: [IINPattern]
        var locations: [SourceLocation]
        /// How many patterns come first, at the top level, with `topLengths`.
        var topCount: Int
        var topLengths: [Int]
        /// The lengths of each pattern after those, an entry's.
        var entryLengths: [[Int]] = []
        var terms: [CardNetwork.PatternTerms] = []
        var coBadges: [CardNetwork.CoBadge] = []

        /// Pattern `index`'s lengths.
        func lengths(of index: Int) -> [Int] { index < topCount ? topLengths : entryLengths[index - topCount] }
    }

    /// Reads `lengthsFor`: extra patterns of this network, each entry with its own lengths
    /// and, if it says so, its own `luhn`.
    private mutating func readLengthsFor(
        _ value: JSONValue, networkLengths: [Int], luhn: Bool, _ read: inout EntryPatterns
    ) {
        guard let entries = array(value, "lengthsFor") else { return }
        for entry in entries {
            guard
                let (fields, location) = entryFields(
                    entry, "lengthsFor", Fields.lengthsForEntry, Self.entryFields,
                    example: #"{"prefixes": ["4026"], "lengths": [13, 16, 19]}"#)
            else { continue }
            let first = read.patterns.count
            readEntryPatterns(fields, "lengthsFor", location, &read)
            let ownLuhn = entryLuhn(fields, "lengthsFor")
            var lengths: [Int] = []
            if let value = fields["lengths"] {
                lengths = entryLengths(value)
                if !lengths.isEmpty && lengths == networkLengths && (ownLuhn ?? luhn) == luhn {
                    warnings.append(
                        RuleError(
                            file: file, location: value.location, severity: .warning,
                            message:
                                "this `lengthsFor` entry has the network's own lengths; move its patterns to `prefixes` or `ranges`"
                        ))
                }
            } else {
                fail(location, "missing required field `lengthsFor.lengths`")
            }
            read.entryLengths += Array(repeating: lengths, count: read.patterns.count - first)
            if let ownLuhn, ownLuhn != luhn {
                read.terms += (first..<read.patterns.count).map { CardNetwork.PatternTerms(pattern: $0, luhn: ownLuhn) }
            }
        }
    }

    /// Reads `coBadged`: patterns whose cards are also cards of the networks `with` names,
    /// each entry with the file's lengths and `luhn` unless it gives its own.
    private mutating func readCoBadged(
        _ value: JSONValue, networkLengths: [Int], luhn: Bool, id: String?, _ read: inout EntryPatterns
    ) {
        guard let entries = array(value, "coBadged") else { return }
        for entry in entries {
            guard
                let (fields, location) = entryFields(
                    entry, "coBadged", Fields.coBadgedEntry, Self.coBadgedFields,
                    example: #"{"with": ["visa"], "prefixes": ["4571"]}"#)
            else { continue }
            var with: [String] = []
            var locations: [SourceLocation] = []
            if let value = fields["with"] {
                if let items = array(value, "coBadged.with") {
                    if items.isEmpty {
                        fail(
                            value.location,
                            "`coBadged.with` must name at least one network, the other network on these cards (like \"visa\")"
                        )
                    }
                    for item in items {
                        guard let text = string(item, "each network of `coBadged.with`") else { continue }
                        if !isValidID(text.value) {
                            fail(
                                text.location,
                                "`coBadged.with` entry `\(text.value.escapingControlCharacters)` must be a network id: lower-case letters, digits and '-', starting with a letter or digit"
                            )
                        } else if text.value == id {
                            fail(
                                text.location,
                                "`coBadged.with` names the network itself; list the other networks on these cards")
                        } else if let earlier = with.firstIndex(of: text.value) {
                            fail(
                                text.location,
                                "`coBadged.with` lists `\(text.value)` twice (first at \(locations[earlier]))")
                        } else {
                            with.append(text.value)
                            locations.append(text.location)
                        }
                    }
                }
            } else {
                fail(location, "missing required field `coBadged.with`")
            }
            let first = read.patterns.count
            readEntryPatterns(fields, "coBadged", location, &read)
            let ownLuhn = entryLuhn(fields, "coBadged")
            var lengths = networkLengths
            if let value = fields["lengths"] { lengths = entryLengths(value) }
            read.entryLengths += Array(repeating: lengths, count: read.patterns.count - first)
            let coBadge = read.coBadges.count
            read.coBadges.append(CardNetwork.CoBadge(with: with, locations: locations))
            read.terms += (first..<read.patterns.count).map {
                CardNetwork.PatternTerms(pattern: $0, luhn: ownLuhn ?? luhn, coBadge: coBadge)
            }
        }
    }

    /// An entry of `lengthsFor` or `coBadged` as an object's fields, each key checked (known,
    /// not repeated); nil, with the error, when it is not an object.
    private mutating func entryFields(
        _ entry: JSONValue, _ list: String, _ keys: Fields.Keys, _ known: [String],
        example: String
    ) -> (Fields, SourceLocation)? {
        guard case .object(let members, let location) = entry else {
            fail(entry.location, "each `\(list)` entry is an object like \(example), found \(entry.kindName)")
            return nil
        }
        return (takeFields(keys, members, known, named: list + "."), location)
    }

    /// `members` taken as the fields of an object whose keys are `keys` (names `known`): each
    /// repeated or unknown key an error (with the closest known name), named after `prefix`
    /// (`""` at the top, `"lengthsFor."` in an entry).
    private mutating func takeFields(
        _ keys: Fields.Keys, _ members: [JSONValue.Member], _ known: [String], named prefix: String
    ) -> Fields {
        var fields = Fields(keys, members)
        for index in members.indices {
            let member = members[index]
            switch fields.take(index) {
            case .first: break
            case .repeated:
                fail(member.keyLocation, "field `\(prefix)\(member.key.escapingControlCharacters)` appears twice")
            case .unknown:
                var message = "unknown field `\(prefix)\(member.key.escapingControlCharacters)`"
                if let guess = closest(to: member.key, in: known) { message += "; did you mean `\(guess)`?" }
                fail(member.keyLocation, message)
            }
        }
        return fields
    }

    /// An entry's `prefixes` and `ranges`, appended to `read` (at least one is required).
    private mutating func readEntryPatterns(
        _ fields: Fields, _ list: String, _ location: SourceLocation, _ read: inout EntryPatterns
    ) {
        let count = readPatterns(fields, into: &read.patterns, &read.locations)
        if count == 0 && !Self.hasMalformedPatterns(fields) {
            fail(
                fields["prefixes"]?.location ?? fields["ranges"]?.location ?? location,
                "a `\(list)` entry needs at least one IIN pattern in `prefixes` or `ranges`")
        }
    }

    /// An entry's `luhn`, if it gives one.
    private mutating func entryLuhn(_ fields: Fields, _ list: String) -> Bool? {
        guard let value = fields["luhn"] else { return nil }
        guard case .bool(let flag, _) = value else {
            fail(value.location, "`\(list).luhn` must be true or false, found \(value.kindName)")
            return nil
        }
        return flag
    }

    /// An entry's `lengths`: ascending, without repeats; empty after an error.
    private mutating func entryLengths(_ value: JSONValue) -> [Int] {
        let lengths = integers(value, "lengths", allowed: Self.validLengths) ?? []
        if case .array(let items, _) = value, items.isEmpty {
            fail(value.location, "`lengths` must list at least one length")
        }
        return Self.ascending(lengths)
    }

    /// `lengths` (each 0–31) ascending without repeats, as `LengthSet` lists them: the array
    /// itself when it already is (a file's usual `[16]`: no new array).
    static func ascending(_ lengths: [Int]) -> [Int] {
        for k in lengths.indices.dropFirst() where lengths[k - 1] >= lengths[k] { return LengthSet(lengths).lengths }
        return lengths
    }

    /// `CardPolicy.groupsOfFour(upTo:)` for each length up to the longest: made once, shared by
    /// the networks that give no `groups`.
    static let groupsOfFour = (0...CardPolicy.longestNumber).map(CardPolicy.groupsOfFour(upTo:))

    /// Two patterns of one length with the same lengths but different terms (one co-badged,
    /// the other not; other `luhn`s) must not overlap: the index merges them, and a number in
    /// both would have two answers. (Different lengths are the index's own error.) A sweep
    /// over the patterns of each length a termed pattern has, in order of low end.
    private mutating func checkTermsOverlap(_ read: EntryPatterns, id: String?) {
        // Each pattern's terms as a small number: 0 for the network's own, else one per
        // distinct (luhn, networks) pair.
        var kinds: [(luhn: Bool, with: [String]?)] = []
        var kindOf = [Int](repeating: 0, count: read.patterns.count)
        for terms in read.terms {
            let kind = (luhn: terms.luhn, with: terms.coBadge.map { read.coBadges[$0].with })
            if let known = kinds.firstIndex(where: { $0.luhn == kind.luhn && $0.with == kind.with }) {
                kindOf[terms.pattern] = known + 1
            } else {
                kinds.append(kind)
                kindOf[terms.pattern] = kinds.count
            }
        }
        for length in Set(read.terms.map { read.patterns[$0.pattern].length }).sorted() {
            let members = read.patterns.indices.filter { read.patterns[$0].length == length }
                .sorted { (read.patterns[$0].lowValue, $0) < (read.patterns[$1].lowValue, $1) }
            var reach: Int?
            for index in members {
                let pattern = read.patterns[index]
                if let current = reach, pattern.lowValue <= read.patterns[current].highValue {
                    if kindOf[current] != kindOf[index] && read.lengths(of: current) == read.lengths(of: index) {
                        let (earlier, later) = (min(current, index), max(current, index))
                        fail(
                            read.locations[later],
                            "pattern \(read.patterns[later]) of `\(id ?? "")` overlaps its pattern \(read.patterns[earlier]) (\(read.locations[earlier])) with other terms (co-badged or not, or another `luhn`); make one of them more specific"
                        )
                    }
                }
                if reach.map({ read.patterns[$0].highValue < pattern.highValue }) ?? true { reach = index }
            }
        }
    }

    /// Whether `prefixes` or `ranges` is there but not an array (already an error of its own).
    private static func hasMalformedPatterns(_ fields: Fields) -> Bool {
        [fields["prefixes"], fields["ranges"]].contains { value in
            if let value, case .array = value { return false }
            return value != nil
        }
    }

}

/// Validates card records without typing, one line at a time, for `cardline check`. A plain
/// record is `NUMBER[,EXPIRY[,CVV]]`, or on a line without a comma `NUMBER [EXPIRY [CVV]]`
/// (fields apart by whitespace). The number is written unbroken or in groups of at most six
/// digits, each joined to the next by one space or by dashes (`4111 1111 1111 1111`,
/// `3782-822463-10005`); whitespace after an unbroken run of more than six digits, a tab, or
/// a space before something that is not digits ends the number: `378282246310005 9876` is the
/// number 378282246310005 and then a field. A line starting with `{` is a JSON object as
/// `cardline --print` writes it (`checkJSON`). Plain records are read on the line's bytes
/// without allocating, so large files stream through fast and in constant memory.
public struct CardCheck: Sendable {
    /// The networks records are checked against.
    public let rules: RuleSet
    /// Decides which expiries are `expired` or `expiry_too_far`.
    public let expiryPolicy: ExpiryPolicy
    /// Each network's id as bytes, by network index.
    let ids: [[UInt8]]
    /// Whether each network (by index) is taken; all are without an accepted set.
    private let taken: [Bool]
    /// Whether some network has `coBadged` entries (then a number it decides may be reported
    /// as another network, with others beside it).
    private let anyCoBadges: Bool
    /// The rules' patterns on one list, for numbers at least as long as the longest pattern.
    private let wholeNumbers: WholeNumberIndex
    /// The networks' patterns with terms of their own (`CardNetwork.patternTerms`: a
    /// `lengthsFor` Luhn check or a `coBadged` entry), network after network, each network's
    /// in `patternTerms` order from `termedStarts[index]` to `termedStarts[index + 1]` (none
    /// for most): a whole number finds its deciding pattern's terms here by comparing
    /// integers, once per checker rather than matching the patterns' digits per record.
    private let termedPatterns: [TermedPattern]
    private let termedStarts: [Int32]
    /// Whether each network (by index) checks Luhn where no pattern's terms say otherwise.
    private let luhns: [Bool]
    /// The card networks a record can be reported with: first each network alone (at its
    /// index), then each `coBadged` entry's, as the prompt delivers such a card (`record`).
    let records: [NetworkRecord]
    /// For each network, its `coBadged` entries' indices in `records`.
    private let coBadgeRecords: [[Int: Int32]]

    /// The networks a card is reported with: the one it is delivered as (by index) and its
    /// others, and the card record's members that say so (`CardRecord.networkMembers`).
    struct NetworkRecord: Sendable {
        let network: Int32
        let also: [CardNetwork]
        let members: [UInt8]
    }

    /// A pattern with terms of its own and what they decide for the numbers it decides: the
    /// networks reported (`record`, asked once per `coBadged` entry) and whether Luhn is
    /// checked (the terms' `luhn`, which `CardNetwork.requiresLuhn` gives for them: a rule
    /// file whose patterns of one length overlap with other terms is refused).
    private struct TermedPattern: Sendable {
        /// The pattern's length, and its range widened to the whole-number index's length
        /// (compared with a whole number's prefix without a division).
        let length: Int, low: UInt64, high: UInt64
        let record: Int32
        let luhn: Bool
    }

    /// A checker for `rules`; `accepted` makes numbers of other networks invalid
    /// (`network_not_accepted`).
    public init(rules: RuleSet, expiryPolicy: ExpiryPolicy, accepted: AcceptedNetworks? = nil) {
        self.rules = rules
        self.expiryPolicy = expiryPolicy
        ids = rules.networks.map { Array($0.id.utf8) }
        let taken = rules.networks.map { accepted?.accepts($0) ?? true }
        self.taken = taken
        anyCoBadges = rules.networks.contains(where: \.hasCoBadges)
        wholeNumbers = rules.wholeNumberIndex()
        luhns = rules.networks.map(\.luhn)
        var records = rules.networks.indices.map {
            NetworkRecord(
                network: Int32($0), also: [], members: CardRecord.networkMembers(rules.networks[$0], also: []))
        }
        var coBadgeRecords: [[Int: Int32]] = []
        var termed: [TermedPattern] = []
        var starts: [Int32] = [0]
        for (index, network) in rules.networks.enumerated() {
            // The networks of each `coBadged` entry, asked once per entry.
            var recordFor: [Int: Int32] = [:]
            for terms in network.patternTerms {
                let pattern = network.patterns[terms.pattern]
                var record = Int32(index)
                if let entry = terms.coBadge {
                    if let known = recordFor[entry] {
                        record = known
                    } else {
                        records.append(
                            Self.networkRecord(
                                pattern.low, owner: index, decidingLength: pattern.length, rules: rules, taken: taken))
                        record = Int32(records.count - 1)
                        recordFor[entry] = record
                    }
                }
                let scale = pow10[max(wholeNumbers.length - pattern.length, 0)]
                termed.append(
                    TermedPattern(
                        length: pattern.length, low: pattern.lowValue &* scale,
                        high: (pattern.highValue &+ 1) &* scale &- 1, record: record, luhn: terms.luhn))
            }
            coBadgeRecords.append(recordFor)
            starts.append(Int32(termed.count))
        }
        self.records = records
        self.coBadgeRecords = coBadgeRecords
        termedPatterns = termed
        termedStarts = starts
    }

    /// The networks a whole number that `owner` decides by its pattern of `decidingLength`
    /// digits is reported with (`records`), and whether Luhn is checked: the terms of that
    /// pattern when it has some (`termedPatterns`), else `owner` itself and its own `luhn`.
    /// `prefix` is the number's first `wholeNumbers.length` digits, at least as many as any
    /// pattern has.
    @inline(__always)
    private func terms(owner: Int32, decidingLength: Int, prefix: UInt64) -> (record: Int32, luhn: Bool) {
        for index in Int(termedStarts[Int(owner)])..<Int(termedStarts[Int(owner) + 1]) {
            let pattern = termedPatterns[index]
            if pattern.length == decidingLength && pattern.low <= prefix && prefix <= pattern.high {
                return (pattern.record, pattern.luhn)
            }
        }
        return (owner, luhns[Int(owner)])
    }

    /// The networks of a number that `networks[owner]` decides by its pattern of
    /// `decidingLength` digits, a co-badged one, as the prompt delivers the card: the first of
    /// them taken here (`Detection.networks(takenBy:)`), and the others (`EntryEngine.network`,
    /// `alsoNetworks`).
    private static func networkRecord(
        _ digits: some Collection<UInt8>, owner: Int, decidingLength: Int, rules: RuleSet, taken: [Bool]
    ) -> NetworkRecord {
        let detection = Detection(
            network: rules.networks[owner], hasCandidates: true, maxLength: 0, decidingLength: decidingLength,
            lengths: LengthSet(mask: 0),
            coBadged: rules.coBadged(digits, owner: owner, decidingLength: decidingLength))
        let index = { (network: CardNetwork) in rules.networks.firstIndex { $0 === network } }
        let reported =
            detection.networks(takenBy: { index($0).map { taken[$0] } ?? false }).first.flatMap(index) ?? owner
        let also = detection.networks.filter { $0 !== rules.networks[reported] }
        return NetworkRecord(
            network: Int32(reported), also: also,
            members: CardRecord.networkMembers(rules.networks[reported], also: also))
    }

    /// The verdict on one record. Holds the number (for masked output), never the code.
    public struct Result: Sendable {
        /// Index into the rule set's networks, or -1.
        public var networkIndex: Int32 = -1
        /// Index into the checker's `records` (the networks reported, the card's others beside
        /// it), or -1.
        var record: Int32 = -1
        var problemBits: UInt16 = 0
        /// The number's first 19 digits (0–9), as many as `digitCount` says (or 19).
        var storedDigits = InlineArray<19, UInt8>(repeating: 0)
        /// How many digits the number had, counting any past the 19th.
        public var digitCount = 0
        /// How many digits the security code had (for the words of `cvv_length`).
        var codeLength = 0
        /// The expiry as read, with a four-digit year; nil when there is none or it is malformed.
        public var expiry: YearMonth?

        /// True when the record has no problems.
        public var valid: Bool { problemBits == 0 }
        /// The record's problems, in declaration (and output) order.
        public var problems: [Problem] { Problem.allCases.filter { problemBits & $0.bit != 0 } }
        /// True when the record has `problem`.
        public func has(_ problem: Problem) -> Bool { problemBits & problem.bit != 0 }
        mutating func add(_ problem: Problem) { problemBits |= problem.bit }

        /// The verdict where the record must give an expiry (`check --encrypt-to`: a sealed card
        /// carries one): with `expiryMissing` when it gives none; as it is otherwise (a
        /// malformed expiry is already `expiryFormat`).
        public func requiringExpiry() -> Result {
            guard expiry == nil && !has(.expiryFormat) else { return self }
            var result = self
            result.add(.expiryMissing)
            return result
        }

        /// The (first 19) digits of the number.
        public var digits: [UInt8] { (0..<min(digitCount, CardPolicy.longestNumber)).map { storedDigits[$0] } }
    }

    /// Checks one record (a line without its line break). A `truncated` line (one too long to
    /// hold, of which only the start is given) is a `record_format` problem whatever it holds.
    public func check(_ line: Span<UInt8>, truncated: Bool = false) -> Result {
        var result = Result()
        if truncated { result.add(.recordFormat) }
        // The three fields, found without an array: number, expiry, code.
        var commas = 0
        var ends = (line.count, line.count)
        for i in line.indices where line[i] == UInt8(ascii: ",") {
            commas += 1
            if commas == 1 { ends.0 = i } else if commas == 2 { ends.1 = i }
        }
        if commas > 2 { result.add(.recordFormat) }
        let numberEnd = commas >= 1 ? ends.0 : line.count
        var expiryRange = commas >= 1 ? (ends.0 + 1)..<(commas >= 2 ? ends.1 : line.count) : nil
        var codeRange = commas >= 2 ? (ends.1 + 1)..<line.count : nil

        var count = 0
        var badCharacter = false
        // Whitespace ends the number after more than six digits in a row (`row`), at a tab, or
        // when what follows up to the next whitespace is not digits and dashes. That last is
        // found by reading on: a space that may join two groups is `pending`, with the count as
        // it was there; a byte of another kind before the next whitespace takes the number back
        // to it and ends it there (one pass, no looking back or ahead).
        var row = 0
        var endsAt = -1
        var pending = -1
        var pendingCount = 0
        var pendingBad = false
        for i in 0..<numberEnd {
            let byte = line[i]
            if byte &- 48 < 10 {
                if count < CardPolicy.longestNumber { result.storedDigits[count] = byte &- 48 }
                count += 1
                row += 1
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                pending = -1  // what followed the space before was digits and dashes
                if count > 0 {
                    if byte == UInt8(ascii: "\t") || row > 6 {
                        endsAt = i
                        break
                    }
                    (pending, pendingCount, pendingBad) = (i, count, badCharacter)
                }
                row = 0
            } else if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\r") {
                row = 0
            } else if pending >= 0 {
                // Not digits and dashes after the space: the number ended there.
                (count, badCharacter) = (pendingCount, pendingBad)
                endsAt = pending
                break
            } else {
                badCharacter = true
                row = 0
            }
        }
        // The rest is more fields: within a comma field nothing may follow; on a line without
        // commas, the expiry and the code.
        if endsAt >= 0
            && !Self.splitFields(
                line, from: endsAt, to: numberEnd, commaSeparated: commas >= 1, expiry: &expiryRange,
                code: &codeRange)
        {
            result.add(.recordFormat)
        }
        result.digitCount = count
        guard count > 0 else {
            result.add(.recordFormat)
            return result
        }
        if badCharacter { result.add(.numberFormat) }
        decide(&result)
        if let expiryRange { checkExpiry(line, expiryRange, &result) }
        if let codeRange {
            var length = 0
            var digitsOnly = true
            for i in codeRange {
                let byte = line[i]
                if byte &- 48 < 10 {
                    length += 1
                } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\r") {
                    digitsOnly = false
                }
            }
            result.codeLength = length
            if !digitsOnly {
                result.add(.cvvFormat)
            } else if !CardPolicy.securityCodeLengths(
                for: result.networkIndex >= 0 ? rules.networks[Int(result.networkIndex)] : nil
            ).contains(length) {
                result.add(.cvvLength)
            }
        }
        return result
    }

    /// The network and the verdict on the number `result` holds (`storedDigits`, `digitCount`).
    private func decide(_ result: inout Result) {
        let count = result.digitCount
        let kept = min(count, CardPolicy.longestNumber)
        var luhn = CardNumber.LuhnSums()
        for index in 0..<kept { luhn.append(result.storedDigits[index]) }
        // Every pattern's length reached (nearly every record): one look-up on one list, and the
        // deciding pattern's terms from `termedPatterns`.
        let wholeLength = wholeNumbers.length
        let verdict: CardPolicy.Verdict
        if wholeLength > 0 && count >= wholeLength {
            var prefix: UInt64 = 0
            for index in 0..<wholeLength { prefix = prefix &* 10 &+ UInt64(result.storedDigits[index]) }
            let whole = wholeNumbers.match(prefix: prefix)
            guard whole.owner >= 0 else { return result.add(.unknownNetwork) }
            let terms = terms(owner: whole.owner, decidingLength: whole.decidingLength, prefix: prefix)
            result.record = terms.record
            result.networkIndex = records[Int(terms.record)].network
            verdict = CardPolicy.verdict(
                count: count, lengths: whole.lengths, requiresLuhn: terms.luhn, passesLuhn: luhn.passes)
        } else {
            let typed = result.digits
            let found = rules.match(typed.span)
            if found.owner >= 0 {
                let owner = Int(found.owner)
                let entry =
                    anyCoBadges
                    ? rules.networks[owner].terms(of: typed, decidingLength: found.decidingLength)?.coBadge : nil
                result.record = entry.flatMap { coBadgeRecords[owner][$0] } ?? found.owner
                result.networkIndex = records[Int(result.record)].network
            }
            verdict = CardPolicy.verdict(
                typed, count: count, network: found.owner >= 0 ? rules.networks[Int(found.owner)] : nil,
                hasCandidates: found.hasCandidates, lengths: found.lengths, decidingLength: found.decidingLength)
        }
        if result.networkIndex >= 0 && !taken[Int(result.networkIndex)] { result.add(.networkNotAccepted) }
        switch verdict {
        case .valid: break
        // A prefix of some network that is not decided yet is too short.
        case .undecided, .wrongLength: result.add(.length)
        case .noNetwork: result.add(.unknownNetwork)
        case .failsLuhn: result.add(.luhn)
        }
    }

    /// The fields after a number that whitespace ended at `start`: in a comma-separated record
    /// the rest of the number's field must be blank; on a line without commas its words are the
    /// expiry and the code. False when there is more than that (a `record_format` problem).
    private static func splitFields(
        _ line: Span<UInt8>, from start: Int, to end: Int, commaSeparated: Bool,
        expiry: inout Range<Int>?, code: inout Range<Int>?
    ) -> Bool {
        func isBlank(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        }
        var words = 0
        var i = start
        while i < end {
            if isBlank(line[i]) {
                i += 1
                continue
            }
            let wordStart = i
            while i < end && !isBlank(line[i]) { i += 1 }
            words += 1
            if commaSeparated { continue }
            if words == 1 { expiry = wordStart..<i } else if words == 2 { code = wordStart..<i }
        }
        return commaSeparated ? words == 0 : words <= 2
    }

    /// `MM/YY` or `MM/YYYY`, spaces around allowed.
    private func checkExpiry(_ line: Span<UInt8>, _ range: Range<Int>, _ result: inout Result) {
        var digits = 0
        var month = 0
        var year = 0
        var monthDigits = -1
        for i in range {
            let byte = line[i]
            if byte &- 48 < 10 {
                digits += 1
                if monthDigits < 0 {
                    month = month * 10 + Int(byte &- 48)
                } else {
                    year = year * 10 + Int(byte &- 48)
                }
            } else if byte == UInt8(ascii: "/") && monthDigits < 0 {
                monthDigits = digits
            } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\r") {
                return result.add(.expiryFormat)
            }
            if digits > 6 { return result.add(.expiryFormat) }
        }
        guard monthDigits == 2, digits == 4 || digits == 6 else { return result.add(.expiryFormat) }
        guard month >= 1 && month <= 12 else { return result.add(.expiryFormat) }
        let expiry = YearMonth(year: digits == 4 ? expiryPolicy.fullYear(year) : year, month: month)
        result.expiry = expiry
        switch expiryPolicy.check(expiry) {
        case .valid: break
        case .past: result.add(.expired)
        case .tooFar: result.add(.expiryTooFar)
        }
    }
}

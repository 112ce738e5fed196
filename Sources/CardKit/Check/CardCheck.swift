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
    /// Each network's id as JSON-ready bytes, by network index.
    let ids: [[UInt8]]
    /// Whether each network (by index) is taken; all are without an accepted set.
    private let taken: [Bool]
    /// Whether some network has `coBadged` entries (then a number it decides may be reported
    /// as another network: `reportedNetwork`).
    private let anyCoBadges: Bool
    /// The rules' patterns on one list, for numbers at least as long as the longest pattern.
    private let wholeNumbers: WholeNumberIndex
    /// The JSON between the line number and the number for each network and verdict:
    /// `,"network":"visa","valid":true,"number":"`, at `jsonHeadIndex`.
    let jsonHeads: [[UInt8]]
    /// The longest of `jsonHeads`: with it, the most bytes one JSON line can take.
    let longestJSONHead: Int
    /// The networks' patterns with terms of their own (`CardNetwork.patternTerms`: a
    /// `lengthsFor` Luhn check or a `coBadged` entry), network after network, each network's
    /// in `patternTerms` order from `termedStarts[index]` to `termedStarts[index + 1]` (none
    /// for most): a whole number finds its deciding pattern's terms here by comparing
    /// integers, where `CardNetwork.terms(of:)` matched the patterns' digits twice a record
    /// (for the reported network and for Luhn: about 700 instructions a record on the bench's
    /// file). One flat list: an array per network was retained and released on every record.
    private let termedPatterns: [TermedPattern]
    private let termedStarts: [Int32]
    /// Whether each network (by index) checks Luhn where no pattern's terms say otherwise.
    private let luhns: [Bool]

    /// A pattern with terms of its own and what they decide for the numbers it decides: the
    /// network reported (`reportedNetwork`, asked once of the lowest prefix of a pattern with
    /// the same `coBadged` entry) and whether Luhn is checked (the terms' `luhn`, which
    /// `CardNetwork.requiresLuhn` gives for them: a rule file whose patterns of one length
    /// overlap with other terms is refused).
    private struct TermedPattern: Sendable {
        /// The pattern's length, and its range widened to the whole-number index's length
        /// (compared with a whole number's prefix without a division).
        let length: Int, low: UInt64, high: UInt64
        let reported: Int32
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
        var heads: [[UInt8]] = []
        for id in [nil] + ids {
            let network = id.map { [UInt8(ascii: "\"")] + $0 + [UInt8(ascii: "\"")] } ?? Array("null".utf8)
            for valid in ["false", "true"] {
                heads.append(Array(#","network":"#.utf8) + network + Array(#","valid":\#(valid),"number":""#.utf8))
            }
        }
        jsonHeads = heads
        longestJSONHead = heads.map(\.count).max() ?? 0
        luhns = rules.networks.map(\.luhn)
        var termed: [TermedPattern] = []
        var starts: [Int32] = [0]
        for (index, network) in rules.networks.enumerated() {
            // The network reported for each `coBadged` entry, asked once per entry (asking per
            // pattern matched every termed pattern against every other: 5M instructions at start).
            var reportedFor: [Int: Int32] = [:]
            for terms in network.patternTerms {
                let pattern = network.patterns[terms.pattern]
                var reported = Int32(index)
                if let entry = terms.coBadge {
                    reported =
                        reportedFor[entry]
                        ?? Self.reportedNetwork(
                            pattern.low, owner: Int32(index), decidingLength: pattern.length,
                            rules: rules, taken: taken)
                    reportedFor[entry] = reported
                }
                let scale = pow10[max(wholeNumbers.length - pattern.length, 0)]
                termed.append(
                    TermedPattern(
                        length: pattern.length, low: pattern.lowValue &* scale,
                        high: (pattern.highValue &+ 1) &* scale &- 1,
                        reported: reported, luhn: terms.luhn))
            }
            starts.append(Int32(termed.count))
        }
        termedPatterns = termed
        termedStarts = starts
    }

    /// The network a whole number that `owner` decides by its pattern of `decidingLength`
    /// digits is reported as, and whether Luhn is checked: the terms of that pattern when it
    /// has some (`termedPatterns`), else `owner` itself and its own `luhn`. `prefix` is the
    /// number's first `wholeNumbers.length` digits, at least as many as any pattern has.
    @inline(__always)
    private func terms(owner: Int32, decidingLength: Int, prefix: UInt64) -> (reported: Int32, luhn: Bool) {
        let first = Int(termedStarts[Int(owner)])
        let end = Int(termedStarts[Int(owner) &+ 1])
        if first == end { return (owner, luhns[Int(owner)]) }
        return termsOfTermedPattern(first..<end, owner: owner, decidingLength: decidingLength, prefix: prefix)
    }

    /// `terms` for a network some of whose patterns have terms: the first such pattern of
    /// `decidingLength` digits that holds the number, as `CardNetwork.terms(of:)` finds it.
    private func termsOfTermedPattern(_ range: Range<Int>, owner: Int32, decidingLength: Int, prefix: UInt64) -> (
        reported: Int32, luhn: Bool
    ) {
        for index in range {
            let pattern = termedPatterns[index]
            if pattern.length == decidingLength && pattern.low <= prefix && prefix <= pattern.high {
                return (pattern.reported, pattern.luhn)
            }
        }
        return (owner, luhns[Int(owner)])
    }

    /// The network (by index) a number that `networks[owner]` decides is reported as: for a
    /// co-badged card, the first of its networks taken here (`Detection.networks(takenBy:)`),
    /// as the prompt delivers it; else `owner`.
    @usableFromInline func reportedNetwork(_ digits: UnsafeBufferPointer<UInt8>, owner: Int32, decidingLength: Int)
        -> Int32
    {  // unsafe: `check`'s digits
        Self.reportedNetwork(digits, owner: owner, decidingLength: decidingLength, rules: rules, taken: taken)
    }

    /// `reportedNetwork` for `rules` with the networks `taken`.
    private static func reportedNetwork(
        _ digits: some Collection<UInt8>, owner: Int32, decidingLength: Int, rules: RuleSet, taken: [Bool]
    ) -> Int32 {
        let partners = rules.coBadged(digits, owner: Int(owner), decidingLength: decidingLength)
        guard !partners.isEmpty else { return owner }
        let detection = Detection(
            network: rules.networks[Int(owner)], hasCandidates: true, maxLength: 0, decidingLength: decidingLength,
            lengths: LengthSet(mask: 0), coBadged: partners)
        let index = { (network: CardNetwork) in rules.networks.firstIndex { $0 === network } }
        guard let first = detection.networks(takenBy: { index($0).map { taken[$0] } ?? false }).first,
            let at = index(first)
        else { return owner }
        return Int32(at)
    }

    /// How many digits a masked number shows from its start at most (`CardPolicy.shownDigits`).
    @inline(__always) static var leadingShown: Int { CardPolicy.shownDigits(count: CardPolicy.longestNumber).first }

    /// Where a result's JSON head is in `jsonHeads`.
    @inline(__always)
    func jsonHeadIndex(_ result: Result) -> Int {
        Int(result.networkIndex + 1) &* 2 &+ (result.valid ? 1 : 0)
    }

    /// The verdict on one record. Holds the number (for masked output), never the code.
    public struct Result: Sendable {
        /// Index into the rule set's networks, or -1.
        public var networkIndex: Int32 = -1
        var problemBits: UInt16 = 0
        /// The first 19 digits of the number as a value, and how many digits there were.
        var numberValue: UInt64 = 0
        /// How many digits the number had, counting any past the 19th.
        public var digitCount = 0
        /// The number's first eight digits (0–9), one a byte, the first lowest, zeros past the
        /// end of a shorter number: what a masked number shows from its start, written as one
        /// word (`ByteCursor.writeNumber`).
        var leadingDigits: UInt64 = 0
        /// The expiry as read, with a four-digit year; nil when there is none or it is malformed.
        public var expiry: YearMonth?
        /// Whether the number was decided by the whole-number index (one look-up), as every
        /// number at least as long as the longest pattern is, rather than level by level: what
        /// shows the fast path is the one taken.
        var decidedWhole = false

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
        public var digits: [UInt8] {
            let shown = min(digitCount, CardPolicy.longestNumber)
            var value = numberValue
            var digits = [UInt8](repeating: 0, count: shown)
            for i in stride(from: shown - 1, through: 0, by: -1) {
                digits[i] = UInt8(value % 10)
                value /= 10
            }
            return digits
        }
    }

    /// Checks one record (a line without its line break). A `truncated` line (one too long to
    /// hold, of which only the start is given) is a `record_format` problem whatever it holds.
    @inlinable public func check(_ line: Span<UInt8>, truncated: Bool = false) -> Result {
        // unsafe: the per-record hot loop (`check`'s plain records) reads the line without
        // bounds checks; the pointer lives only for this call. (Inlinable: no call between.)
        line.withUnsafeBufferPointer { check(bytes: $0, truncated: truncated) }
    }

    // unsafe: see above
    @usableFromInline func check(bytes line: UnsafeBufferPointer<UInt8>, truncated: Bool) -> Result {
        var result = Result()
        if truncated { result.add(.recordFormat) }
        // The three fields, found without an array: number, expiry, code.
        let words = UnsafeRawBufferPointer(line)  // unsafe: word loads within the line (`commas`, the number's digits)
        let (commas, ends) = Self.commas(in: words)
        if commas > 2 { result.add(.recordFormat) }
        let numberEnd = commas >= 1 ? ends.0 : line.count
        var expiryRange = commas >= 1 ? (ends.0 + 1)..<(commas >= 2 ? ends.1 : line.count) : nil
        var codeRange = commas >= 2 ? (ends.1 + 1)..<line.count : nil

        // unsafe: the digits on the stack, no allocation per record (the hot loop), and the
        // rule matcher takes them as a buffer pointer. Room for a word past the 19th digit
        // (a run of digits is stored eight bytes at a time).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CardPolicy.longestNumber + 8) { digits in
            // unsafe: digits stored and read a word at a time
            let digitWords = UnsafeMutableRawPointer(digits.baseAddress!)
            for offset in stride(from: 0, to: 24, by: 8) {
                digitWords.storeBytes(of: 0, toByteOffset: offset, as: UInt64.self)
            }
            var count = 0
            var badCharacter = false
            // Whitespace ends the number after more than six digits in a row (`row`), at a tab,
            // or when what follows up to the next whitespace is not digits and dashes. That last
            // is found by reading on: a space that may join two groups is `pending`, with the
            // count as it was there; a byte of another kind before the next whitespace takes
            // the number back to it and ends it there (one pass, no looking back or ahead).
            var row = 0
            var endsAt = -1
            var pending = -1
            var pendingCount = 0
            var pendingBad = false
            var i = 0
            while i < numberEnd {
                // The digits up to the next other byte, up to eight at once (`digitRun`), while
                // a word of the line is left and they are among the first 19: stored as they
                // are (their value and Luhn sums are taken below, a word at a time).
                if i &+ 8 <= line.count {
                    let word = UInt64(littleEndian: words.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    let (lanes, run) = Self.digitRun(word, inField: numberEnd &- i)
                    if run > 0 && count &+ run <= CardPolicy.longestNumber {
                        digitWords.storeBytes(of: lanes.littleEndian, toByteOffset: count, as: UInt64.self)
                        count &+= run
                        row &+= run
                        i &+= run
                        continue
                    }
                }
                let byte = line[i]
                if byte &- 48 < 10 {
                    if count < CardPolicy.longestNumber { digits[count] = byte &- 48 }
                    count &+= 1
                    row &+= 1
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
                i &+= 1
            }
            // The rest is more fields: within a comma field nothing may follow; on a line
            // without commas, the expiry and the code.
            if endsAt >= 0
                && !Self.splitFields(
                    line, from: endsAt, to: numberEnd, commaSeparated: commas >= 1,
                    expiry: &expiryRange, code: &codeRange)
            {
                result.add(.recordFormat)
            }
            result.digitCount = count
            guard count > 0 else {
                result.add(.recordFormat)
                return
            }
            if badCharacter { result.add(.numberFormat) }
            // The value of the (first 19) digits and their Luhn sums, eight digits at a time
            // (each word's digits moved to its top bytes, the bytes past the number shifted out).
            let kept = min(count, CardPolicy.longestNumber)
            var value: UInt64 = 0  // (locals: the result lives in memory)
            var luhn = CardNumber.LuhnSums()
            var at = 0
            while at < kept {
                let taken = min(kept &- at, 8)
                let lanes =
                    UInt64(littleEndian: digitWords.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                    &<< UInt64((8 &- taken) &* 8)
                value = value &* pow10[taken] &+ CardNumber.value(ofDigitLanes: lanes)
                luhn.append(lanes: lanes, count: taken)
                at &+= 8
            }
            result.numberValue = value
            // The first eight digits as one word (the masked output), and the whole-number
            // index's prefix from them (digit by digit when it is longer).
            let first = UInt64(littleEndian: digitWords.loadUnaligned(as: UInt64.self))
            let leading = kept >= 8 ? first : first & ((1 &<< UInt64(kept &* 8)) &- 1)
            result.leadingDigits = leading
            let wholeLength = wholeNumbers.length
            var wholePrefix: UInt64 = 0
            if wholeLength > 0 && count >= wholeLength {
                if wholeLength <= 8 {
                    wholePrefix = CardNumber.value(ofDigitLanes: leading &<< UInt64((8 &- wholeLength) &* 8))
                } else {
                    for index in 0..<wholeLength { wholePrefix = wholePrefix &* 10 &+ UInt64(digits[index]) }
                }
            }
            // unsafe: as above
            let typed = UnsafeBufferPointer(rebasing: digits[..<min(count, CardPolicy.longestNumber)])
            // Every pattern's length reached (nearly every record): one look-up on one list, and
            // the deciding pattern's terms from `termedPatterns`.
            let verdict: CardPolicy.Verdict
            if wholeLength > 0 && count >= wholeLength {
                let whole = wholeNumbers.match(prefix: wholePrefix)
                result.decidedWhole = true
                if whole.owner >= 0 {
                    let terms = terms(owner: whole.owner, decidingLength: whole.decidingLength, prefix: wholePrefix)
                    result.networkIndex = terms.reported
                    if !taken[Int(terms.reported)] { result.add(.networkNotAccepted) }
                    verdict = CardPolicy.verdict(
                        count: count, lengths: whole.lengths, requiresLuhn: terms.luhn, passesLuhn: luhn.passes)
                } else {
                    verdict = .noNetwork
                }
            } else {
                let found = rules.match(typed)
                if found.owner >= 0 {
                    result.networkIndex =
                        anyCoBadges
                        ? reportedNetwork(typed, owner: found.owner, decidingLength: found.decidingLength) : found.owner
                    if !taken[Int(result.networkIndex)] { result.add(.networkNotAccepted) }
                }
                verdict = CardPolicy.verdict(
                    typed, count: count, network: found.owner >= 0 ? rules.networks[Int(found.owner)] : nil,
                    hasCandidates: found.hasCandidates, lengths: found.lengths, decidingLength: found.decidingLength)
            }
            switch verdict {
            case .valid: break
            // A prefix of some network that is not decided yet is too short.
            case .undecided, .wrongLength: result.add(.length)
            case .noNetwork: result.add(.unknownNetwork)
            case .failsLuhn: result.add(.luhn)
            }
        }
        guard !result.has(.recordFormat) || result.digitCount > 0 else { return result }

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

    /// How many commas `line` holds and where the first two are (the line's end for those
    /// missing). Eight bytes a step: the comma bytes of a word found with bit arithmetic.
    @inline(__always)
    // unsafe: `check`'s line
    private static func commas(in line: UnsafeRawBufferPointer) -> (count: Int, ends: (Int, Int)) {
        var count = 0
        var ends = (line.count, line.count)
        @inline(__always) func found(_ at: Int) {
            count &+= 1
            if count == 1 { ends.0 = at } else if count == 2 { ends.1 = at }
        }
        var i = 0
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        while i &+ 8 <= line.count {
            // Each byte of `x` is zero where the line has a comma; `zero` has the high bit of
            // exactly those bytes.
            let x = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x2C2C_2C2C_2C2C_2C2C
            var zero = ~(((x & low7) &+ low7) | x | low7)
            while zero != 0 {
                found(i &+ zero.trailingZeroBitCount &>> 3)
                zero &= zero &- 1
            }
            i &+= 8
        }
        while i < line.count {
            if line[i] == UInt8(ascii: ",") { found(i) }
            i &+= 1
        }
        return (count, ends)
    }

    /// A word of a line's bytes (the first lowest) as digit values, one a byte (each byte xor
    /// `0`: 0–9 for a digit), and how many of them are digits before the first that is not
    /// or the end of the field, `inField` bytes on (8: all eight).
    @inline(__always)
    private static func digitRun(_ word: UInt64, inField: Int) -> (lanes: UInt64, run: Int) {
        let lanes = word ^ 0x3030_3030_3030_3030
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let highs: UInt64 = 0x8080_8080_8080_8080
        // The high bit of each byte that is not a digit: xor `0` made it 10 or more (its low
        // seven bits plus 0x76 reach 0x80, without a carry into the next byte), or it has the
        // high bit itself.
        var others = (((lanes & low7) &+ 0x7676_7676_7676_7676) | lanes) & highs
        if inField < 8 { others |= highs &<< UInt64(inField &* 8) }  // the bytes past the field end the run
        return (lanes, others.trailingZeroBitCount &>> 3)
    }

    /// The fields after a number that whitespace ended at `start`: in a comma-separated record
    /// the rest of the number's field must be blank; on a line without commas its words are the
    /// expiry and the code. False when there is more than that (a `record_format` problem).
    private static func splitFields(
        // unsafe: `check`'s line
        _ line: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, commaSeparated: Bool,
        expiry: inout Range<Int>?, code: inout Range<Int>?
    ) -> Bool {
        var words: [Range<Int>] = []
        var i = start
        while i < end {
            let byte = line[i]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                i += 1
                continue
            }
            let wordStart = i
            while i < end && line[i] != UInt8(ascii: " ") && line[i] != UInt8(ascii: "\t")
                && line[i] != UInt8(ascii: "\r")
            { i += 1 }
            words.append(wordStart..<i)
        }
        if commaSeparated { return words.isEmpty }
        if words.count >= 1 { expiry = words[0] }
        if words.count >= 2 { code = words[1] }
        return words.count <= 2
    }

    /// `MM/YY` or `MM/YYYY`, spaces around allowed.
    // unsafe: `check`'s line
    private func checkExpiry(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ result: inout Result) {
        // The month's digits and the year's apart (no division by a power of ten chosen at run time).
        var digits = 0
        var month = 0
        var year = 0
        var monthDigits = -1
        let start = range.lowerBound
        let length = range.count
        let m0 = length >= 5 ? line[start] &- 48 : 10
        let m1 = length >= 5 ? line[start &+ 1] &- 48 : 10
        if (length == 5 || length == 7) && m0 < 10 && m1 < 10 && line[start &+ 2] == UInt8(ascii: "/") {
            // `MM/YY` or `MM/YYYY` exactly (nearly every record): what the loop below reads of
            // them, without its turn a byte; any other byte in the year goes to the loop.
            month = Int(m0) &* 10 &+ Int(m1)
            monthDigits = 2
            digits = 2
            for i in (start &+ 3)..<range.upperBound {
                let digit = line[i] &- 48
                guard digit < 10 else { break }
                year = year &* 10 &+ Int(digit)
                digits &+= 1
            }
        }
        if monthDigits < 0 || digits != length &- 1 {
            (digits, month, year, monthDigits) = (0, 0, 0, -1)
            for i in range {
                let byte = line[i]
                if byte &- 48 < 10 {
                    digits &+= 1
                    if monthDigits < 0 {
                        month = month &* 10 &+ Int(byte &- 48)
                    } else {
                        year = year &* 10 &+ Int(byte &- 48)
                    }
                } else if byte == UInt8(ascii: "/") && monthDigits < 0 {
                    monthDigits = digits
                } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\r") {
                    return result.add(.expiryFormat)
                }
                if digits > 6 { return result.add(.expiryFormat) }
            }
        }
        guard monthDigits == 2, digits == 4 || digits == 6 else { return result.add(.expiryFormat) }
        let yearDigits = digits - 2
        guard month >= 1 && month <= 12 else { return result.add(.expiryFormat) }
        let expiry = YearMonth(year: yearDigits == 2 ? expiryPolicy.fullYear(year) : year, month: month)
        result.expiry = expiry
        switch expiryPolicy.check(expiry) {
        case .valid: break
        case .past: result.add(.expired)
        case .tooFar: result.add(.expiryTooFar)
        }
    }

}

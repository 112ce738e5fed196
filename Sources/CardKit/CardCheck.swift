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
    private let ids: [[UInt8]]
    /// Whether each network (by index) is taken; all are without an accepted set.
    private let taken: [Bool]
    /// Whether some network has `coBadged` entries (then a number it decides may be reported
    /// as another network: `reportedNetwork`).
    private let anyCoBadges: Bool

    /// A checker for `rules`; `accepted` makes numbers of other networks invalid
    /// (`network_not_accepted`).
    public init(rules: RuleSet, expiryPolicy: ExpiryPolicy, accepted: AcceptedNetworks? = nil) {
        self.rules = rules
        self.expiryPolicy = expiryPolicy
        ids = rules.networks.map { Array($0.id.utf8) }
        taken = rules.networks.map { accepted?.accepts($0) ?? true }
        anyCoBadges = rules.networks.contains(where: \.hasCoBadges)
    }

    /// The network (by index) a number that `networks[owner]` decides is reported as: for a
    /// co-badged card, the first of its networks taken here (`Detection.networks(takenBy:)`),
    /// as the prompt delivers it; else `owner`.
    @usableFromInline func reportedNetwork(_ digits: UnsafeBufferPointer<UInt8>, owner: Int32, decidingLength: Int) -> Int32 {  // unsafe: `check`'s digits
        let partners = rules.coBadged(digits, owner: Int(owner), decidingLength: decidingLength)
        guard !partners.isEmpty else { return owner }
        let detection = Detection(network: rules.networks[Int(owner)], hasCandidates: true, maxLength: 0, decidingLength: decidingLength,
                                  lengths: LengthSet(mask: 0), coBadged: partners)
        let index = { (network: CardNetwork) in rules.networks.firstIndex { $0 === network } }
        guard let first = detection.networks(takenBy: { index($0).map { taken[$0] } ?? false }).first, let at = index(first) else { return owner }
        return Int32(at)
    }

    /// Why a record is not valid. The raw values are the names printed in JSON output.
    public enum Problem: String, CaseIterable, Sendable {
        /// More than three comma-separated fields, no number at all, or a line over 1 MiB.
        case recordFormat = "record_format"
        /// The number holds something other than digits, spaces and dashes.
        case numberFormat = "number_format"
        /// No network matches the number.
        case unknownNetwork = "unknown_network"
        /// The network does not allow this many digits (or the number is too short to tell).
        case length
        /// The Luhn check digit is wrong (for networks that use it).
        case luhn
        /// The expiry is not `MM/YY` or `MM/YYYY` with a month 01–12.
        case expiryFormat = "expiry_format"
        /// The card expired before this month.
        case expired
        /// The expiry is more than the allowed years ahead (20).
        case expiryTooFar = "expiry_too_far"
        /// The security code is not digits.
        case cvvFormat = "cvv_format"
        /// The security code has the wrong number of digits for the network.
        case cvvLength = "cvv_length"
        /// The number belongs to a network that is not among the accepted ones (`--networks`).
        case networkNotAccepted = "network_not_accepted"

        /// The name of the problem whose bit is `1 << bit`, as a static string (no String made).
        static func quotedName(bit: UInt16) -> StaticString {
            switch bit {
            case 0: return "record_format"
            case 1: return "number_format"
            case 2: return "unknown_network"
            case 3: return "length"
            case 4: return "luhn"
            case 5: return "expiry_format"
            case 6: return "expired"
            case 7: return "expiry_too_far"
            case 8: return "cvv_format"
            case 9: return "cvv_length"
            default: return "network_not_accepted"
            }
        }

        /// The problem's bit in `Result`, in declaration (and output) order.
        var bit: UInt16 {
            switch self {
            case .recordFormat: return 1 << 0
            case .numberFormat: return 1 << 1
            case .unknownNetwork: return 1 << 2
            case .length: return 1 << 3
            case .luhn: return 1 << 4
            case .expiryFormat: return 1 << 5
            case .expired: return 1 << 6
            case .expiryTooFar: return 1 << 7
            case .cvvFormat: return 1 << 8
            case .cvvLength: return 1 << 9
            case .networkNotAccepted: return 1 << 10
            }
        }
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
        /// The expiry as read, with a four-digit year; nil when there is none or it is malformed.
        public var expiry: YearMonth?

        /// True when the record has no problems.
        public var valid: Bool { problemBits == 0 }
        /// The record's problems, in declaration (and output) order.
        public var problems: [Problem] { Problem.allCases.filter { problemBits & $0.bit != 0 } }
        /// True when the record has `problem`.
        public func has(_ problem: Problem) -> Bool { problemBits & problem.bit != 0 }
        mutating func add(_ problem: Problem) { problemBits |= problem.bit }

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

    @usableFromInline func check(bytes line: UnsafeBufferPointer<UInt8>, truncated: Bool) -> Result {  // unsafe: see above
        var result = Result()
        if truncated { result.add(.recordFormat) }
        // The three fields, found without an array: number, expiry, code.
        var ends = (line.count, line.count)
        var commas = 0
        for i in 0..<line.count where line[i] == UInt8(ascii: ",") {
            commas += 1
            if commas == 1 { ends.0 = i } else if commas == 2 { ends.1 = i }
        }
        if commas > 2 { result.add(.recordFormat) }
        let numberEnd = commas >= 1 ? ends.0 : line.count
        var expiryRange = commas >= 1 ? (ends.0 + 1)..<(commas >= 2 ? ends.1 : line.count) : nil
        var codeRange = commas >= 2 ? (ends.1 + 1)..<line.count : nil

        // unsafe: the digits on the stack, no allocation per record (the hot loop), and the
        // rule matcher and the Luhn check take them as a buffer pointer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CardPolicy.longestNumber) { digits in
            var count = 0
            var badCharacter = false
            var i = 0
            while i < numberEnd {
                let byte = line[i]
                if byte &- 48 < 10 {
                    if count < CardPolicy.longestNumber {
                        digits[count] = byte - 48
                        result.numberValue = result.numberValue &* 10 &+ UInt64(byte - 48)
                    }
                    count += 1
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    if count > 0 && Self.endsNumber(line, at: i, before: numberEnd) {
                        // The rest is more fields: within a comma field nothing may follow;
                        // on a line without commas, the expiry and the code.
                        if !Self.splitFields(line, from: i, to: numberEnd, commaSeparated: commas >= 1,
                                             expiry: &expiryRange, code: &codeRange) {
                            result.add(.recordFormat)
                        }
                        break
                    }
                } else if byte != UInt8(ascii: "-") && byte != UInt8(ascii: "\r") {
                    badCharacter = true
                }
                i += 1
            }
            result.digitCount = count
            guard count > 0 else {
                result.add(.recordFormat)
                return
            }
            if badCharacter { result.add(.numberFormat) }
            let typed = UnsafeBufferPointer(rebasing: digits[..<min(count, CardPolicy.longestNumber)])  // unsafe: as above
            let found = rules.match(typed)
            if found.owner >= 0 {
                result.networkIndex = anyCoBadges ? reportedNetwork(typed, owner: found.owner, decidingLength: found.decidingLength) : found.owner
                if !taken[Int(result.networkIndex)] { result.add(.networkNotAccepted) }
            }
            switch CardPolicy.verdict(typed, count: count, network: found.owner >= 0 ? rules.networks[Int(found.owner)] : nil,
                                      hasCandidates: found.hasCandidates, lengths: found.lengths, decidingLength: found.decidingLength) {
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
                if byte &- 48 < 10 { length += 1 } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\r") { digitsOnly = false }
            }
            if !digitsOnly {
                result.add(.cvvFormat)
            } else if !CardPolicy.securityCodeLengths(for: result.networkIndex >= 0 ? rules.networks[Int(result.networkIndex)] : nil).contains(length) {
                result.add(.cvvLength)
            }
        }
        return result
    }

    /// Whether the whitespace at `index` ends the number rather than joining two of its groups:
    /// a tab always does, a space does after more than six digits in a row or when what follows
    /// (up to the next whitespace) is not digits and dashes. Blank space before the end of the
    /// field joins nothing and ends nothing.
    /// (Off the plain records' hot loop: the digits in a row are counted back from here.)
    private static func endsNumber(_ line: UnsafeBufferPointer<UInt8>, at index: Int, before end: Int) -> Bool {  // unsafe: `check`'s line
        if line[index] == UInt8(ascii: "\t") { return true }
        var group = 0, back = index - 1
        while back >= 0 && line[back] &- 48 < 10 && group <= 6 {
            group += 1
            back -= 1
        }
        if group > 6 { return true }
        var next = index + 1
        while next < end && line[next] != UInt8(ascii: " ") && line[next] != UInt8(ascii: "\t") {
            let byte = line[next]
            if byte &- 48 >= 10 && byte != UInt8(ascii: "-") && byte != UInt8(ascii: "\r") { return true }
            next += 1
        }
        return false
    }

    /// The fields after a number that whitespace ended at `start`: in a comma-separated record
    /// the rest of the number's field must be blank; on a line without commas its words are the
    /// expiry and the code. False when there is more than that (a `record_format` problem).
    private static func splitFields(_ line: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, commaSeparated: Bool,  // unsafe: `check`'s line
                                    expiry: inout Range<Int>?, code: inout Range<Int>?) -> Bool {
        var words: [Range<Int>] = []
        var i = start
        while i < end {
            let byte = line[i]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                i += 1
                continue
            }
            let wordStart = i
            while i < end && line[i] != UInt8(ascii: " ") && line[i] != UInt8(ascii: "\t") && line[i] != UInt8(ascii: "\r") { i += 1 }
            words.append(wordStart..<i)
        }
        if commaSeparated { return words.isEmpty }
        if words.count >= 1 { expiry = words[0] }
        if words.count >= 2 { code = words[1] }
        return words.count <= 2
    }

    /// `MM/YY` or `MM/YYYY`, spaces around allowed.
    private func checkExpiry(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ result: inout Result) {  // unsafe: `check`'s line
        var digits = 0, value = 0, monthDigits = -1
        for i in range {
            let byte = line[i]
            if byte &- 48 < 10 {
                digits += 1
                value = value * 10 + Int(byte - 48)
            } else if byte == UInt8(ascii: "/") && monthDigits < 0 {
                monthDigits = digits
            } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\r") {
                return result.add(.expiryFormat)
            }
            if digits > 6 { return result.add(.expiryFormat) }
        }
        guard monthDigits == 2, digits == 4 || digits == 6 else { return result.add(.expiryFormat) }
        let yearDigits = digits - 2
        let divisor = yearDigits == 2 ? 100 : 10_000
        let month = value / divisor, year = value % divisor
        guard month >= 1 && month <= 12 else { return result.add(.expiryFormat) }
        let expiry = YearMonth(year: yearDigits == 2 ? expiryPolicy.fullYear(year) : year, month: month)
        result.expiry = expiry
        switch expiryPolicy.check(expiry) {
        case .valid: break
        case .past: result.add(.expired)
        case .tooFar: result.add(.expiryTooFar)
        }
    }

    // MARK: - Output

    /// Appends one JSON Lines object:
    /// `{"line":3,"network":"visa","valid":false,"number":"411111******1111","expiry":"2030-12","errors":["luhn"]}`.
    /// The number is masked to first six and last four with `*` unless `unmasked`; the code
    /// never appears.
    public func appendJSON(_ result: Result, line: Int, unmasked: Bool, to out: inout [UInt8]) {
        // Written into a buffer on the stack with a cursor, then appended to `out` once: one
        // `append(contentsOf:)` per piece cost more than the checking itself.
        let id = result.networkIndex >= 0 ? ids[Int(result.networkIndex)] : []
        // unsafe: the JSON Lines hot path (measured): a cursor into a stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512 + id.count) { buffer in
            var bytes = ByteCursor(buffer.baseAddress!)
            bytes.write(#"{"line":"#)
            bytes.writeDecimal(UInt64(line))
            bytes.write(#","network":"#)
            if result.networkIndex >= 0 {
                bytes.write(UInt8(ascii: "\""))
                bytes.write(id)
                bytes.write(UInt8(ascii: "\""))
            } else {
                bytes.write("null")
            }
            bytes.write(result.valid ? #","valid":true,"number":""# : #","valid":false,"number":""#)
            bytes.writeNumber(result, unmasked: unmasked, masking: UInt8(ascii: CardPolicy.machineMask))
            bytes.write(UInt8(ascii: "\""))
            if let expiry = result.expiry {
                bytes.write(#","expiry":""#)
                bytes.writeDecimal(UInt64(max(expiry.year, 0)))
                bytes.write(UInt8(ascii: "-"))
                if expiry.month < 10 { bytes.write(UInt8(ascii: "0")) }
                bytes.writeDecimal(UInt64(max(expiry.month, 0)))
                bytes.write(UInt8(ascii: "\""))
            }
            bytes.write(#","errors":["#)
            var first = true
            var bits = result.problemBits
            while bits != 0 {
                let bit = UInt16(bits.trailingZeroBitCount)
                bits &= bits - 1
                if !first { bytes.write(UInt8(ascii: ",")) }
                first = false
                bytes.write(UInt8(ascii: "\""))
                bytes.write(Problem.quotedName(bit: bit))
                bytes.write(UInt8(ascii: "\""))
            }
            bytes.write("]}\n")
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: bytes.count))  // unsafe: the bytes written
        }
    }

    /// Appends a line for people: `line 3: 411111******1111  visa  invalid (luhn)`. Masked with
    /// `*` as in the JSON: `check`'s lines are records, in every format (README, "Security: what is kept, and where").
    public func appendText(_ result: Result, line: Int, unmasked: Bool, to out: inout [UInt8]) {
        out.append(contentsOf: "line ".utf8)
        out.appendDecimal(line)
        out.append(contentsOf: ": ".utf8)
        appendNumber(result, unmasked: unmasked, masking: UInt8(ascii: CardPolicy.machineMask), to: &out)
        out.append(contentsOf: "  ".utf8)
        out.append(contentsOf: result.networkIndex >= 0 ? ids[Int(result.networkIndex)] : Array("no network".utf8))
        out.append(contentsOf: result.valid ? "  valid\n".utf8 : "  invalid (".utf8)
        if !result.valid {
            out.append(contentsOf: result.problems.map(\.rawValue).joined(separator: ", ").utf8)
            out.append(contentsOf: ")\n".utf8)
        }
    }

    /// The number's digits, masked to first six and last four unless `unmasked`: built in a
    /// buffer on the stack and appended in one go.
    private func appendNumber(_ result: Result, unmasked: Bool, masking: UInt8, to out: inout [UInt8]) {
        // unsafe: the cursor that writes the JSON's number, into a stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CardPolicy.longestNumber) { buffer in
            var bytes = ByteCursor(buffer.baseAddress!)
            bytes.writeNumber(result, unmasked: unmasked, masking: masking)
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: bytes.count))
        }
    }
}

extension [UInt8] {
    /// Appends a literal's UTF-8 bytes.
    @inline(__always) mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}

/// Writes bytes through a pointer into a buffer the caller sized (a JSON record is at most a
/// few hundred bytes plus the network id: 512 and the id always suffice).
struct ByteCursor {
    // unsafe: `check`'s JSON Lines hot path (measured): a pointer bump per byte, no bounds or
    // capacity checks; the caller's buffer is sized for the longest record.
    private let start: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>
    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        next = start
    }
    /// Bytes written so far.
    var count: Int { next - start }

    @inline(__always) mutating func write(_ byte: UInt8) {
        next.pointee = byte
        next += 1
    }

    @inline(__always) mutating func write(_ text: StaticString) {
        next.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        next += text.utf8CodeUnitCount
    }

    /// A network id's bytes.
    @inline(__always) mutating func write(_ bytes: [UInt8]) {
        next.update(from: bytes, count: bytes.count)
        next += bytes.count
    }

    /// A number's decimal digits, without recursion.
    @inline(__always) mutating func writeDecimal(_ value: UInt64) {
        var digits = 1, scan = value
        while scan >= 10 {
            scan /= 10
            digits += 1
        }
        var value = value
        for i in stride(from: digits - 1, through: 0, by: -1) {
            next[i] = UInt8(truncatingIfNeeded: value % 10) &+ 48
            value /= 10
        }
        next += digits
    }

    /// A record's number (its first 19 digits), masked as `CardPolicy.shownDigits` says with
    /// `masking` unless `unmasked`.
    @inline(__always) mutating func writeNumber(_ result: CardCheck.Result, unmasked: Bool, masking: UInt8) {
        let count = min(result.digitCount, CardPolicy.longestNumber)
        var value = result.numberValue
        for i in stride(from: count - 1, through: 0, by: -1) {
            next[i] = UInt8(truncatingIfNeeded: value % 10) &+ 48
            value /= 10
        }
        if !unmasked {
            for i in CardPolicy.shownDigits(count: count).hidden { next[i] = masking }
        }
        next += count
    }
}

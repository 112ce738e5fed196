/// The one home of the card domain's small rules. Every surface (the engine and its view, the
/// prompt's style, `check`, `replay`, the rules commands, the rule-file reader) asks here and
/// never restates them:
///
/// - number lengths: the lengths a card number can have (`numberLengths`, the rule files'
///   domain); whether a number of some length is complete is `LengthSet.completeness(of:)`,
///   and the longest a range allows `LengthSet.max`;
/// - the security code: its name and lengths for a network (`securityCode(for:)`) and the
///   lengths a rule file may give it (`securityCodeLengths`);
/// - grouping: how digits are split for display and the format hint (`grouped`, `hint`);
/// - masking: which digits of a number may be shown outside the live field (`shownDigits`;
///   `CardNumber+Masking.swift` applies it to free text);
/// - validity: whether a number is a complete, valid number of its network (`verdict`).
///
/// `rules/schema.json` states the two length domains for editors; a test holds it to these.
public enum CardPolicy {
    // MARK: - Number lengths

    /// The lengths a card number can have (ISO/IEC 7812: 8 to 19 digits): every length a rule
    /// file may list (`length` in rules/schema.json).
    public static let numberLengths: ClosedRange<Int> = 8...19

    /// The most digits a card number has.
    public static let longestNumber = numberLengths.upperBound

    // MARK: - Security code

    /// The lengths a network's security code may have (`cvv.length` in rules/schema.json).
    public static let securityCodeLengths: ClosedRange<Int> = 3...4

    /// The security code asked for on a card: its name and the lengths it may have.
    public struct SecurityCode: Equatable, Sendable {
        /// `CVV`, `CVC`, `CID`, …
        public var name: String
        /// The lengths it may have: the network's one length, or every length a rule file may
        /// give one while the network is not known.
        public var lengths: ClosedRange<Int>

        /// The most digits it may have.
        public var maxLength: Int { lengths.upperBound }

        /// Whether `count` digits make a whole code.
        public func accepts(_ count: Int) -> Bool { lengths.contains(count) }

        /// "3" or "3 or 4": how many digits it has, in words.
        public var lengthWords: String {
            lengths.count == 1
                ? "\(lengths.lowerBound)"
                : lengths.map(String.init).dropLast().joined(separator: ", ") + " or \(lengths.upperBound)"
        }

        /// What is wrong with a code of `count` digits, in words; nil when it is whole.
        public func problem(count: Int) -> String? {
            if count == 0 { return "the \(name) is empty" }
            return accepts(count) ? nil : "the \(name) has \(lengthWords) digits; this has \(count)"
        }
    }

    /// The name of the security code while the network is not known (and its badge).
    public static let unknownSecurityCodeName = "CVV"

    /// The security code on `network`'s cards; with no network, `CVV` of any length a rule
    /// file may give.
    public static func securityCode(for network: CardNetwork?) -> SecurityCode { securityCode(network?.cvv) }

    /// The security code a rule file describes (nil: the network is not known).
    public static func securityCode(_ code: CardNetwork.SecurityCode?) -> SecurityCode {
        SecurityCode(name: code?.name ?? unknownSecurityCodeName, lengths: securityCodeLengths(code?.length))
    }

    /// The lengths of a security code a rule file gives `length` digits (nil: the network is
    /// not known, so any length a rule file may give).
    @inline(__always)
    public static func securityCodeLengths(_ length: Int?) -> ClosedRange<Int> {
        guard let length else { return securityCodeLengths }
        return length...length
    }

    /// `securityCode(for: network).lengths` without making the name (the engine asks on every
    /// key of the code, `check` on every record).
    @inline(__always)
    public static func securityCodeLengths(for network: CardNetwork?) -> ClosedRange<Int> {
        securityCodeLengths(network?.cvv.length)
    }

    // MARK: - Grouping

    /// The groups a number is shown in while no single network matches: `#### #### #### ####`.
    public static let unknownNetworkGroups = groupsOfFour(upTo: 16)

    /// Groups of four covering `length` digits: how a network without `groups` is shown.
    public static func groupsOfFour(upTo length: Int) -> [Int] { Array(repeating: 4, count: (length + 3) / 4) }

    /// The groups `network`'s numbers are shown in (`unknownNetworkGroups` for none).
    @inline(__always)
    public static func groups(for network: CardNetwork?, count: Int) -> [Int] {
        network?.groups(forCount: count) ?? unknownNetworkGroups
    }

    /// The digits split into display groups: "3782 822463 10005". Digits past the last
    /// group form one more group.
    public static func grouped(_ digits: [UInt8], groups: [Int]) -> String {
        // Exactly the length needed: up to 15 bytes make a small string, with no allocation
        // (the prompt groups the number after every key).
        let length = groupedLength(digits.count, groups: groups)
        // unsafe: writes the string's bytes in place, no array in between (every key's view).
        return String(unsafeUninitializedCapacity: length) { buffer in
            var written = 0
            forEachGrouped(digits, groups: groups) { byte in
                buffer[written] = byte
                written += 1
            }
            return written
        }
    }

    /// Calls `body` with each byte of the grouped digits in turn: an ASCII digit, or the space
    /// between two groups.
    @inline(__always)
    static func forEachGrouped(_ digits: some Sequence<UInt8>, groups: [Int], _ body: (UInt8) -> Void) {
        var groupIndex = 0
        var left = groups.first ?? Int.max
        for digit in digits {
            if left == 0 {
                body(UInt8(ascii: " "))
                groupIndex += 1
                // Past the last group, the rest of the digits form one more group.
                left = groupIndex < groups.count ? groups[groupIndex] : Int.max
            }
            body(digit + 48)
            left -= 1
        }
    }

    /// How many characters `count` digits take grouped by `groups` (digits and spaces).
    public static func groupedLength(_ count: Int, groups: [Int]) -> Int {
        var spaces = 0
        var boundary = 0
        for group in groups {
            boundary += group
            guard boundary < count else { break }
            spaces += 1
        }
        return count + spaces
    }

    /// The format hint for groups: "#### ###### #####".
    public static func hint(groups: [Int]) -> String {
        // Every network is given one at load: the usual groups share one string, others are
        // written as bytes (`map` and `joined` cost ~5k instructions a network).
        groups == unknownNetworkGroups ? unknownNetworkHint : makeHint(groups: groups)
    }

    /// The format hint while no single network matches: `#### #### #### ####`.
    public static let unknownNetworkHint = makeHint(groups: unknownNetworkGroups)

    private static func makeHint(groups: [Int]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(groups.reduce(groups.count) { $0 + max($1, 0) })
        for (index, group) in groups.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: " ")) }
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "#"), count: max(group, 0)))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The widest a number field's text can be with the groups of no single network: the
    /// longest number in groups of four.
    public static let widestUnknownNumber = groupedLength(longestNumber, groups: unknownNetworkGroups)

    // MARK: - Masking

    /// How many digits a `count`-digit card number may show, from its start and from its end,
    /// anywhere but the live field and the output the caller asked for: first six and last four
    /// from 13 digits on; a shorter number at most half of its digits, the last ones first
    /// (12 → 2 + 4, 10 → 1 + 4, 8 → 0 + 4, 4 → 0 + 2). Every masking site asks here.
    @inline(__always)
    public static func shownDigits(count: Int) -> ShownDigits {
        if count >= 13 { return ShownDigits(first: 6, last: 4, count: count) }
        let half = count / 2
        let last = min(4, half)
        return ShownDigits(first: half - last, last: last, count: count)
    }

    /// Which digits of a number of `count` digits are shown: the first `first` and the last `last`.
    public struct ShownDigits: Equatable, Sendable {
        /// Digits shown from the start.
        public var first: Int
        /// Digits shown from the end.
        public var last: Int
        /// The number's digits.
        public var count: Int

        /// The positions (0-based) that are masked: every one between the first and the last shown.
        @inline(__always)
        public var hidden: Range<Int> { first..<(count - last) }

        /// Whether the digit at `position` (0-based) is shown; the others are masked.
        @inline(__always)
        public func shows(_ position: Int) -> Bool { !hidden.contains(position) }
    }

    /// The mark for a hidden digit in text people read (and for each digit of a security code).
    public static let mask: Unicode.Scalar = "•"
    /// The mark in machine-readable output (`check`, delivered JSON's `masked`).
    public static let machineMask: Unicode.Scalar = "*"

    /// The last digits a masked number shows (its last four; fewer below 8 digits): what
    /// `Visa •••• 1111` and the tray's `lastFour` name a card by.
    public static func lastShownDigits<Digits: Collection<UInt8>>(of digits: Digits) -> Digits.SubSequence {
        digits.suffix(shownDigits(count: digits.count).last)
    }

    /// The first digits a message may name a number being typed by (`no card network starts
    /// with 411111…`): no more than a whole masked number shows from its start.
    public static func leadingShownDigits<Digits: Collection<UInt8>>(of digits: Digits) -> Digits.SubSequence {
        digits.prefix(shownDigits(count: longestNumber).first)
    }

    // MARK: - Validity

    /// Whether the digits typed make a number of a network, and a complete, valid one.
    public enum Verdict: Equatable, Sendable {
        /// No network starts with these digits.
        case noNetwork
        /// More than one network is still possible (or none is decided yet).
        case undecided
        /// The network is known; the number is not of a length it allows: `.incomplete` (more
        /// digits can make one) or `.notALength`.
        case wrongLength(Completeness)
        /// Of a valid length (`.final` or `.completeCanGrow`), but the Luhn check digit is wrong.
        case failsLuhn(Completeness)
        /// Complete and valid: `.final` (it cannot grow) or `.completeCanGrow` (a longer valid
        /// number is still possible).
        case valid(Completeness)

        /// Whether the number is complete and valid.
        public var isValid: Bool {
            if case .valid = self { return true }
            return false
        }

        /// How the number's length stands, once its network is known.
        public var completeness: Completeness? {
            switch self {
            case .noNetwork, .undecided: return nil
            case .wrongLength(let c), .failsLuhn(let c), .valid(let c): return c
            }
        }
    }

    /// The verdict on `digits` (`count` of them: `digits` may hold only the first 19) whose
    /// detection found `network` (nil: none decided; `hasCandidates`: some still possible) by
    /// its pattern of `decidingLength` digits, with the `lengths` of the patterns still
    /// possible. The one rule for "valid": a complete length (`LengthSet.completeness`), then
    /// the Luhn check where the deciding pattern asks for it (`CardNetwork.requiresLuhn`: a
    /// `lengthsFor` or `coBadged` entry's `luhn`, else the network's). Bit arithmetic, and the
    /// Luhn sum only once the length is complete: it runs on every key.
    @inline(__always)
    public static func verdict(
        _ digits: some BidirectionalCollection<UInt8>, count: Int, network: CardNetwork?,
        hasCandidates: Bool, lengths: LengthSet, decidingLength: Int
    ) -> Verdict {
        guard let network else { return hasCandidates ? .undecided : .noNetwork }
        return verdict(
            digits, count: count, lengths: lengths,
            requiresLuhn: network.requiresLuhn(digits, decidingLength: decidingLength))
    }

    /// `verdict` on a number a network decides, with the deciding pattern's Luhn term
    /// (`CardNetwork.requiresLuhn`) already looked up (`check`'s whole-number path); asked for
    /// only once the length is complete.
    @inline(__always)
    static func verdict(
        _ digits: some BidirectionalCollection<UInt8>, count: Int, lengths: LengthSet,
        requiresLuhn: @autoclosure () -> Bool
    ) -> Verdict {
        verdict(count: count, lengths: lengths, requiresLuhn: requiresLuhn(), passesLuhn: CardNumber.passesLuhn(digits))
    }

    /// `verdict` with whether the digits pass Luhn asked of `passesLuhn` (`check` sums them
    /// while it reads them: `CardNumber.LuhnSums`); both asked only when they decide.
    @inline(__always)
    static func verdict(
        count: Int, lengths: LengthSet, requiresLuhn: @autoclosure () -> Bool,
        passesLuhn: @autoclosure () -> Bool
    ) -> Verdict {
        let completeness = lengths.completeness(of: count)
        guard completeness.isComplete else { return .wrongLength(completeness) }
        if requiresLuhn() && !passesLuhn() { return .failsLuhn(completeness) }
        return .valid(completeness)
    }
}

extension CardNetwork {
    /// `CVV 3`, `CID 4`: the network's security code as listings show it.
    public var securityCodeSummary: String {
        let code = CardPolicy.securityCode(for: self)
        return "\(code.name) \(code.lengthWords)"
    }
}

extension Detection {
    /// The verdict on `digits`, the digits this detection was made from.
    @inline(__always)
    public func verdict(_ digits: [UInt8]) -> CardPolicy.Verdict {
        CardPolicy.verdict(
            digits, count: digits.count, network: network, hasCandidates: hasCandidates, lengths: lengths,
            decidingLength: decidingLength)
    }
}

extension RuleSet {
    /// What these rules say of a whole number: its detection and the verdict on it.
    public func verdict(for digits: [UInt8]) -> (detection: Detection, verdict: CardPolicy.Verdict) {
        let detection = detect(digits)
        return (detection, detection.verdict(digits))
    }
}

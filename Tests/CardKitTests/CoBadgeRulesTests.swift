import Testing

@testable import CardKit

/// The rule-file side of co-badged cards and per-range Luhn checks (`coBadged`, `lengthsFor`
/// entries' `luhn`), on fixture rules written here: the bundled data is another helper's.
@Suite struct CoBadgeRulesTests {
    static let visa = """
        {"id": "visa", "name": "Visa", "logo": "VISA", "prefixes": ["4"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}
        """
    static let mastercard = """
        {"id": "mastercard", "name": "Mastercard", "logo": "MASTERCARD", "ranges": [["51", "55"]], "lengths": [16],
         "cvv": {"name": "CVC", "length": 3}}
        """
    /// Dankort: its own `5019`, and `4571` co-badged with Visa (with 19-digit cards too there).
    static let dankort = """
        {"id": "dankort", "name": "Dankort", "logo": "DANKORT", "prefixes": ["5019"], "lengths": [16],
         "coBadged": [{"with": ["visa"], "prefixes": ["4571"]},
                      {"with": ["visa", "mastercard"], "ranges": [["457200", "457299"]], "lengths": [16, 19]}],
         "cvv": {"name": "CVV", "length": 3}}
        """
    /// UnionPay: Luhn checked, except on `6221…` (an entry's `luhn: false`).
    static let unionpay = """
        {"id": "unionpay", "name": "UnionPay", "prefixes": ["62"], "lengths": [16, 19],
         "lengthsFor": [{"prefixes": ["6221"], "lengths": [16, 19], "luhn": false}], "cvv": {"name": "CVN", "length": 3}}
        """
    /// A network without the Luhn check whose one entry asks for it.
    static let private1 = """
        {"id": "store", "name": "Store", "prefixes": ["88"], "lengths": [16], "luhn": false,
         "lengthsFor": [{"prefixes": ["8800"], "lengths": [16], "luhn": true}], "cvv": {"name": "CVV", "length": 3}}
        """

    static func files(_ texts: [(String, String)]) -> [RuleSet.FileText] {
        texts.map { RuleSet.FileText(path: "fixture/\($0.0).json", bytes: Array($0.1.utf8)) }
    }

    static let set = try! RuleSet.load(folders: [
        files([
            ("visa", visa), ("mastercard", mastercard), ("dankort", dankort),
            ("unionpay", unionpay), ("store", private1),
        ])
    ])

    /// `body` followed by its Luhn check digit.
    static func luhnValid(_ body: String) -> String { body + String(CardNumber.luhnCheckDigit(for: digits(body))) }
    /// `body` followed by a wrong check digit.
    static func luhnInvalid(_ body: String) -> String {
        body + String((CardNumber.luhnCheckDigit(for: digits(body)) + 1) % 10)
    }

    @Test(arguments: [
        ("4111111111111111", ["visa"]),
        ("5019000000000004", ["dankort"]),
        ("4571000000000001", ["visa", "dankort"]),
        ("4572000000000000", ["visa", "mastercard", "dankort"]),
        ("5500000000000004", ["mastercard"]),
    ])
    func aNumbersNetworksAreTheCoBadgedOnesThenTheDecidingOne(number: String, ids: [String]) {
        let detection = Self.set.detect(digits(number))
        #expect(detection.networks.map(\.id) == ids)
        #expect(detection.network?.id == ids.last)
        #expect(detection.coBadged.map(\.id) == Array(ids.dropLast()))
    }

    @Test func aPartialNumberIsCoBadgedOnceItsPatternDecides() {
        #expect(Self.set.detect(digits("457")).networks.isEmpty)  // Visa `4` or Dankort `4571…`: undecided
        #expect(Self.set.detect(digits("4571")).networks.map(\.id) == ["visa", "dankort"])
        #expect(Self.set.detect(digits("4573")).networks.map(\.id) == ["visa"])
        #expect(Self.set.detect([]).coBadged.isEmpty)
    }

    @Test func aCoBadgedEntryHasTheFilesLengthsUnlessItGivesItsOwn() {
        #expect(Self.set.detect(digits("4571")).lengths.lengths == [16])
        #expect(Self.set.detect(digits("457250")).lengths.lengths == [16, 19])
        let nineteen = Self.luhnValid("457250000000000000")
        #expect(Self.set.verdict(for: digits(nineteen)).verdict == .valid(.final))
        #expect(
            Self.set.verdict(for: digits(Self.luhnValid("457100000000000000"))).verdict == .wrongLength(.notALength))
    }

    @Test func anEntrysLuhnDecidesForTheNumbersItsPatternDecides() {
        // 6221…: no Luhn check; other 62…: checked; the file's `luhn: false` with an entry's `true`.
        #expect(Self.set.verdict(for: digits(Self.luhnInvalid("622100000000000"))).verdict == .valid(.completeCanGrow))
        #expect(
            Self.set.verdict(for: digits(Self.luhnInvalid("622000000000000"))).verdict == .failsLuhn(.completeCanGrow))
        #expect(Self.set.verdict(for: digits(Self.luhnValid("622000000000000"))).verdict == .valid(.completeCanGrow))
        #expect(Self.set.verdict(for: digits(Self.luhnInvalid("880000000000000"))).verdict == .failsLuhn(.final))
        #expect(Self.set.verdict(for: digits(Self.luhnInvalid("881000000000000"))).verdict == .valid(.final))
    }

    @Test func checkUsesTheDecidingPatternsLuhnToo() {
        let checker = CardCheck(rules: Self.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        for (number, valid) in [
            (Self.luhnInvalid("622100000000000"), true), (Self.luhnInvalid("622000000000000"), false),
        ] {
            let bytes = Array(number.utf8)
            #expect(checker.check(bytes.span).valid == valid, "\(number)")
        }
    }

    @Test(
        arguments: [
            (nil, "4571000000000001", "visa", true), (["dankort"], "4571000000000001", "dankort", true),
            (["mastercard"], "4571000000000001", "visa", false), (nil, "4572000000000000", "visa", true),
            (["mastercard"], "4572000000000000", "mastercard", true), (["visa"], "5019000000000004", "dankort", false),
        ] as [([String]?, String, String, Bool)])
    func checkReportsACoBadgedCardAsThePromptDelivers(accepted: [String]?, number: String, network: String, valid: Bool)
    {
        let number = Self.luhnValid(String(number.dropLast()))
        let checker = CardCheck(
            rules: Self.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            accepted: accepted.map(AcceptedNetworks.init(ids:)))
        let bytes = Array(number.utf8)
        let result = checker.check(bytes.span)
        #expect(Self.set.networks[Int(result.networkIndex)].id == network)
        #expect(result.valid == valid)
        #expect(result.has(.networkNotAccepted) == !valid)
    }

    @Test func aNetworkWithoutTermsHasNone() throws {
        let visa = try #require(Self.set.network(id: "visa"))
        #expect(visa.patternTerms.isEmpty && visa.coBadges.isEmpty)
        let dankort = try #require(Self.set.network(id: "dankort"))
        #expect(
            dankort.coBadges == [
                CardNetwork.CoBadge(with: ["visa"], locations: dankort.coBadges[0].locations),
                CardNetwork.CoBadge(with: ["visa", "mastercard"], locations: dankort.coBadges[1].locations),
            ])
        #expect(dankort.patternTerms.map(\.pattern) == [1, 2])
        #expect(dankort.patternTerms.map(\.coBadge) == [0, 1])
    }

    @Test func aPartnerThatIsNotLoadedIsLeftOutWithAWarning() throws {
        let set = try RuleSet.load(folders: [Self.files([("visa", Self.visa), ("dankort", Self.dankort)])])
        #expect(set.detect(digits("4572000000000000")).networks.map(\.id) == ["visa", "dankort"])
        #expect(
            set.warnings.map(\.description) == [
                "fixture/dankort.json:3:33: warning: `coBadged.with` names `mastercard`, which no network loaded has (these cards are then of `dankort` alone)"
            ])
        // Visa disabled by a later folder: Dankort's 4571 cards are Dankort's alone.
        let disabled = try RuleSet.load(folders: [
            Self.files([("visa", Self.visa), ("dankort", Self.dankort)]),
            Self.files([("no-visa", #"{"id": "visa", "disabled": true}"#)]),
        ])
        #expect(disabled.detect(digits("4571000000000001")).networks.map(\.id) == ["dankort"])
    }

    @Test func aLengthsForEntryWithTheNetworksLengthsButItsOwnLuhnIsNotWarnedAbout() throws {
        let set = try RuleSet.load(folders: [Self.files([("unionpay", Self.unionpay)])])
        #expect(set.warnings.isEmpty)
        let same = Self.unionpay.replacingOccurrences(of: #""luhn": false"#, with: #""luhn": true"#)
        let warned = try RuleSet.load(folders: [Self.files([("unionpay", same)])])
        #expect(
            warned.warnings.map(\.message) == [
                "this `lengthsFor` entry has the network's own lengths; move its patterns to `prefixes` or `ranges`"
            ])
    }
}

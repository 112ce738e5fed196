import CardKit
import Testing

/// `RuleSet.sampleNumbers` (behind `rules sample`) and `unreachablePatterns` (behind the
/// reachability proof in `rules test` and `rules lint`).
@Suite struct SampleNumbersTests {

    /// Whether `check` finds the number a valid one of `id`.
    /// Valid, and decided by `id`: `check` names that network, or (for a co-badged pattern of
    /// a domestic network, reported as its international scheme) a partner on the same card.
    static func checksAs(_ number: [UInt8], _ id: String, in rules: RuleSet) -> Bool {
        let checker = CardCheck(rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        let bytes = Array(CardNumber.string(number).utf8)
        let result = checker.check(bytes.span)
        let detection = rules.detect(number)
        return result.valid && result.networkIndex >= 0 && detection.network?.id == id
            && detection.networks.map(\.id).contains(rules.networks[Int(result.networkIndex)].id)
    }

    @Test func theSameSeedGivesTheSameNumbersAndAnotherSeedOthers() throws {
        let visa = try #require(LengthsForTests.set.network(id: "visa"))
        let first = LengthsForTests.set.sampleNumbers(of: visa, count: 12, seed: 42)
        #expect(first.count == 12)
        #expect(LengthsForTests.set.sampleNumbers(of: visa, count: 12, seed: 42) == first)
        #expect(LengthsForTests.set.sampleNumbers(of: visa, count: 12, seed: 43) != first)
        // A shorter run is the start of a longer one with the same seed.
        #expect(Array(first.prefix(3)) == LengthsForTests.set.sampleNumbers(of: visa, count: 3, seed: 42))
    }

    /// Every pattern in turn, each number of a length its pattern allows, Luhn-valid, and
    /// found valid by `check` for that network.
    @Test(arguments: ["visa", "jcb"])
    func numbersCoverEveryPatternWithItsOwnLengths(id: String) throws {
        let set = LengthsForTests.set
        let network = try #require(set.network(id: id))
        let numbers = set.sampleNumbers(of: network, count: network.patterns.count * 3, seed: 9)
        #expect(numbers.count == network.patterns.count * 3)
        for (turn, number) in numbers.enumerated() {
            let index = turn % network.patterns.count
            #expect(
                network.patterns[index].match(number) == .full,
                "\(CardNumber.string(number)) outside \(network.patterns[index])")
            #expect(network.patternLengths[index].contains(number.count))
            #expect(CardNumber.passesLuhn(number))
            #expect(Self.checksAs(number, id, in: set), "\(CardNumber.string(number))")
            #expect(set.decidingPattern(set.detect(number), number) == network.patterns[index])
        }
        // Over three rounds, Visa's 4026 shows 13, 16 and 19 digits.
        if id == "visa" {
            let lengths = Set(
                numbers.enumerated().filter { $0.offset % network.patterns.count == 1 }.map(\.element.count))
            #expect(lengths == [13, 16, 19])
        }
    }

    /// Every network of the bundled rules: ten numbers, each `check`ed as that network.
    @Test func everyBundledNetworkSamplesAsItself() {
        let set = BundledRules.set
        #expect(!set.networks.isEmpty)
        for network in set.networks {
            let numbers = set.sampleNumbers(of: network, count: max(10, network.patterns.count), seed: 1)
            #expect(numbers.count == max(10, network.patterns.count), "\(network.id)")
            for number in numbers {
                #expect(Self.checksAs(number, network.id, in: set), "\(network.id): \(CardNumber.masked(number))")
            }
        }
    }

    @Test func theBundledRulesHaveNoUnreachablePattern() {
        #expect(BundledRules.set.unreachablePatterns().map(\.description) == [])
    }

    /// Numbers avoid the sub-ranges more specific patterns of other networks own, and a
    /// pattern they cover whole is reported where it stands, and skipped.
    @Test func shadowedPatternsAreReportedAndSkipped() throws {
        let text = """
            {"id": "broad", "name": "Broad", "prefixes": ["50", "51"], "luhn": false, "lengths": [16],
             "cvv": {"name": "CVV", "length": 3}}
            """
        let narrow = """
            {"id": "narrow", "name": "Narrow", "ranges": [["500", "509"], ["5100", "5198"]], "lengths": [16],
             "cvv": {"name": "CVV", "length": 3}}
            """
        let set = try RuleSet.load(folders: [
            [
                RuleSet.FileText(path: "f/broad.json", bytes: Array(text.utf8)),
                RuleSet.FileText(path: "f/narrow.json", bytes: Array(narrow.utf8)),
            ]
        ])
        #expect(
            set.unreachablePatterns().map(\.description) == [
                "f/broad.json:1:47: warning: pattern 50 of `broad` can never decide a number: more specific patterns of other networks (or of its own with other lengths) cover it at every length it allows"
            ])
        let broad = try #require(set.network(id: "broad"))
        let numbers = set.sampleNumbers(of: broad, count: 20, seed: 5)
        #expect(numbers.count == 20)
        // Only 5199… is left of 51.
        #expect(
            numbers.allSatisfy { CardNumber.string($0.prefix(4)) == "5199" }, "\(numbers.map { CardNumber.string($0) })"
        )
        #expect(numbers.allSatisfy { set.detect($0).network?.id == "broad" })
    }

    /// A network whose every pattern is covered: no numbers, and only the load-time warning.
    @Test func aHiddenNetworkYieldsNothing() throws {
        let hidden =
            #"{"id": "hidden", "name": "Hidden", "prefixes": ["5"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#
        let cover =
            #"{"id": "cover", "name": "Cover", "ranges": [["50", "59"]], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#
        let set = try RuleSet.load(folders: [
            [
                RuleSet.FileText(path: "cover.json", bytes: Array(cover.utf8)),
                RuleSet.FileText(path: "hidden.json", bytes: Array(hidden.utf8)),
            ]
        ])
        #expect(set.sampleNumbers(of: try #require(set.network(id: "hidden")), count: 5, seed: 1).isEmpty)
        #expect(set.unreachablePatterns().isEmpty)
        #expect(set.warnings.count == 1)
    }

    @Test(arguments: [
        ("402600000000", 1 as UInt8), ("7992739871", 3), ("0", 0), ("411111111111111", 1),
    ])
    func checkDigitMakesTheNumberPassLuhn(body: String, digit: UInt8) {
        #expect(CardNumber.luhnCheckDigit(for: digits(body)) == digit)
        #expect(CardNumber.passesLuhn(digits(body) + [digit]))
    }
}

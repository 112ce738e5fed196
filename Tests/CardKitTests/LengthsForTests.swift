import CardKit
import Testing

/// `lengthsFor` (lengths of one sub-range of a network) and `"status": "retired"`, on fixture
/// rules written here rather than the bundled data, which other work changes.
@Suite struct LengthsForTests {
    /// Visa as the issue describes it: 16 or 19 digits, 13 only for a few BINs; JCB with its
    /// legacy 15-digit ranges outside its main range; a retired network under Visa's `4`.
    static let visa = """
        {"id": "visa", "name": "Visa", "logo": "VISA", "prefixes": ["4"], "lengths": [16, 19],
         "lengthsFor": [{"prefixes": ["4026", "417500"], "ranges": [["450800", "450899"]], "lengths": [13, 16, 19]}],
         "cvv": {"name": "CVV", "length": 3}}
        """
    static let jcb = """
        {"id": "jcb", "name": "JCB", "ranges": [["3528", "3589"]], "lengths": [16, 17, 18, 19],
         "lengthsFor": [{"prefixes": ["2131", "1800"], "lengths": [15]}], "cvv": {"name": "CAV", "length": 3}}
        """
    static let switchCard = """
        {"id": "switch", "name": "Switch", "status": "retired", "prefixes": ["4903", "6759"], "lengths": [16, 18, 19],
         "cvv": {"name": "CVV", "length": 3}}
        """
    static let maestro = """
        {"id": "maestro", "name": "Maestro", "prefixes": ["6759"], "lengths": [12, 13, 14, 15, 16, 17, 18, 19],
         "cvv": {"name": "CVV", "length": 3}}
        """

    static func files(_ texts: [(String, String)]) -> [RuleSet.FileText] {
        texts.map { RuleSet.FileText(path: "fixture/\($0.0).json", bytes: Array($0.1.utf8)) }
    }

    static let set = try! RuleSet.load(folders: [files([("jcb", jcb), ("switch", switchCard), ("visa", visa)])])

    /// `body` followed by its Luhn check digit.
    static func luhnValid(_ body: String) -> String { body + String(CardNumber.luhnCheckDigit(for: digits(body))) }

    static func engine(_ rules: RuleSet = set) -> EntryEngine {
        EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
    }

    @Test(arguments: [
        ("4", [13, 16, 19]),  // 4026… could still come
        ("42", [16, 19]),  // decided by `4`, and no `lengthsFor` pattern can match any more
        ("41", [13, 16, 19]),  // 417500 still possible
        ("4026", [13, 16, 19]),
        ("4175", [13, 16, 19]),  // 417500 still possible
        ("4176", [16, 19]),
        ("450850", [13, 16, 19]),
        ("450900", [16, 19]),
        ("2131", [15]),
        ("35", [16, 17, 18, 19]),
        ("3", [16, 17, 18, 19]),
        ("", [13, 15, 16, 17, 18, 19]),  // nothing typed: every pattern is possible
    ])
    func detectionCarriesTheDecidingPatternsLengths(prefix: String, lengths: [Int]) {
        let detection = Self.set.detect(digits(prefix))
        #expect(detection.lengths.lengths == lengths)
        #expect(detection.maxLength == lengths.max())
    }

    @Test func aPatternOutsideTheMainOnesDetectsTheNetwork() {
        #expect(Self.set.detect(digits("1800")).network?.id == "jcb")
        #expect(Self.set.detect(digits("2131")).network?.id == "jcb")
        #expect(Self.set.network(id: "jcb")?.allLengths == [15, 16, 17, 18, 19])
        #expect(
            Self.set.network(id: "visa")?.patternLengths == [[16, 19], [13, 16, 19], [13, 16, 19], [13, 16, 19]])
    }

    @Test func thirteenDigitsAreValidOnlyInsideTheThirteenDigitRange() {
        // Inside 4026: valid at 13, and Enter takes it; it does not move on by itself.
        var inside = Self.engine()
        inside.type(Self.luhnValid("402612345678"))
        #expect(inside.field == .number)
        #expect(inside.view.progress == "13/19 (13 valid)")
        #expect(inside.problem(in: .number)?.text == nil)
        // Outside: 13 digits are not a Visa number.
        var outside = Self.engine()
        outside.type(Self.luhnValid("411112345678"))
        #expect(outside.view.progress == "13/19")
        #expect(outside.problem(in: .number)?.text == "a Visa number has 16 or 19 digits; this has 13")
    }

    @Test func sixteenDigitsWaitForEnterWhereNineteenArePossible() {
        for body in ["402612345678901", "411112345678901"] {
            var engine = Self.engine()
            engine.type(Self.luhnValid(body))
            #expect(engine.field == .number, "\(body)")
            #expect(engine.view.progress == "16/19 (16 valid)")
            _ = engine.handle(.enter)
            #expect(engine.field == .expiry, "\(body)")
            var nineteen = Self.engine()
            nineteen.type(Self.luhnValid(body + "123"))
            #expect(nineteen.field == .expiry, "\(body)123…: 19 digits, the longest, move on")
        }
    }

    @Test func aPatternsLongestLengthMovesOnAndCapsTheDigits() {
        // JCB 2131…: 15 digits is its only length: it moves on at 15, though JCB's 35… has up to 19.
        var engine = Self.engine()
        engine.type(String(Self.luhnValid("21310000000000").dropLast()))
        #expect(engine.view.progress == "14/15")
        engine.type(String(Self.luhnValid("21310000000000").last!))
        #expect(engine.field == .expiry)
        // A 16th digit is refused while the number is still in the field.
        var capped = Self.engine()
        capped.type("213100000000000")
        #expect(capped.numberDigits.count == 15)
        #expect(capped.handle(.character("1")).refusal?.text == "a JCB number has at most 15 digits")
    }

    @Test func checkUsesThePatternsLengths() {
        let checker = CardCheck(rules: Self.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        func problems(_ number: String) -> [CardCheck.Problem] {
            let bytes = Array(number.utf8)
            return checker.check(bytes.span).problems
        }
        #expect(problems(Self.luhnValid("402612345678")) == [])
        #expect(problems(Self.luhnValid("450899123456")) == [])
        #expect(problems(Self.luhnValid("411112345678")) == [.length])
        #expect(problems(Self.luhnValid("45090012345")) == [.length])
        #expect(problems(Self.luhnValid("21310000000000")) == [])
        #expect(problems(Self.luhnValid("213100000000000")) == [.length])
    }

    @Test func aRetiredNetworkTakesOnlyWhatItCoversFromAnActiveRange() throws {
        let range =
            #"{"id": "maestro", "name": "Maestro", "ranges": [["6750", "6769"]], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#
        let files = Self.files([("maestro", range), ("switch", Self.switchCard)])
        let set = try RuleSet.load(folders: [files], includeRetired: true)
        #expect(set.detect(digits("6759")).network?.id == "switch")
        #expect(set.detect(digits("6758")).network?.id == "maestro")
        #expect(set.detect(digits("6760")).network?.id == "maestro")
        #expect(set.detect(digits("6769")).network?.id == "maestro")
        #expect(try RuleSet.load(folders: [files]).detect(digits("6759")).network?.id == "maestro")
    }

    @Test func retiredNetworksAreReadButNotMatchedUnlessAskedFor() throws {
        let files = Self.files([("maestro", Self.maestro), ("switch", Self.switchCard), ("visa", Self.visa)])
        // Switch's 6759 ties with Maestro's: no error, since Switch is not matched.
        let set = try RuleSet.load(folders: [files])
        #expect(set.network(id: "switch") == nil)
        #expect(set.retired.map(\.id) == ["switch"])
        #expect(set.detect(digits("4903")).network?.id == "visa")
        #expect(set.detect(digits("6759")).network?.id == "maestro")
        // Asked for, it is matched, and it wins its tie with Maestro's 6759 (Maestro keeps the rest of 6).
        let withRetired = try RuleSet.load(folders: [files], includeRetired: true)
        #expect(withRetired.detect(digits("6759")).network?.id == "switch")
        #expect(withRetired.detect(digits("4903")).network?.id == "switch")

        let without = Self.files([("switch", Self.switchCard), ("visa", Self.visa)])
        let opted = try RuleSet.load(folders: [without], includeRetired: true)
        #expect(opted.retired.isEmpty)
        #expect(opted.detect(digits("4903")).network?.id == "switch")
        #expect(try set.includingRetired().detect(digits("6759")).network?.id == "switch")
    }

    @Test(arguments: [
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefixes": ["41"]}], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:77: error: missing required field `lengthsFor.lengths`"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"lengths": [13]}], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:77: error: a `lengthsFor` entry needs at least one IIN pattern in `prefixes` or `ranges`"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefix": ["41"], "lengths": [13]}], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:78: error: unknown field `lengthsFor.prefix`; did you mean `prefixes`?"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefixes": ["4x"], "lengths": [13]}], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:91: error: prefix \"4x\" must be one or more digits 0-9"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefixes": ["41"], "lengths": [7]}], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:110: error: length 7 is outside 8-19"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [["41"]], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:77: error: each `lengthsFor` entry is an object like {\"prefixes\": [\"4026\"], \"lengths\": [13, 16, 19]}, found an array"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefixes": ["4"], "lengths": [13]}], "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:91: error: pattern 4 of `x` overlaps its pattern 4 (1:39) with other lengths; make one of them more specific"
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "status": "gone", "cvv": {"name": "CVV", "length": 3}}"#,
            "bad.json:1:72: error: `status` must be \"active\" or \"retired\", found \"gone\""
        ),
        (
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefixes": ["41"], "lengths": [13, 16]}], "cvv": {"name": "CVV", "length": 3}}"#,
            ""
        ),
    ])
    func brokenEntriesGetLocatedMessages(text: String, expected: String) {
        do {
            let set = try RuleSet.load(folders: [[RuleSet.FileText(path: "bad.json", bytes: Array(text.utf8))]])
            #expect(expected.isEmpty, "accepted; expected \(expected)")
            #expect(set.warnings.isEmpty)
        } catch {
            #expect(error.errors.first?.description == expected, "\(error.description)")
        }
    }

    @Test func autoAdvanceListingAnEntrysLengthLoadsButHasNoEffect() throws {
        let text =
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "autoAdvance": [13], "lengthsFor": [{"prefixes": ["41"], "lengths": [13, 16]}], "cvv": {"name": "CVV", "length": 3}}"#
        let set = try RuleSet.load(folders: [[RuleSet.FileText(path: "x.json", bytes: Array(text.utf8))]])
        #expect(
            set.warnings.map(\.description) == [
                "x.json:1:77: warning: `autoAdvance` has no effect: a number moves on by itself only once no longer length of its pattern is possible, and Enter takes a shorter valid one; give ranges their own lengths with `lengthsFor`"
            ])
        var engine = Self.engine(set)
        engine.type(Self.luhnValid("411234567890"))
        #expect(engine.field == .number, "13 digits under 41 wait for Enter: 16 is possible")
    }

    @Test func anEntryWithTheNetworksOwnLengthsIsWorthAWarning() throws {
        let text =
            #"{"id": "x", "name": "X", "prefixes": ["4"], "lengths": [16], "lengthsFor": [{"prefixes": ["41"], "lengths": [16]}], "cvv": {"name": "CVV", "length": 3}}"#
        let set = try RuleSet.load(folders: [[RuleSet.FileText(path: "x.json", bytes: Array(text.utf8))]])
        #expect(
            set.warnings.map(\.description) == [
                "x.json:1:109: warning: this `lengthsFor` entry has the network's own lengths; move its patterns to `prefixes` or `ranges`"
            ])
    }
}

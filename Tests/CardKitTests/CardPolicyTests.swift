import CardKit
import Foundation
import Testing

/// `CardPolicy` is the one home of the domain's small rules. These tests put networks with
/// unusual rules (a 4-digit `CVX`, groups of 5-6-5, every length from 8 to 19, no Luhn) to
/// every surface and check that each says what the policy says: a surface with a copy of its
/// own (a CVV of 3 or 4, first six and last four written out, a Luhn check of its own) fails.
@Suite struct CardPolicyTests {
    /// Two made-up networks: `9…` with a 4-digit CVX and groups of 5-6-5 (16 digits, Luhn), and
    /// `8…` of any length the schema allows, without Luhn.
    static let rules: RuleSet = {
        let odd =
            #"{"id": "oddcard", "name": "Oddcard", "logo": "ODD", "prefixes": ["9"], "lengths": [16], "groups": [5, 6, 5], "cvv": {"name": "CVX", "length": 4, "side": "front"}}"#
        let any =
            #"{"id": "anylength", "name": "Anylength", "logo": "ANY", "prefixes": ["8"], "lengths": [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19], "cvv": {"name": "CVV", "length": 3}, "luhn": false}"#
        return try! RuleSet.load(folders: [
            [
                RuleSet.FileText(path: "odd/oddcard.json", bytes: Array(odd.utf8)),
                RuleSet.FileText(path: "odd/anylength.json", bytes: Array(any.utf8)),
            ]
        ])
    }()
    static let today = YearMonth(year: 2026, month: 11)

    static func engine() -> EntryEngine { EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: today)) }

    /// A Luhn-valid Oddcard number.
    static let oddNumber: [UInt8] = {
        let body = digits("912345678901234")
        return body + [CardNumber.luhnCheckDigit(for: body)]
    }()

    // MARK: - The schema agrees

    /// rules/schema.json tells editors the lengths a rule file may give; the loader takes
    /// `CardPolicy`'s. They must be the same.
    @Test func theSchemaStatesThePolicysLengthDomains() throws {
        let url = URL(fileURLWithPath: BundledRules.folder).appendingPathComponent("schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        let cvv = try #require((properties["cvv"] as? [String: Any])?["properties"] as? [String: Any])
        let cvvLengths = try #require((cvv["length"] as? [String: Any])?["enum"] as? [Int])
        #expect(cvvLengths == Array(CardPolicy.securityCodeLengths))
        let length = try #require((schema["$defs"] as? [String: Any])?["length"] as? [String: Any])
        #expect(length["minimum"] as? Int == CardPolicy.numberLengths.lowerBound)
        #expect(length["maximum"] as? Int == CardPolicy.numberLengths.upperBound)
    }

    /// The rule-file reader takes exactly the policy's security-code lengths and names them
    /// in its message.
    @Test(arguments: 1...6)
    func ruleFilesTakeThePolicysSecurityCodeLengths(length: Int) {
        let text =
            #"{"id": "x", "name": "X", "logo": "X", "prefixes": ["9"], "lengths": [16], "cvv": {"name": "CVV", "length": \#(length)}}"#
        let result = Result { try RuleSet.load(folders: [[RuleSet.FileText(path: "x.json", bytes: Array(text.utf8))]]) }
        if CardPolicy.securityCodeLengths.contains(length) {
            #expect((try? result.get())?.networks.first?.cvv.length == length)
        } else {
            let words = CardPolicy.securityCode(for: nil).lengthWords
            #expect(throws: (any Error).self) { try result.get() }
            if case .failure(let error) = result { #expect("\(error)".contains("must be \(words)")) }
        }
    }

    // MARK: - Security code

    /// The engine, its view and its messages, `check` and `:rules` all describe Oddcard's
    /// 4-digit CVX as the policy does.
    @Test func anUnusualSecurityCodeIsDescribedTheSameEverywhere() throws {
        let network = try #require(Self.rules.network(id: "oddcard"))
        let code = CardPolicy.securityCode(for: network)
        #expect(code.name == "CVX" && code.lengths == 4...4)
        var engine = Self.engine()
        _ = engine.handle(Key.typing(CardNumber.string(Self.oddNumber) + "1230"))
        #expect(engine.field == .cvv)
        let view = engine.view
        #expect(
            view.label == code.name && view.hint == String(repeating: "#", count: code.maxLength)
                && view.progress == "0/\(code.maxLength)")
        #expect(engine.help.text == "Type the 4-digit CVX on the front of the card; Enter submits.")
        // Three digits are not a code; the fourth is taken, a fifth refused.
        _ = engine.handle(Key.typing("123"))
        #expect(engine.problem(in: .cvv)?.text == code.problem(count: 3))
        #expect(engine.problem(in: .cvv)?.text.contains("CVX has 4 digits") == true)
        #expect(engine.handle(.character("4")).refusal?.text == nil)
        #expect(engine.handle(.character("5")).refusal?.text == "the CVX has 4 digits")
        #expect(engine.problem(in: .cvv)?.text == nil)
        // `:rules` lists it as the policy does.
        var listing = Self.engine()
        let rules = listing.handle(Key.typing(":rules") + [.enter]).flatMap(\.messages).map(\.text)
        #expect(rules.contains { $0.hasPrefix("oddcard") && $0.hasSuffix(network.securityCodeSummary) })
        #expect(network.securityCodeSummary == "CVX 4")
        // `check` takes exactly the lengths the policy gives, for a known network and an unknown one.
        let check = CardCheck(rules: Self.rules, expiryPolicy: ExpiryPolicy(today: Self.today))
        for length in 0...6 {
            let known = Self.check(
                check, CardNumber.string(Self.oddNumber) + ",12/30," + String(repeating: "7", count: length))
            #expect(known.has(.cvvLength) == !code.accepts(length), "oddcard \(length)")
            let unknown = Self.check(check, "1234567812345670,12/30," + String(repeating: "7", count: length))
            #expect(unknown.has(.cvvLength) == !CardPolicy.securityCode(for: nil).accepts(length), "unknown \(length)")
        }
    }

    static func check(_ check: CardCheck, _ line: String) -> CardCheck.Result {
        check.check(Array(line.utf8).span)
    }

    // MARK: - Grouping

    /// The live field, the format hint and the transcript group Oddcard's number 5-6-5.
    @Test func groupingComesFromThePolicy() {
        var engine = Self.engine()
        _ = engine.handle(Key.typing(CardNumber.string(Self.oddNumber.prefix(15))))
        let view = engine.view
        #expect(view.text == CardPolicy.grouped(Array(Self.oddNumber.prefix(15)), groups: [5, 6, 5]))
        #expect(view.text == "91234 567890 1234")
        #expect(view.hint == CardPolicy.hint(groups: [5, 6, 5]))
        #expect(view.transcriptLine.hasPrefix("Card number (##### ###### #####): 91234 5••••• 1234  [ODD 15/16]"))
        #expect(Self.engine().view.hint == CardPolicy.hint(groups: CardPolicy.unknownNetworkGroups))
        // A network without `groups`: fours, as many as its longest number needs.
        var any = Self.engine()
        _ = any.handle(Key.typing("8"))
        #expect(any.view.hint == CardPolicy.hint(groups: CardPolicy.groupsOfFour(upTo: 19)))
    }

    // MARK: - Masking

    /// Numbers of every length the schema allows are masked alike by the engine's field line,
    /// the accepted card, the tray, the card's JSON and `check`: as `CardPolicy.shownDigits` says.
    @Test(arguments: CardPolicy.numberLengths)
    func everySurfaceMasksAsThePolicySays(length: Int) throws {
        let number = (0..<length).map { UInt8(($0 * 7 + 8) % 10) }  // starts with 8: Anylength
        let shown = CardPolicy.shownDigits(count: length)
        let expected = String(number.enumerated().map { shown.shows($0.offset) ? Character(String($0.element)) : "•" })
        #expect(CardNumber.masked(number) == expected)
        var engine = Self.engine()
        let outcomes = engine.handle(
            Key.typing(CardNumber.string(number)) + (length < CardPolicy.longestNumber ? [.enter] : []))
        #expect(engine.field == .expiry, "\(length)")
        #expect(engine.view(of: .number).maskedText.filter { $0 != " " } == expected)
        _ = outcomes
        var submitted = engine.handle(Key.typing("1230123") + [.enter])
        let taken = submitted[submitted.count - 1].takeAcceptedCard()
        let card = try #require(taken)
        #expect(card.maskedNumber == expected)
        #expect(engine.tray.cards.last?.maskedNumber == expected)
        let lastShown = CardNumber.string(CardPolicy.lastShownDigits(of: number))
        #expect(card.lastFour == lastShown && engine.tray.cards.last?.lastFour == lastShown)
        #expect(submitted.last?.messages.first?.text.hasSuffix("•••• \(lastShown), expires 12/30") == true)
        var json: [UInt8] = []
        card.appendJSON(to: &json)
        #expect(
            String(decoding: json, as: UTF8.self).contains(
                #""last4":"\#(lastShown)","masked":"\#(expected.replacingOccurrences(of: "•", with: "*"))""#))
        let check = CardCheck(rules: Self.rules, expiryPolicy: ExpiryPolicy(today: Self.today))
        var text: [UInt8] = []
        check.appendText(Self.check(check, CardNumber.string(number)), line: 1, unmasked: false, to: &text)
        #expect(
            String(decoding: text, as: UTF8.self).hasPrefix(
                "line 1: \(expected.replacingOccurrences(of: "•", with: "*"))  anylength  valid"))
    }

    // MARK: - Validity

    /// The engine, `check` and the sampler agree with `RuleSet.verdict(for:)` on numbers that
    /// are valid, fail Luhn, are too short or too long, undecided or of no network.
    @Test func everySurfaceTakesTheOneVerdict() {
        let valid = CardNumber.string(Self.oddNumber)
        let badLuhn = String(valid.dropLast()) + String((Int(String(valid.last!))! + 1) % 10)
        let cases = [
            valid, badLuhn, String(valid.prefix(12)), valid + "1", "8123", "81234567", "8123456789012345678",
            "7123456789012345", "9",
        ]
        let check = CardCheck(rules: Self.rules, expiryPolicy: ExpiryPolicy(today: Self.today))
        for text in cases {
            let number = digits(text)
            let verdict = Self.rules.verdict(for: number).verdict
            // check: valid exactly when the verdict is, with the matching problem.
            let result = Self.check(check, text)
            #expect(result.valid == verdict.isValid, "\(text): \(verdict)")
            switch verdict {
            case .noNetwork: #expect(result.has(.unknownNetwork), "\(text)")
            case .undecided, .wrongLength: #expect(result.has(.length), "\(text)")
            case .failsLuhn: #expect(result.has(.luhn), "\(text)")
            case .valid: break
            }
            // The engine: with every digit in the field, Enter moves on exactly when the
            // verdict is valid (a number that moved on by itself before its last digit was
            // valid at that length).
            var engine = Self.engine()
            _ = engine.handle(Key.typing(text))
            if engine.field == .number { _ = engine.handle(.enter) }
            if engine.numberDigits.count == number.count {
                #expect((engine.field == .expiry) == verdict.isValid, "\(text): \(verdict)")
            } else {
                #expect(Self.rules.verdict(for: engine.numberDigits).verdict.isValid, "\(text)")
            }
            if engine.field == .number, case .failsLuhn = verdict {
                #expect(engine.problem(in: .number)?.text.contains("not valid") == true)
            }
        }
        // Every sample number of every network is valid by the verdict.
        for network in Self.rules.networks {
            for sample in Self.rules.sampleNumbers(of: network, count: 12, seed: 5) {
                let found = Self.rules.verdict(for: sample)
                #expect(found.verdict.isValid && found.detection.network === network)
            }
        }
    }
}

import CardKit
import Foundation
import Testing

/// Issue 24 items 2–6: four-digit years, the name and postal-code fields, the security code
/// alone, and the field order.
@Suite struct FormFieldsTests {
    static func engine(_ form: EntryForm, today: String = "2026-11") -> EntryEngine {
        EntryEngine(rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(iso: today)!), form: form)
    }

    static let gb = PostalCodeFormats.bundled.format(for: "GB")!

    /// Types `text`, then Enter, and returns the card the last key accepted.
    static func submit(_ engine: inout EntryEngine, _ text: String) -> PaymentCard? {
        var outcomes = engine.type(text)
        outcomes.append(engine.handle(.enter))
        for index in outcomes.indices.reversed() { if let card = outcomes[index].takeAcceptedCard() { return card } }
        return nil
    }

    static func json(_ card: PaymentCard) -> String {
        var bytes: [UInt8] = []
        card.appendJSON(to: &bytes)
        #expect(bytes.count == card.jsonLength)
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Four-digit years

    @Test func fourDigitYearGrowsTheField() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111")
        #expect(engine.field == .expiry)
        engine.type("12/20")
        #expect(engine.field == .expiry)  // 12/20 is past: the start of 20xx
        #expect(engine.view.text == "12/20")
        #expect(engine.view.hint == "MM/YY")
        engine.type("3")
        #expect(engine.view.text == "12/203")
        #expect(engine.view.hint == "MM/YYYY")
        #expect(engine.view.progress == "5/6")
        engine.type("0")
        #expect(engine.field == .cvv)
        #expect(engine.expiry == YearMonth(year: 2030, month: 12))
        let card = Self.submit(&engine, "123")
        #expect(card?.expiry == YearMonth(year: 2030, month: 12))
    }

    @Test func fourDigitYearRefusals() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111")
        engine.type("12/20")
        #expect(engine.handle(.character("1")).refusal?.text == "12/201_ would be in the past (today is 11/26)")
        #expect(engine.handle(.character("5")).refusal?.text == "a card does not expire more than 20 years ahead")
        engine.type("2")
        #expect(engine.handle(.character("5")).refusal?.text == "12/2025 is in the past (today is 11/26)")
        #expect(engine.field == .expiry)
        #expect(engine.handle(.character("6")).refusal?.text == nil)
        #expect(engine.field == .cvv)
    }

    @Test func twoDigitYearsStillMoveOn() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111")
        engine.type("1230")
        #expect(engine.field == .cvv)
        #expect(engine.expiry == YearMonth(year: 2030, month: 12))
        // Enter on MM/20 (past, waiting for the rest of a four-digit year) says how.
        var other = BundledRules.engine()
        other.type("4111111111111111")
        other.type("1220")
        #expect(other.problem(in: .expiry)?.text == "12/20 is in the past; type a four-digit year as MM/YYYY")
        #expect(other.handle(.enter).messages.first?.text == "12/20 is in the past; type a four-digit year as MM/YYYY")
    }

    @Test func aTwoDigitYearPastSinceIsNotTakenForTheStartOfAFourDigitOne() {
        var engine = BundledRules.engine()
        engine.type("41111111111111111230")
        engine.expiryPolicy = ExpiryPolicy(today: YearMonth(year: 2031, month: 1))  // time passes
        #expect(engine.problem(in: .expiry)?.text == "the card expired in 12/30")
    }

    @Test func fourDigitYearsByBackspace() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111122030")
        #expect(engine.field == .cvv)
        _ = engine.handle(.backspace)
        #expect(engine.field == .expiry)
        _ = engine.handle(.backspace)
        #expect(engine.view.text == "12/203")
        #expect(engine.view.hint == "MM/YYYY")
        _ = engine.handle(.backspace)
        #expect(engine.view.text == "12/20")
        #expect(engine.view.hint == "MM/YY")
    }

    @Test func expiryPolicyFourDigitPrefixes() {
        let policy = ExpiryPolicy(today: YearMonth(year: 2026, month: 11))
        #expect(policy.fourDigitYearCanContinue(month: 12, prefix: 20, digitCount: 2))
        #expect(policy.fourDigitYearCanContinue(month: 12, prefix: 204, digitCount: 3))
        #expect(!policy.fourDigitYearCanContinue(month: 12, prefix: 205, digitCount: 3))
        #expect(!policy.fourDigitYearCanContinue(month: 12, prefix: 21, digitCount: 2))
        #expect(!policy.fourDigitYearCanContinue(month: 10, prefix: 2026, digitCount: 4))
        #expect(policy.fourDigitYearCanContinue(month: 11, prefix: 2026, digitCount: 4))
    }

    // MARK: - Field order and the name

    @Test func fieldOrder() {
        #expect(EntryForm().fields == [.number, .expiry, .cvv])
        #expect(EntryForm(asksName: true, postalCode: Self.gb).fields == [.number, .expiry, .cvv, .name, .postalCode])
        #expect(EntryForm(postalCode: Self.gb).fields == [.number, .expiry, .cvv, .postalCode])
        let amex = BundledRules.set.network(id: "american-express")!
        #expect(EntryForm(securityCodeOnly: amex).fields == [.cvv])
    }

    @Test func nameAfterTheCode() {
        var engine = Self.engine(EntryForm(asksName: true))
        engine.type("4111111111111111 12/30 123")
        #expect(engine.field == .cvv)
        _ = engine.handle(.enter)
        #expect(engine.field == .name)
        #expect(engine.view.label == "Name")
        engine.type("  José O'Brien-Smith Jr.  ")
        #expect(engine.view.text == "José O'Brien-Smith Jr. ")
        let card = Self.submit(&engine, "")
        #expect(card?.holderName == "José O'Brien-Smith Jr.")
        #expect(
            card.map(Self.json)?.hasSuffix(
                #","masked":"411111******1111","entry":"keyed","holder_name":"José O'Brien-Smith Jr."}"#) == true)
    }

    @Test func nameRefusals() {
        var engine = Self.engine(EntryForm(asksName: true))
        engine.type("4111111111111111 12/30 123 ")
        #expect(engine.field == .name)  // a space after a whole code moves on
        #expect(engine.handle(.character("7")).refusal?.text == "a name takes no digits")
        #expect(engine.handle(.character("@")).refusal?.text == "a name takes letters, spaces, ' - and . only, not '@'")
        #expect(engine.handle(.character("\u{202E}")).refusal?.text != nil)
        #expect(engine.problem(in: .name)?.text == "the name is empty")
        engine.type(String(repeating: "A", count: 26))
        #expect(engine.handle(.character("B")).refusal?.text == "a name on a card has at most 26 characters")
        #expect(
            engine.handle(.historyPrevious).refusal?.text == "the name is never kept, so there is nothing to recall")
        // Backspace on an empty name goes back to the code.
        _ = engine.handle(.clearLine)
        _ = engine.handle(.backspace)
        #expect(engine.field == .cvv)
    }

    /// Issue 36 item 10: the 26-character limit bounds the name delivered. A letter typed with
    /// 2,047 combining accents is one character; it is refused, as is any letter with more marks
    /// than a script writes on one (three), and the name stays small.
    @Test func combiningMarksCannotInflateAName() {
        var engine = Self.engine(EntryForm(asksName: true))
        engine.type("4111111111111111 12/30 123 ")
        #expect(engine.field == .name)
        let heavy = "a" + String(repeating: "\u{301}", count: 2047)
        let outcomes = engine.type("Ada " + heavy + " Lovelace")
        #expect(outcomes.contains { $0.refusal?.text == "a letter in a name carries at most 3 accents or marks" })
        #expect(
            !engine.holderName.unicodeScalars.contains("\u{301}"), "\(engine.holderName.unicodeScalars.count) scalars")
        // Piped, the line's whole name is refused and nothing of it delivered.
        _ = engine.handle(.clearLine)
        for _ in 0..<40 { _ = engine.handle(.character(Character("e\u{302}\u{323}\u{301}"))) }
        #expect(engine.holderName.count == HolderName.maxLength)
        #expect(engine.holderName.unicodeScalars.count <= HolderName.maxLength * 4)
        // Names as people write them keep their marks: Vietnamese with two on one letter
        // (decomposed), Devanagari's conjuncts, Hangul syllables as jamo.
        for name in [
            "Nguye\u{302}\u{303}n Thi\u{323}", "\u{932}\u{915}\u{94D}\u{937}\u{94D}\u{92E}\u{940}",
            "\u{1112}\u{1161}\u{11AB}",
        ] {
            _ = engine.handle(.clearLine)
            #expect(engine.type(name).allSatisfy { $0.refusal?.text == nil }, "\(name)")
            #expect(engine.holderName == name)
        }
    }

    @Test func aSpaceInTheCodeFieldOnlyMovesOnFromAWholeCode() {
        var engine = Self.engine(EntryForm(asksName: true))
        engine.type("4111111111111111 12/30 12 ")
        #expect(engine.field == .cvv)
        var plain = BundledRules.engine()
        plain.type("4111111111111111 12/30 123 ")
        #expect(plain.field == .cvv)  // no field after the code: the space is skipped
    }

    // MARK: - Postal codes

    @Test(arguments: [
        ("US", "94105", "94105"), ("US", "941051234", "94105-1234"), ("US", "94105-1234", "94105-1234"),
        ("CA", "k1a0b1", "K1A 0B1"), ("GB", "sw1a1aa", "SW1A 1AA"), ("GB", "M11AE", "M1 1AE"),
        ("GB", "B338TH", "B33 8TH"),
        ("GB", "CR26XH", "CR2 6XH"), ("GB", "DN551PT", "DN55 1PT"), ("GB", "W1A0AX", "W1A 0AX"),
        ("DE", "10115", "10115"), ("FR", "75008", "75008"), ("NL", "1012ab", "1012 AB"), ("AU", "2000", "2000"),
        ("JP", "1000001", "100-0001"), ("BR", "01310100", "01310-100"), ("IN", "110001", "110001"),
    ])
    func postalCodeValid(country: String, typed: String, delivered: String) {
        let format = PostalCodeFormats.bundled.format(for: country)!
        var engine = Self.engine(EntryForm(postalCode: format))
        engine.type("4111111111111111 12/30 123 ")
        #expect(engine.field == .postalCode)
        engine.type(typed)
        #expect(engine.view.text == delivered)
        let card = Self.submit(&engine, "")
        #expect(card?.postalCode == delivered)
        #expect(card.map(Self.json)?.hasSuffix(#","postal_code":"\#(delivered)"}"#) == true)
    }

    @Test(arguments: [
        ("US", "9410", "a United States ZIP code looks like 94105; this is 9410"),
        ("CA", "K1A0B", "a Canada postal code looks like K1A 0B1; this is K1A 0B"),
        ("GB", "SW1A1A", "a United Kingdom postcode looks like SW1A 1AA; this is SW1A 1A"),
        ("NL", "1012", "a Netherlands postcode looks like 1012 AB; this is 1012"),
        ("JP", "100000", "a Japan postal code looks like 100-0001; this is 100-000"),
    ])
    func postalCodeIncomplete(country: String, typed: String, problem: String) {
        let format = PostalCodeFormats.bundled.format(for: country)!
        var engine = Self.engine(EntryForm(postalCode: format))
        engine.type("4111111111111111 12/30 123 " + typed)
        #expect(engine.problem(in: .postalCode)?.text == problem)
        var outcome = engine.handle(.enter)
        #expect(outcome.takeAcceptedCard() == nil)
        #expect(engine.field == .postalCode)
    }

    @Test(arguments: [
        ("US", "123456789", "1"), ("US", "1234", "A"), ("CA", "K", "K"), ("GB", "S", "!"), ("DE", "1011", "A"),
        ("NL", "1012A", "1"), ("BR", "01310100", "1"), ("IN", "11000", "Z"), ("AU", "2000", "0"),
    ])
    func postalCodeRefusesCharacters(country: String, typed: String, next: Character) {
        let format = PostalCodeFormats.bundled.format(for: country)!
        var engine = Self.engine(EntryForm(postalCode: format))
        engine.type("4111111111111111 12/30 123 ")
        let outcomes = engine.type(typed)
        #expect(outcomes.allSatisfy { $0.refusal?.text == nil })
        let before = engine.view.text
        #expect(engine.handle(.character(next)).refusal?.text != nil)
        #expect(engine.view.text == before)
    }

    @Test func gbSpaceAppearsOnceTheFormatIsKnown() {
        let format = Self.gb
        #expect(format.formatted(Array("SW1".utf8)) == "SW1")
        #expect(format.formatted(Array("SW1A".utf8)) == "SW1A")
        #expect(format.formatted(Array("SW1A1".utf8)) == "SW1A 1")
        #expect(format.formatted(Array("SW12".utf8)) == "SW12")
        #expect(format.formatted(Array("SW12A".utf8)) == "SW1 2A")
    }

    @Test func nameAndPostalCodeTogether() {
        var engine = Self.engine(EntryForm(asksName: true, postalCode: Self.gb))
        engine.type("4111111111111111 12/2030 123 Ada Lovelace")
        _ = engine.handle(.enter)
        #expect(engine.field == .postalCode)
        #expect(engine.view.label == "Postcode")
        let card = Self.submit(&engine, "sw1a 1aa")
        #expect(
            card.map(Self.json)?.hasSuffix(
                #""expiry":{"month":12,"year":2030},"cvv":"123","last4":"1111","masked":"411111******1111","entry":"keyed","holder_name":"Ada Lovelace","postal_code":"SW1A 1AA"}"#
            ) == true)
        #expect(engine.field == .number)
        #expect(engine.holderName.isEmpty && engine.postalCharacters.isEmpty)
    }

    // MARK: - The security code alone

    @Test(arguments: [("amex", "1234", "123"), ("visa", "123", "12")])
    func securityCodeOnly(network id: String, code: String, short: String) throws {
        let network = try AcceptedNetworks.network(named: id, in: BundledRules.set)
        var engine = Self.engine(EntryForm(securityCodeOnly: network))
        #expect(engine.field == .cvv)
        #expect(engine.view.label == CardPolicy.securityCode(for: network).name)
        engine.type(short)
        var short = engine.handle(.enter)
        #expect(short.takeAcceptedCard() == nil)
        _ = engine.handle(.clearLine)
        let card = Self.submit(&engine, code)
        #expect(card.map(Self.json) == #"{"network":"\#(network.id)","cvv":"\#(code)"}"#)
        #expect(card?.isSecurityCodeOnly == true)
        #expect(engine.field == .cvv)
        // Backspace on the only field, empty: nothing to delete, no field to go back to.
        #expect(engine.handle(.backspace).refusal?.text == "the \(engine.fieldName(.cvv)) is already empty")
        // Cancelling starts again with the code, and says so (there is no card number to type).
        _ = engine.type("1")
        let name = CardPolicy.securityCode(for: network).name
        #expect(engine.handle(.cancel).messages.map(\.text) == ["Cancelled. Start again with the \(name)."])
        #expect(engine.field == .cvv && engine.cvvDigits.isEmpty)
    }

    @Test func networkNamedAsNetworksTakesThem() throws {
        #expect(try AcceptedNetworks.network(named: "AMEX", in: BundledRules.set).id == "american-express")
        #expect(throws: AcceptedNetworks.UnknownNetwork.self) {
            try AcceptedNetworks.network(named: "visa,amex", in: BundledRules.set)
        }
        #expect(throws: AcceptedNetworks.UnknownNetwork.self) {
            try AcceptedNetworks.network(named: "nosuch", in: BundledRules.set)
        }
    }

    // MARK: - The data file

    @Test func bundledCopyMatchesTheDataFile() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let file = try PostalCodeFormats.parse(
            [UInt8](Data(contentsOf: url.appendingPathComponent("data/postal-codes.json"))),
            file: "data/postal-codes.json")
        #expect(file.countries == PostalCodeFormats.bundled.countries)
        #expect(Set(["US", "CA", "GB", "DE", "FR", "NL", "AU", "JP", "BR", "IN"]).isSubset(of: Set(file.countries)))
        #expect(
            PostalCodeFormats.bundled.unknownCountryMessage("XX").hasSuffix(
                "(known: US, CA, GB, DE, FR, NL, AU, JP, BR, IN)"))
    }

    @Test(arguments: [
        (
            #"{"formats": [{"country": "gb", "patterns": ["9"]}]}"#,
            "f.json:1:26: error: \"country\" must be two capital letters (ISO 3166), like \"GB\"; got \"gb\""
        ),
        (
            "{\"formats\": [\n  {\"country\": \"XX\", \"patterns\": [\"9 \"]}]}",
            "f.json:2:34: error: a space or - in a pattern goes between a 9 or A and another; got \"9 \""
        ),
        (
            #"{"formats": [{"country": "XX", "label": "Y", "patterns": ["9"]}]}"#,
            "f.json:1:32: error: unknown key \"label\" (known: country, patterns; the words are the message catalogs')"
        ),
        (#"{"formats": [], "extra": 1}"#, "f.json:1:17: error: unknown key \"extra\" (known: about, formats)"),
        (#"{"formats": [{"patterns": ["9"]}]}"#, "f.json:1:14: error: missing \"country\""),
        ("{\"formats\": [", "f.json:1:14: error:"),
    ])
    func malformedDataFileErrorsAreLocated(text: String, first: String) {
        do {
            _ = try PostalCodeFormats.parse(Array(text.utf8), file: "f.json")
            Issue.record("parsed a broken file")
        } catch {
            #expect(error.errors.first?.description.hasPrefix(first) == true, "\(error.description)")
        }
    }

    /// Issue 39: every country's words come from every bundled catalog (the data file holds
    /// formats only), each example written as its country's patterns write it.
    @Test(arguments: MessageCatalog.bundledLanguages)
    func postalCodeWordsAreEachLanguagesOwn(language: String) {
        let messages = MessageCatalog(language: language)
        for format in PostalCodeFormats.bundled.formats {
            for part in ["name", "label", "example"] {
                #expect(MessageID(rawValue: "postal.\(format.country).\(part)") != nil, "\(format.country) \(part)")
            }
            let example = format.example(messages)
            let raw = Array(example.compactMap(PostalCodeFormat.rawCharacter))
            #expect(format.isComplete(raw) && format.formatted(raw) == example, "\(language) \(format.country)")
        }
        let fr = PostalCodeFormats.bundled.format(for: "FR")!
        let label = ["en": "Postal code", "fr": "Code postal", "de": "Postleitzahl", "es": "Código postal"][language]
        #expect(fr.label(messages) == label)
    }
}

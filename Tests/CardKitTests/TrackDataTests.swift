import CardKit
import Foundation
import Testing

/// Reading a swipe's track data (`TrackData`), and the engine taking it (`Key.swipe`).
@Suite struct TrackDataTests {
    static let track1 = "%B4111111111111111^LOVELACE/ADA^3012201000000000000?"
    static let track2 = ";4111111111111111=30122010000000000?"

    static func read(_ text: String) -> Result<TrackData, TrackData.Problem> { TrackData.read(Array(text.utf8)) }

    @Test(arguments: [
        track1 + track2, track1, track2, track1 + track2 + ";0123456789?", track2 + "+12345?", track2 + " \r\n",
    ])
    func readsEitherTrackOrBoth(text: String) throws {
        let swipe = try Self.read(text).get()
        #expect(swipe.numberDigits == digits("4111111111111111"))
        #expect(swipe.expiryMonth == 12)
        #expect(swipe.expiryYear == 30)
        #expect(swipe.chip)
        #expect(swipe.holderName == (text.hasPrefix("%") ? "ADA LOVELACE" : nil))
    }

    @Test(
        arguments: [
            ("LOVELACE/ADA", "ADA LOVELACE"), ("  LOVELACE /ADA  KING ", "ADA KING LOVELACE"), ("SMITH/", "SMITH"),
            ("CARDHOLDER", "CARDHOLDER"), (" /", nil), ("", nil),
        ] as [(String, String?)])
    func namesGivenNameFirstAndTrimmed(field: String, name: String?) throws {
        let swipe = try Self.read("%B4111111111111111^\(field)^3012201?").get()
        #expect(swipe.holderName == name)
    }

    @Test func wipeOverwritesTheNumberAndTheName() throws {
        var swipe = try Self.read(Self.track1).get()
        #expect(swipe.holderName == "ADA LOVELACE")
        swipe.wipe()
        #expect(swipe.numberDigits.isEmpty && swipe.holderName == nil)
    }

    @Test(arguments: [("101", false), ("201", true), ("601", true), ("221", true), ("520", false), ("000", false)])
    func chipFromTheServiceCodesFirstDigit(serviceCode: String, chip: Bool) throws {
        #expect(try Self.read(";5555555555554444=2801\(serviceCode)0000?").get().chip == chip)
    }

    @Test(arguments: [
        ("%B4111111111111111^LOVELACE/ADA^30122010000", TrackData.Problem.noEndSentinel),  // cut short
        (";4111111111111111=3012", .noEndSentinel),
        (";41111111111", .noEndSentinel),
        ("%B4111111111111111^LOVELACE/ADA^3012201;4111111111111111=3012201?", .noEndSentinel),
        (track1 + ";4012888888881881=30122010000000000?", .tracksDisagree),
        (track1 + ";4111111111111111=31122010000000000?", .tracksDisagree),
        (track1 + ";4111111111111111=30121010000000000?", .tracksDisagree),
        (";4111111=3012201?", .numberLength),
        (";41111111111111111111=3012201?", .numberLength),
        (";4111111111111111=3013201?", .badExpiry),
        (";4111111111111111=3000201?", .badExpiry),
        ("4111111111111111", .notTrackData), ("", .notTrackData), ("%", .noEndSentinel),
        ("%A4111111111111111^X/Y^3012201?", .malformed),
        (";E?", .malformed), ("%E?", .malformed),  // what readers send for a bad read
        (";4111 1111 1111 1111=3012201?", .malformed),
        (";=3012201?", .malformed),
        (";4111111111111111=30A2201?", .malformed),
        (";4111111111111111=3012201?x", .trailingText),
        (track2 + track2 + track2, .trailingText),
        ("%B4111111111111111^\(String(repeating: "A", count: 27))^3012201?", .malformed),
    ])
    func refusesWhatIsNotAWholeSwipe(text: String, problem: TrackData.Problem) {
        #expect(throws: problem) { try Self.read(text).get() }
    }

    @Test func everyDescriptionIsMaskedAndWipeOverwrites() throws {
        var swipe = try Self.read(Self.track1).get()
        var dumped = ""
        dump(swipe, to: &dumped)
        for text in ["\(swipe)", String(reflecting: swipe), dumped] {
            #expect(!text.contains("4111111111111111"), "\(text)")
            #expect(text.contains("411111••••••1111"), "\(text)")
        }
        swipe.wipe()
        #expect(swipe.numberDigits.isEmpty)
    }

    @Test func pastedTrackDataIsOneSwipeNeverTyped() {
        let keys = TerminalKey(.paste(Self.track1 + Self.track2 + "\r\n")).entryKeys
        #expect(keys.count == 1)
        guard case .swipe(let swipe?) = keys.first else {
            Issue.record("not a swipe: \(keys)")
            return
        }
        #expect(swipe.numberDigits == digits("4111111111111111"))
        #expect(TerminalKey(.paste(";4111")).entryKeys == [.swipe(nil)])
        #expect(TerminalKey(.paste("4111")).entryKeys == Key.typing("4111"), "other pastes are typed")
    }

    /// A paste types its characters without its control characters; track data is looked for
    /// in those, so that the text written without them (a recorded `@paste`) means the same.
    @Test func trackDataIsLookedForInTheCharactersAPasteTypes() {
        let broken = TerminalKey(.paste("ab;\u{0}\u{1}5=17?")).entryKeys
        #expect(broken.prefix(2) == Key.typing("ab")[...])
        #expect(broken.count == 3)
        guard case .swipe = broken.last else {
            Issue.record("not a swipe at the end: \(broken)")
            return
        }
        #expect(broken == TerminalKey(.paste("ab;5=17?")).entryKeys)
        // A mark after a dropped control character joins the character before it, as in the
        // text without them.
        #expect(TerminalKey(.paste("0\u{0}\u{30C}7")).entryKeys == TerminalKey(.paste("0\u{30C}7")).entryKeys)
        #expect(TerminalKey(.paste("0\u{0}\u{30C}7")).entryKeys.count == 2)
        // Track data after a character, with the reader's line break, still reads.
        let keys = TerminalKey(.paste("x" + Self.track1 + Self.track2 + "\r\n")).entryKeys
        #expect(keys.first == .character("x"))
        guard case .swipe(let swipe?) = keys.last else {
            Issue.record("not a readable swipe: \(keys)")
            return
        }
        #expect(swipe.numberDigits == digits("4111111111111111"))
    }

    @Test func aSwipeStepInASessionScript() throws {
        let script = try SessionScript.parse(
            "@today 2026-11\n@swipe \(Self.track2)\n123<Enter>\n@expect entry swipe chip\n@swipe ;4111\n@expect refused 1\n"
        )
        #expect(script.steps.first?.kind == .keys([.swipe(try Self.read(Self.track2).get())]))
        let replay = Replay.run(script, rules: BundledRules.set, today: YearMonth(year: 2026, month: 11))
        #expect(replay.passed, "\(replay.failures)")
        #expect(replay.cards.count == 1)
        #expect(!replay.transcript.joined().contains("4111111111111111"))
        #expect(
            throws: SessionScript.SyntaxError(
                line: 1,
                message: "@swipe takes the track data as a reader types it: %B…? (track 1), ;…? (track 2), or both")
        ) {
            try SessionScript.parse("@swipe   ")
        }
        #expect(throws: SessionScript.SyntaxError.self) { try SessionScript.parse("@expect entry tapped") }
    }

    // MARK: - The engine

    static func swipe(_ text: String) -> Key { .swipe(try? read(text).get()) }

    @Test func aSwipeFillsNumberAndExpiryAndMovesToTheCVV() throws {
        var engine = BundledRules.engine()
        #expect(engine.takesSwipe)
        let outcome = engine.handle(Self.swipe(Self.track1 + Self.track2))
        #expect(outcome.refusal?.text == nil)
        #expect(outcome.fieldChanged)
        #expect(engine.field == .cvv)
        #expect(engine.numberDigits == digits("4111111111111111"))
        #expect(engine.view(of: .expiry).text == "12/30")
        #expect(outcome.messages.contains { $0.text.contains("Visa •••• 1111, expires 12/30") })
        engine.type("123")
        var submitted = engine.handle(.enter)
        let taken = submitted.takeAcceptedCard()
        var card = try #require(taken)
        #expect(card.entry == .swipe)
        #expect(card.chip == true)
        var json: [UInt8] = []
        card.appendJSON(to: &json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["entry"] as? String == "swipe")
        #expect(object["chip"] as? Bool == true)
        #expect(json.count == card.jsonLength)
        card.wipe()
    }

    @Test func aTypedCardIsKeyedAndAnEditedSwipeToo() throws {
        var engine = BundledRules.engine()
        engine.type("4111111111111111 12/30 123")
        var submitted = engine.handle(.enter)
        let typedCard = submitted.takeAcceptedCard()
        let typed = try #require(typedCard)
        #expect(typed.entry == .keyed)
        #expect(typed.chip == nil)
        var json: [UInt8] = []
        typed.appendJSON(to: &json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["entry"] as? String == "keyed")
        #expect(object["chip"] == nil)

        // A swiped number changed by hand is a keyed one.
        _ = engine.handle(Self.swipe(Self.track2))
        // CVV → expiry, its four digits, → number, its last digit.
        for _ in 0..<7 { _ = engine.handle(.backspace) }
        #expect(engine.field == .number)
        #expect(engine.numberDigits.count == 15)
        engine.type("1")
        #expect(engine.field == .expiry)
        engine.type("1230123")
        submitted = engine.handle(.enter)
        let edited = submitted.takeAcceptedCard()
        #expect(edited?.entry == .keyed)
    }

    @Test(arguments: [
        ";4111111111111111=30122010000", track1 + ";4012888888881881=30122010000000000?", ";4111111111111112=3012201?",
    ])
    func anUnreadableSwipeLeavesTheFieldsEmpty(text: String) {
        var engine = BundledRules.engine()
        let outcome = engine.handle(Self.swipe(text))
        #expect(outcome.refusal?.text == TrackData.unreadableMessage)
        #expect(engine.field == .number)
        #expect(engine.cardIsEmpty)
    }

    /// Whether a number must pass Luhn is its network's rule (`CardPolicy.verdict`), not the
    /// track reader's: UnionPay's 62 range does not check it (some domestic cards fail it), so
    /// such a card swiped is taken as the same number typed is, and a Visa number that fails
    /// Luhn is refused as typed and swiped alike.
    @Test func aSwipedNumberIsValidExactlyWhenTheSameNumberTypedIs() throws {
        for (number, valid) in [("6200000000000000", true), ("4111111111111112", false), ("4111111111111111", true)] {
            var typed = BundledRules.engine()
            typed.type(number)
            if typed.field == .number { _ = typed.handle(.enter) }
            #expect((typed.field == .expiry) == valid, "\(number) typed")
            var swiped = BundledRules.engine()
            let outcome = swiped.handle(Self.swipe(";\(number)=3012201?"))
            #expect((outcome.refusal?.text == nil) == valid, "\(number) swiped: \(outcome.refusal?.text ?? "taken")")
            #expect(swiped.numberDigits == (valid ? digits(number) : []))
        }
        #expect(!CardNumber.passesLuhn(digits("6200000000000000")))
    }

    @Test func aNumberNoRuleTakesIsUnreadable() throws {
        // Passes Luhn, but no network's rules take a 16-digit number starting 0.
        var engine = BundledRules.engine()
        #expect(engine.handle(Self.swipe(";0000000000000000=3012201?")).refusal?.text == TrackData.unreadableMessage)
        #expect(engine.cardIsEmpty)
    }

    @Test func anExpiredSwipedCardIsSaidSo() {
        var engine = BundledRules.engine()
        #expect(
            engine.handle(Self.swipe(";4111111111111111=2510201?")).refusal?.text == "the swiped card expired in 10/25")
        #expect(engine.cardIsEmpty)
    }

    @Test func aSwipeOutsideAnEmptyNumberIsRefused() {
        var engine = BundledRules.engine()
        engine.type("4")
        #expect(!engine.takesSwipe)
        #expect(
            engine.handle(Self.swipe(Self.track2)).refusal?.text == "a card is swiped at an empty card number field")
        #expect(engine.numberDigits == [4])
        engine.type("111111111111111")
        #expect(engine.field == .expiry)
        #expect(engine.handle(Self.swipe(Self.track2)).refusal?.text != nil)
        #expect(engine.expiryDigits.isEmpty)
        engine.type(":")
        #expect(engine.handle(Self.swipe(Self.track2)).refusal?.text != nil)
    }

    /// Issue 36 item 10: the name a swipe filled in is replaced by a name typed into its field,
    /// never glued to it (a piped swipe, then `123 Bob Smith`); Enter keeps it, Backspace edits it.
    @Test func aTypedNameReplacesTheSwipedOne() {
        func swiped() -> EntryEngine {
            var engine = EntryEngine(
                rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
                form: EntryForm(asksName: true))
            #expect(engine.handle(Self.swipe(Self.track1)).refusal?.text == nil)
            engine.type("123 ")
            #expect(engine.field == .name)
            return engine
        }
        var engine = swiped()
        #expect(engine.holderName == "ADA LOVELACE")
        engine.type(" Bob Smith")
        #expect(engine.holderName == "Bob Smith")
        engine = swiped()
        #expect(engine.handle(.character("7")).refusal?.text != nil)
        #expect(engine.holderName == "ADA LOVELACE", "a refused key leaves the swiped name")
        _ = engine.handle(.backspace)
        engine.type("X")
        #expect(engine.holderName == "ADA LOVELACX", "Backspace edits it")
    }

    @Test func aSwipeOfANetworkNotAcceptedSaysSo() throws {
        let accepted = try AcceptedNetworks.parse("mastercard", in: BundledRules.set)
        var engine = EntryEngine(
            rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            acceptedNetworks: accepted)
        let refusal = engine.handle(Self.swipe(Self.track2)).refusal?.text
        #expect(refusal?.contains("Visa") == true, "\(refusal ?? "")")
        #expect(engine.cardIsEmpty)
    }
}

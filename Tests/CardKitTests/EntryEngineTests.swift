import CardKit
import Testing

@Suite struct EntryEngineTests {
    @Test(arguments: [
        ("4111111111111111", true), ("378282246310005", true), ("6011111111111117", true),
        ("4111111111111112", false), ("378282246310006", false), ("0", true), ("79927398713", true),
        ("79927398710", false),
    ])
    func luhn(number: String, valid: Bool) {
        #expect(CardNumber.passesLuhn(digits(number)) == valid)
    }

    @Test(arguments: [
        ("378282246310005", "3782 822463 10005"), ("4111111111111111", "4111 1111 1111 1111"),
        ("6759649826438453003", "6759 6498 2643 8453 003"), ("36227206271667", "3622 720627 1667"),
        ("3782", "3782"), ("37828", "3782 8"), ("41", "41"),
    ])
    func groupsLiveByNetwork(typed: String, shown: String) {
        var engine = BundledRules.engine()
        engine.type(typed)
        #expect(engine.view(of: .number).text == shown)
    }

    @Test func unknownNetworkGroupsInFours() {
        var engine = BundledRules.engine()
        engine.type("3")
        #expect(engine.detection.network == nil)
        #expect(engine.view.text == "3")
        #expect(engine.view.logo == EntryView.genericLogo)
        #expect(engine.view.hint == "#### #### #### ####")
    }

    @Test func refusesDigitsNoNetworkStartsWith() {
        var engine = BundledRules.engine()
        let outcome = engine.handle(.character("0"))
        #expect(outcome.refusal?.text == "no card network starts with 0")
        #expect(engine.numberDigits.isEmpty)
        engine.type("9")
        #expect(engine.handle(.character("9")).refusal?.text == "no card network starts with 99")
        #expect(engine.view.text == "9")
    }

    @Test func refusesLettersWithAReasonAndIgnoresSeparators() {
        var engine = BundledRules.engine()
        #expect(engine.handle(.character("x")).refusal?.text == "only digits go in the card number, not 'x'")
        #expect(engine.handle(.character("\t")).refusal?.text == "only digits go in the card number, not Tab")
        #expect(engine.handle(.character("é")).refusal?.text != nil)
        #expect(engine.handle(.character(" ")).disposition == .ignored)
        #expect(engine.handle(.character("-")).disposition == .ignored)
        #expect(engine.numberDigits.isEmpty)
    }

    @Test func amexStopsAtFifteen() {
        var engine = BundledRules.engine()
        engine.type("378282246310006")  // fails Luhn, so it stays in the number field
        #expect(engine.field == .number)
        let outcome = engine.handle(.character("1"))
        #expect(outcome.refusal?.text == "an American Express number has at most 15 digits")
        #expect(engine.numberDigits.count == 15)
    }

    @Test func luhnFailureAtCompleteLengthStaysWithAnError() {
        var engine = BundledRules.engine()
        let outcomes = engine.type("4111111111111112")
        #expect(engine.field == .number)
        #expect(outcomes.last?.messages == [Message(.error, "card number is not valid — check the digits")])
        #expect(engine.handle(.enter).messages.first?.text == "card number is not valid — check the digits")
    }

    @Test func validNumberMovesToExpiryByItself() {
        var engine = BundledRules.engine()
        let outcomes = engine.type("4111111111111111")
        #expect(engine.field == .expiry)
        #expect(outcomes.last?.fieldChanged == true)
        #expect(outcomes.last?.messages.last?.kind == .help)
    }

    @Test func visaThirteenWaitsForEnterNotMovedEarly() {
        var engine = BundledRules.engine()
        engine.type("4136007351081")  // a valid 13-digit Visa: 413600 is one of the BINs Stripe lists as 13-digit
        #expect(engine.field == .number)
        #expect(engine.handle(.enter).fieldChanged)
        #expect(engine.field == .expiry)
    }

    @Test func enterOnIncompleteNumberSaysWhatIsMissing() {
        var engine = BundledRules.engine()
        engine.type("411111111111")
        #expect(engine.handle(.enter).messages == [Message(.error, "a Visa number has 13 or 16 digits; this has 12")])
        var amex = BundledRules.engine()
        amex.type("3782")
        #expect(amex.handle(.enter).messages.first?.text == "an American Express number has 15 digits; this has 4")
        var unknown = BundledRules.engine()
        unknown.type("3")
        #expect(unknown.handle(.enter).messages.first?.text.hasPrefix("no single card network matches 3") == true)
    }

    @Test func unionPaySkipsLuhn() {
        var engine = BundledRules.engine()
        engine.type("6200000000000001")  // fails Luhn; UnionPay does not check it
        // Without Luhn a 16-digit number cannot be known complete: it waits for Enter.
        #expect(engine.field == .number)
        #expect(engine.handle(.enter).fieldChanged)
        #expect(engine.field == .expiry)
    }

    // MARK: Expiry

    @Test(arguments: [
        // typed, today, shown, refused count
        ("5", "2026-11", "05/", 0), ("1", "2026-11", "1", 0), ("12", "2026-11", "12/", 0),
        ("13", "2026-11", "1", 1), ("00", "2026-11", "0", 1), ("1/", "2026-11", "01/", 0),
        ("0/", "2026-11", "0", 1), ("1130", "2026-11", "", 0), ("1026", "2026-11", "10/2", 1),
        ("1126", "2026-11", "", 0), ("0127", "2026-12", "", 0), ("1226", "2026-12", "", 0),
        ("1126", "2026-12", "11/2", 1),
        ("0125", "2026-11", "01/2", 1), ("1246", "2026-11", "", 0), ("1247", "2026-11", "12/4", 1),
        ("0101", "2099-12", "", 0), ("1299", "2099-12", "", 0), ("1199", "2099-12", "11/", 2),
        ("1100", "2099-12", "", 0),
    ])
    func expiryAtPinnedDates(typed: String, today: String, shown: String, refused: Int) {
        var engine = BundledRules.engine(today: today)
        engine.type("4111111111111111")
        let outcomes = engine.type(typed)
        #expect(outcomes.filter { $0.refusal?.text != nil }.count == refused)
        if shown.isEmpty {
            #expect(engine.field == .cvv, "a complete valid expiry moves on")
        } else {
            #expect(engine.field == .expiry)
            #expect(engine.view.text == shown)
        }
    }

    @Test func pastYearIsRefusedWithAReason() {
        var engine = BundledRules.engine(today: "2026-11")
        engine.type("4111111111111111")
        engine.type("10")
        #expect(engine.handle(.character("1")).refusal?.text == "10/1_ would be in the past (today is 11/26)")
        engine.type("2")
        #expect(engine.handle(.character("6")).refusal?.text == "10/26 is in the past (today is 11/26)")
        #expect(engine.handle(.character("9")).refusal?.text == nil)
        #expect(engine.field == .cvv)
    }

    @Test func backspaceNeverSticksOnTheSlash() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111")
        engine.type("12")
        #expect(engine.view.text == "12/")
        _ = engine.handle(.backspace)
        #expect(engine.view.text == "1")
        _ = engine.handle(.backspace)
        #expect(engine.view.text == "")
        #expect(engine.field == .expiry)
    }

    // MARK: CVV

    @Test(arguments: [
        ("378282246310005", "CID", 4, "the 4-digit CID on the front of the card"),
        ("4111111111111111", "CVV", 3, "the 3-digit CVV on the back of the card"),
        ("5555555555554444", "CVC", 3, "the 3-digit CVC on the back of the card"),
        ("6011111111111117", "CID", 3, "the 3-digit CID on the back of the card"),
    ])
    func securityCodePerNetwork(number: String, name: String, length: Int, help: String) {
        var engine = BundledRules.engine()
        // After a space: Discover's 16 digits could grow to 19, so the expiry's digits end it.
        engine.type(number + " 12/30")
        #expect(engine.field == .cvv)
        #expect(engine.view.label == name)
        // The badge says the code's name as the label does (not CVV beside a CID label).
        #expect(engine.view.logo == name)
        #expect(engine.help.text.contains(help))
        engine.type(String(repeating: "7", count: length))
        #expect(engine.view.text == String(repeating: "•", count: length))
        #expect(engine.handle(.character("7")).refusal?.text == "the \(name) has \(length) digits")
        #expect(!engine.view.text.contains("7"))
    }

    // MARK: Across fields

    @Test func backspaceOnEmptyFieldGoesBackWithValueIntact() {
        var engine = BundledRules.engine()
        engine.type("378282246310005")
        engine.type("1230")
        engine.type("12")
        _ = engine.handle([.backspace, .backspace])
        #expect(engine.field == .cvv)
        _ = engine.handle(.backspace)
        #expect(engine.field == .expiry)
        #expect(engine.view.text == "12/30")
        _ = engine.handle([.backspace, .backspace, .backspace, .backspace])
        #expect(engine.view.text == "")
        _ = engine.handle(.backspace)
        #expect(engine.field == .number)
        #expect(engine.view.text == "3782 822463 10005")
        #expect(engine.handle(.backspace) == .accepted)
        #expect(engine.view.text == "3782 822463 1000")
    }

    @Test func pastedLineFillsAllThreeFields() {
        var engine = BundledRules.engine()
        let outcomes = engine.handle(Key.typing("4111 1111 1111 1111 12/30 123") + [.enter])
        #expect(outcomes.allSatisfy { $0.refusal?.text == nil })
        guard case .accepted(let card) = outcomes.last?.event else {
            Issue.record("not accepted: \(outcomes.last!)")
            return
        }
        // The event carries the whole card, for the caller; the tray only the masked one.
        #expect(card.network.id == "visa")
        #expect(card.number == "4111111111111111" && card.securityCode == "123")
        #expect(card.expiry == YearMonth(year: 2030, month: 12))
        #expect(card.maskedNumber == "411111••••••1111")
        #expect(engine.tray.cards.first?.maskedNumber == "411111••••••1111")
        #expect(outcomes.last?.messages.first?.text == "Success! Visa •••• 1111, expires 12/30")
        #expect(engine.field == .number && engine.numberDigits.isEmpty && engine.cvvDigits.isEmpty)
        #expect(engine.tray.cards.count == 1)
    }

    @Test func summaryAfterExpiry() {
        var engine = BundledRules.engine()
        let outcomes = engine.type("3782822463100051230")
        #expect(outcomes.last?.messages.first == Message(.success, "American Express •••• 0005, expires 12/30"))
    }

    @Test func submitNamesEveryFailingFieldAndReturnsToTheFirst() {
        var engine = BundledRules.engine(today: "2026-11")
        engine.type("41111111111111111230" + "12")
        engine.expiryPolicy = ExpiryPolicy(today: YearMonth(year: 2031, month: 1))  // time passes
        let outcome = engine.handle(.enter)
        #expect(outcome.event == .submitFailed([.expiry, .cvv]))
        #expect(
            outcome.messages.first?.text
                == "Cannot accept this card: expiry — the card expired in 12/30; CVV — the CVV has 3 digits; this has 2"
        )
        #expect(engine.field == .expiry)
    }

    @Test func enterOnEmptyFieldIsIgnored() {
        var engine = BundledRules.engine()
        #expect(engine.handle(.enter) == .ignored)
        engine.type("4111111111111111")
        #expect(engine.handle(.enter) == .ignored)
        engine.type("1230")
        #expect(engine.handle(.enter) == .ignored)
        #expect(engine.field == .cvv)
    }

    @Test func cancelStartsOver() {
        var engine = BundledRules.engine()
        engine.type("41111111111111111230")
        let outcome = engine.handle(.cancel)
        #expect(outcome.fieldChanged)
        #expect(engine.field == .number && engine.numberDigits.isEmpty && engine.expiryDigits.isEmpty)
    }

    @Test func endOfInputQuitsOnlyOnEmptyField() {
        var engine = BundledRules.engine()
        engine.type("4")
        #expect(engine.handle(.endOfInput).refusal?.text != nil)
        _ = engine.handle(.backspace)
        #expect(engine.handle(.endOfInput).event == .quit)
    }

    @Test func clearLineEmptiesTheField() {
        var engine = BundledRules.engine()
        engine.type("3782")
        _ = engine.handle(.clearLine)
        #expect(engine.numberDigits.isEmpty)
        #expect(engine.detection.network == nil)
    }

    @Test func logoAndProgress() {
        var engine = BundledRules.engine()
        #expect(engine.view.logo == "CARD")
        engine.type("4211")
        #expect(engine.view.logo == "VISA")
        // Counted toward 16, the length that moves on by itself.
        #expect(engine.view.progress == "4/16")
        engine.type("111111117")
        #expect(
            engine.view.progress == "13/16 (13 valid)",
            "4211111111117 passes Luhn, and 13 is a Visa length: valid, but it stays for 16")
        // Before 13 digits nothing is valid yet.
        var thirteen = BundledRules.engine()
        thirteen.type("413600735108")
        #expect(thirteen.view.progress == "12/16")
        thirteen.type("1")
        #expect(thirteen.view.progress == "13/16 (13 valid)", "4136007351081 passes Luhn")
        thirteen.type("1")
        #expect(thirteen.view.progress == "14/16")
    }

    @Test func ctrlDQuitsOnlyBetweenCards() {
        var engine = BundledRules.engine()
        _ = engine.type("4111111111111111")
        #expect(engine.field == .expiry)
        #expect(
            engine.handle(.endOfInput).refusal?.text == "Ctrl-D quits only between cards; Ctrl-C cancels this one first"
        )
        _ = engine.handle(.cancel)
        #expect(engine.handle(.endOfInput).event == .quit)
    }

    @Test func quittingSaysTheTrayIsNotKept() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111123012")
        engine.type("3")
        _ = engine.handle(.enter)
        #expect(engine.tray.cards.count == 1)
        let outcome = engine.handle(.endOfInput)
        #expect(outcome.event == .quit)
        #expect(outcome.messages.map(\.text) == ["Goodbye: the card accepted here is not kept after cardline ends."])
    }

    @Test(arguments: [":use 4111111111111111", ":remove 4111-1111-1111-1111", ":use 12345"])
    func cardNumbersAfterUseAndRemoveAreNeverEchoed(line: String) {
        var engine = BundledRules.engine()
        engine.type(line)
        let outcome = engine.handle(.enter)
        let shown = outcome.messages.map(\.text).joined(separator: "\n")
        #expect(shown.contains("there is no card with that number") || shown.contains("usage:"), "\(shown)")
        #expect(!shown.contains("4111") && !shown.contains("12345"), "\(shown)")
    }

    @Test(arguments: ["\u{9D}", "\u{85}", "\u{202E}", "\u{1B}", "\u{200B}"])
    func controlAndBidiCharactersAreNamedNotPrinted(character: String) throws {
        var engine = BundledRules.engine()
        let reason = try #require(engine.type(character).last?.refusal?.text)
        let scalar = character.unicodeScalars.first!.value
        #expect(
            reason.contains("U+" + String(scalar, radix: 16, uppercase: true).leftPaddedWithZeros(to: 4)), "\(reason)")
        #expect(
            !reason.unicodeScalars.contains {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E || $0.value == 0x200B
            })
    }

    @Test func aPasteIsOneBurstThatNeverSubmits() {
        var engine = BundledRules.engine()
        let paste = TerminalKey(.paste("4111 1111 1111 1111\r\n12/30 123\r"))
        #expect(!paste.entryKeys.contains(.enter), "line breaks are left out")
        let outcome = Outcome.combined(paste.entryKeys.map { engine.handle($0) })
        #expect(engine.field == .cvv && engine.cvvDigits.count == 3)
        #expect(outcome.event == nil, "not submitted")
        #expect(engine.tray.cards.isEmpty)
        // Text that is not a card: the first refusal stands for the burst, every message kept.
        var other = BundledRules.engine()
        let refused = Outcome.combined(TerminalKey(.paste("4x y")).entryKeys.map { other.handle($0) })
        #expect(refused.refusal?.text == "only digits go in the card number, not 'x'")
        #expect(other.numberDigits == [4])
        #expect(TerminalKey(.left, modifiers: .control).entryKeys == [.other("Ctrl-Left")])
        #expect(TerminalKey(.focusIn).entryKeys.isEmpty)
    }

    @Test func otherKeysAreRefusedByName() {
        var engine = BundledRules.engine()
        engine.type("4111")
        #expect(engine.handle(.other("Ctrl-Left")).refusal?.text == "Ctrl-Left does nothing here")
        #expect(engine.numberDigits == [4, 1, 1, 1])
        engine.type(":he")
        _ = engine.handle(.backspace)
        _ = engine.handle(.backspace)
        _ = engine.handle(.backspace)
        #expect(engine.handle(.other("F5")).refusal?.text == "F5 does nothing here")
    }

    // MARK: Recall, tray, commands

    @Test func upRecallsEarlierExpiriesButNeverANumber() {
        var engine = BundledRules.engine()
        _ = engine.handle(Key.typing("4111111111111111" + "1230" + "123") + [.enter])
        _ = engine.handle(Key.typing("378282246310005" + "0129" + "1234") + [.enter])
        // The last customer's number cannot be brought back by the next person.
        #expect(
            engine.handle(.historyPrevious).refusal?.text
                == "card numbers are never kept, so there is nothing to recall")
        #expect(engine.view.text == "")
        engine.type("4111111111111111")
        _ = engine.handle(.historyPrevious)
        #expect(engine.view.text == "01/29", "expiry recall is per field")
        _ = engine.handle(.historyPrevious)
        #expect(engine.view.text == "12/30")
        #expect(engine.handle(.historyPrevious).refusal?.text != nil)
        _ = engine.handle(.historyNext)
        #expect(engine.view.text == "01/29")
        _ = engine.handle(.historyNext)
        #expect(engine.view.text == "")
        _ = engine.handle(.historyPrevious)
        engine.type("")
        let cvv = engine.handle([.enter, .historyPrevious]).last
        #expect(cvv?.refusal?.text == "a CVV is never kept, so there is nothing to recall")
    }

    @Test func trayCommands() {
        var engine = BundledRules.engine()
        _ = engine.handle(Key.typing("4111111111111111" + "1230" + "123") + [.enter])
        _ = engine.handle(Key.typing("378282246310005" + "0129" + "1234") + [.enter])
        let cards = engine.handle(Key.typing(":cards") + [.enter]).last!
        #expect(cards.command == ":cards")
        #expect(
            cards.messages.map(\.text).prefix(2) == [
                "  1. Visa 411111••••••1111  expires 12/30", "* 2. American Express 378282•••••0005  expires 01/29",
            ])
        let use = engine.handle(Key.typing(":use 1") + [.enter]).last!
        #expect(use.messages.map(\.text).contains("* 1. Visa 411111••••••1111  expires 12/30"))
        let remove = engine.handle(Key.typing(":remove 1") + [.enter]).last!
        #expect(remove.messages.first?.text == "removed Visa 411111••••••1111")
        #expect(engine.tray.cards.count == 1 && engine.tray.selected == 0)
        #expect(engine.handle(Key.typing(":use 5") + [.enter]).last!.messages.first?.kind == .error)
        #expect(
            engine.handle(Key.typing(":crads") + [.enter]).last!.messages.first?.text
                == "unknown command `:crads`; did you mean `:cards`?")
        #expect(engine.handle(Key.typing(":quit") + [.enter]).last!.event == .quit)
    }

    @Test func commandsWorkInAnyEmptyFieldAndKeepTheCard() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111")
        #expect(engine.field == .expiry)
        engine.type(":rules")
        #expect(engine.view.text == ":rules" && engine.view.isCommand)
        let outcome = engine.handle(.enter)
        #expect(outcome.messages.contains { $0.text.hasPrefix("visa ") })
        #expect(engine.field == .expiry && engine.numberDigits.count == 16)
        engine.type(":clear")
        _ = engine.handle(.enter)
        #expect(engine.field == .number && engine.numberDigits.isEmpty)
        // A colon in a non-empty field is just a refused character.
        engine.type("4")
        #expect(engine.handle(.character(":")).refusal?.text != nil)
    }

    @Test func backspaceOutOfACommandReturnsToTheField() {
        var engine = BundledRules.engine()
        engine.type(":c")
        _ = engine.handle([.backspace, .backspace])
        #expect(engine.command == nil && engine.field == .number)
        #expect(engine.handle(.backspace).refusal?.text == "the card number is already empty")
    }
}

extension String {
    func leftPaddedWithZeros(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

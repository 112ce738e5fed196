import CardKit
import Testing

/// `LengthSet.completeness(of:)`, the one rule for "complete" (issue 19, item 2), over the
/// bundled rules: the prompt moves on by itself only at `.final`, Enter takes
/// `.completeCanGrow`, and `check` calls a number complete exactly when `isComplete`.
@Suite struct CompletenessTests {
    @Test(arguments: [
        // (lengths, count, expected)
        ([16], 15, Completeness.incomplete),
        ([16], 16, .final),
        ([16], 17, .notALength),
        ([13, 16], 13, .completeCanGrow),
        ([13, 16], 14, .incomplete),
        ([13, 16], 16, .final),
        ([12, 13, 14, 15, 16, 17, 18, 19], 16, .completeCanGrow),
        ([12, 13, 14, 15, 16, 17, 18, 19], 19, .final),
        ([12, 13, 14, 15, 16, 17, 18, 19], 11, .incomplete),
        ([], 0, .notALength),
        ([16], 0, .incomplete),
        ([16], 31, .notALength),
        ([16], 40, .notALength),
        ([16], -1, .notALength),
    ])
    func completenessOfALengthSet(lengths: [Int], count: Int, expected: Completeness) {
        let result = LengthSet(lengths).completeness(of: count)
        #expect(result == expected)
        #expect(result.isComplete == lengths.contains(count))
    }

    /// Numbers typed in full (each Luhn-valid), what the bundled rules say of them, and so
    /// whether the prompt moves on by itself (`.final`), waits for Enter (`.completeCanGrow`)
    /// or has no complete number yet.
    @Test(arguments: [
        ("4111111111111111", "visa", Completeness.final),  // a common Visa: moves on at 16
        ("4136007351081", "visa", .completeCanGrow),  // a 13-digit Visa BIN: 16 still possible
        ("4136007351081017", "visa", .final),
        ("5555555555554444", "mastercard", .final),
        ("378282246310005", "american-express", .final),
        ("37828224631000", "american-express", .incomplete),
        ("4917300800000000", "visa-electron", .final),
        ("6759649826438453", "maestro", .completeCanGrow),  // 16 digits of a Maestro that has 19
        ("6759649826438453003", "maestro", .final),
        ("675964982648", "maestro", .completeCanGrow),  // Maestro's 12
        ("30117115353175", "diners-club", .completeCanGrow),  // Diners Club's 14
        ("3011711535317500", "diners-club", .completeCanGrow),  // and its 16
        ("6011111111111117", "discover", .completeCanGrow),  // Discover 16-19
        ("6216828057351082942", "unionpay", .final),
        ("3530111333300000", "jcb", .completeCanGrow),  // JCB 16-19
        ("41111111111111111", "visa", .notALength),  // 17 digits: no Visa length
        // Lengths by BIN from processors' public test cards (rules/visa.json, visa-electron.json):
        ("4013250000000000006", "v-pay", .final),  // Adyen's 19-digit V Pay
        ("4013257351082949", "v-pay", .completeCanGrow),  // the same BIN at 16: 19 still possible
        ("4012888888881881", "visa", .final),  // a neighbouring BIN still moves on at 16
        ("4242424242424242", "visa", .final),
        ("4911830000000", "visa", .completeCanGrow),  // Worldpay's 13-digit Visa
        ("4917610000000000003", "visa-electron", .final),  // Worldpay's 19-digit Visa Debit
        ("4917610000000000", "visa-electron", .completeCanGrow),  // and its 16-digit Visa
    ])
    func bundledRulesSayHowANumberStands(number: String, network: String, expected: Completeness) throws {
        let set = BundledRules.set
        let typed = digits(number)
        try #require(
            CardNumber.passesLuhn(typed) || expected == .incomplete || expected == .notALength,
            "\(number) must pass Luhn")
        let detection = set.detect(typed)
        #expect(detection.network?.id == network)
        #expect(detection.lengths.completeness(of: typed.count) == expected)

        // The prompt: typed key by key, it moves on by itself exactly at `.final`; before the
        // last digit it never has. (A number of no length cannot be typed: it moved on before.)
        guard expected != .notALength else { return try checkSaysComplete(number, expected) }
        var engine = BundledRules.engine()
        for (index, digit) in number.enumerated() {
            let outcome = engine.handle(.character(digit))
            if index < number.count - 1 {
                try #require(engine.field == .number, "\(number): moved on after \(index + 1) digits")
            }
            #expect(outcome.refusal?.text == nil)
        }
        #expect((engine.field == .expiry) == (expected == .final), "\(number): field \(engine.field)")
        if expected == .completeCanGrow {
            // It says so, and Enter (or Tab) moves on.
            #expect(engine.view.progress.hasSuffix("(\(typed.count) valid)"), "progress \(engine.view.progress)")
            var tab = engine
            #expect(engine.handle(.enter).fieldChanged)
            #expect(engine.field == .expiry)
            #expect(tab.handle(.character("\t")).fieldChanged)
            #expect(tab.field == .expiry)
        }

        try checkSaysComplete(number, expected)
    }

    /// `check`: a length problem exactly when the number is not complete.
    func checkSaysComplete(_ number: String, _ expected: Completeness) throws {
        let set = BundledRules.set
        let checker = CardCheck(rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        let record = Array((number + ",12/30").utf8)
        let result = checker.check(record.span)
        #expect(
            result.problems.contains(.length) == !expected.isComplete,
            "\(number): check finds \(result.problems.map(\.rawValue))")
    }

    /// The number turning complete while it can still grow says so once, on that digit.
    @Test func aCompleteNumberThatCanGrowSaysSoOnce() {
        var engine = BundledRules.engine()
        let outcomes = engine.type("3011711535317500")
        let said = outcomes.enumerated().filter {
            $0.element.messages.contains { $0.text.contains("Enter to continue, or keep typing") }
        }.map(\.offset)
        #expect(said == [13, 15], "said after digits \(said.map { $0 + 1 })")  // at 14 and 16 (both Luhn-valid)
        #expect(engine.field == .number)
    }

    /// A whole card on one line (a paste, a piped line): a number that is complete but could
    /// grow does not move on by itself, so a separator after it marks where it may end, and
    /// the expiry's digits that follow end it (at a `/`, or when they make it too long)
    /// rather than joining it. A longer number typed in groups is not cut at the separator.
    @Test(arguments: [
        ("6011111111111117 12/30 123", "6011111111111117"),
        ("6011 1111 1111 1117 12/30 123", "6011111111111117"),
        ("3011711535317500 12/30 123", "3011711535317500"),
        ("3011 711535 3175 00 12/30 123", "3011711535317500"),
        ("30117115353175 12/30 123", "30117115353175"),
        ("6759 6498 2643 8453 003 12/30 123", "6759649826438453003"),
        ("6759649826438453 12/30 123", "6759649826438453"),
        ("6011111111111117 1230 123", "6011111111111117"),  // no slash: the 20th digit ends it
        ("4111 1111 1111 1111 12/30 123", "4111111111111111"),
    ])
    func aWholeCardOnOneLineKeepsItsFieldsApart(line: String, number: String) throws {
        var engine = BundledRules.engine()
        let outcomes = engine.type(line)
        #expect(outcomes.allSatisfy { $0.refusal?.text == nil }, "\(outcomes.compactMap(\.refusal?.text))")
        let outcome = engine.handle(.enter)
        guard case .accepted(let card) = outcome.event else {
            Issue.record("\(line): not accepted: \(outcome.messages.map(\.text))")
            return
        }
        #expect(card.numberDigits == digits(number))
        #expect(card.expiry == YearMonth(year: 2030, month: 12))
        #expect(card.securityCodeDigits == digits("123"))
    }

    /// The separator only marks a place: typed on, the number keeps its digits, and Backspace
    /// forgets the mark.
    @Test func aSeparatorAloneDoesNotEndTheNumber() {
        var engine = BundledRules.engine()
        engine.type("6759649826438453 003")
        #expect(engine.field == .expiry)
        #expect(engine.numberDigits == digits("6759649826438453003"))
        var back = BundledRules.engine()
        back.type("6011111111111117 ")
        _ = back.handle(.backspace)
        back.type("71234")
        #expect(back.field == .number, "no mark after Backspace: the 20th digit is refused, not moved")
        #expect(back.numberDigits.count == 19)
    }
}

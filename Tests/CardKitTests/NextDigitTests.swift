import CardKit
import Testing

/// `EntryEngine.nextDigit()`, what the prompt echoes before the key comes: when it answers,
/// every one of the ten digits must do exactly that (taken with no message, the field and
/// network kept, the view extended by the digit or a group's space and the digit, the progress
/// it said); a digit the engine refuses must never have been answered for.
@Suite struct NextDigitTests {
    /// Checks `engine`'s answer against each digit typed on a copy of it; true when it answered.
    static func check(_ engine: EntryEngine, _ context: @autoclosure () -> String) -> Bool {
        var asked = engine
        guard let next = asked.nextDigit() else { return false }
        for digit in 0..<10 {
            var typed = engine
            var view = typed.view
            let outcome = typed.handle(.character(Character(Unicode.Scalar(UInt8(48 + digit)))))
            #expect(outcome == .accepted, "\(context()) digit \(digit): \(outcome)")
            #expect(typed.field == .number && typed.numberDigits.count == engine.numberDigits.count + 1, "\(context()) digit \(digit)")
            #expect(typed.detection == engine.detection, "\(context()) digit \(digit)")
            let appended = typed.extendView(&view)
            #expect(appended == (next.separated ? 2 : 1), "\(context()) digit \(digit)")
            #expect(view == typed.view, "\(context()) digit \(digit)")
            #expect(view.progress == next.progress, "\(context()) digit \(digit)")
            #expect(view.text.last == Character(Unicode.Scalar(UInt8(48 + digit))), "\(context()) digit \(digit)")
        }
        return true
    }

    /// Visa typed digit by digit: answered for the fourth digit on (`411` decides Visa, and no
    /// longer pattern begins with `411`; `41` may still be mada's `410685`), but not for the
    /// thirteenth and the sixteenth, which complete the number (13 and 16 are Visa's lengths:
    /// the Luhn sum decides what the digit does).
    @Test func visaDigitByDigit() {
        var engine = BundledRules.engine()
        var answered: [Bool] = []
        for character in "4111111111111111" {
            answered.append(Self.check(engine, "4111… at \(engine.numberDigits.count)"))
            _ = engine.handle(.character(character))
        }
        #expect(answered == [false, false, false] + Array(repeating: true, count: 9) + [false, true, true, false])
    }

    /// Not answered where a digit could do something else: a longer pattern begins with the
    /// digits typed (Visa's `4` and Elo's `401178`), a network not accepted, a `:` command.
    @Test func notAnsweredWhereADigitMayDiffer() {
        var engine = BundledRules.engine()
        engine.type("40117")
        var asked = engine
        #expect(asked.nextDigit() == nil)
        #expect(!BundledRules.set.noLongerPattern(startingWith: [4, 0, 1, 1, 7]))
        #expect(BundledRules.set.noLongerPattern(startingWith: [4, 1, 1, 1]))

        var onlyMastercard = EntryEngine(rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(iso: "2026-11")!),
                                         acceptedNetworks: AcceptedNetworks(ids: ["mastercard"]))
        onlyMastercard.type("4111")
        #expect(onlyMastercard.nextDigit() == nil)

        engine = BundledRules.engine()
        engine.type("41111")
        asked = engine
        #expect(asked.nextDigit() != nil)
        // A `:` command typed in the (empty) field: its digits are the command's.
        _ = engine.handle(.clearLine)
        engine.type(":41111")
        #expect(engine.command == ":41111")
        #expect(engine.nextDigit() == nil)
    }

    /// Random keys over the bundled rules and over 10,000 generated ranges (sample numbers,
    /// stray digits, deletions, Ctrl-N, commands, the other fields): after every key, an answer
    /// is what each digit does.
    @Test(arguments: [(UInt64(1), "bundled"), (2, "bundled"), (3, "bundled"), (4, "generated"), (5, "generated")])
    func randomKeys(seed: UInt64, setName: String) {
        let rules = setName == "bundled" ? BundledRules.set : RuleIndexTests.generated
        var random = SeededRandom(seed: seed)
        var samples: [[UInt8]] = []
        for network in rules.networks.prefix(60) { samples += rules.sampleNumbers(of: network, count: 2, seed: seed) }
        var engine = EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(iso: "2026-11")!))
        var answered = 0, keys = 0
        for _ in 0..<1_500 {
            let key = engine.randomKey(samples: samples, using: &random)
            _ = engine.handle(key)
            keys += 1
            if Self.check(engine, "seed \(seed) key \(keys) after \(key)") { answered += 1 }
        }
        // Answered often (a test that never sees an answer proves nothing).
        #expect(answered > 150, "\(answered) answers")
    }
}

import CardKit
import Testing

/// `EntryEngine.extendView(_:)`, the prompt's per-digit view: a view it extends must be exactly
/// the one `view(of:)` makes, and a view it cannot extend must be left as it was, whatever view
/// it is given (the one from before the key, or an older one).
@Suite struct ExtendViewTests {
    /// Visa typed digit by digit: every digit extends the view (by a group's space and the
    /// digit at 5, 9 and 13) but the third, which decides the network (`41` may still be
    /// another's: the badge and hint change), and the last, which moves on to the expiry.
    @Test func visaDigitByDigit() {
        var engine = BundledRules.engine()
        var view = engine.view
        var appended: [Int] = []
        for character in "4111111111111111" {
            _ = engine.handle(.character(character))
            var extended = view
            let count = engine.extendView(&extended)
            appended.append(count)
            if count == 0 {
                #expect(extended == view)
                view = engine.view
            } else {
                #expect(extended == engine.view)
                view = extended
            }
        }
        #expect(appended == [1, 1, 0, 1, 2, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 0])
    }

    /// What is not only an appended digit is not extended: a deleted digit, a new catalog's
    /// label, a `:` command typed in the field.
    @Test func refusesWhatIsNotAnAppend() {
        var engine = BundledRules.engine()
        engine.type("41111")
        let before = engine.view
        _ = engine.handle(.backspace)
        var view = before
        #expect(engine.extendView(&view) == 0)
        #expect(view == before)

        view = engine.view
        engine.type("2")
        let english = view
        engine.messages = MessageCatalog(language: "de")
        #expect(engine.messages.numberLabel != english.label)
        #expect(engine.extendView(&view) == 0)
        #expect(view == english)
        engine.messages = .english
        #expect(engine.extendView(&view) == 2)
        #expect(view == engine.view)
        #expect(view.text == "4111 2")

        _ = engine.handle(.clearLine)
        view = engine.view
        engine.type(":4")
        #expect(engine.view.isCommand)
        #expect(engine.extendView(&view) == 0)
        #expect(view.text.isEmpty)
    }

    /// Random keys over the bundled rules (sample numbers of every network, co-badged ones
    /// among them, with stray digits, deletions, Ctrl-N, commands and the other fields): after
    /// every key, the view from before it and views from further back are extended or left
    /// alone, never made wrong.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomKeys(seed: UInt64) {
        let rules = BundledRules.set
        var random = SeededRandom(seed: seed)
        var samples: [[UInt8]] = []
        for network in rules.networks { samples += rules.sampleNumbers(of: network, count: 2, seed: seed) }
        var engine = BundledRules.engine()
        var history: [EntryView] = [engine.view]
        var extendedCount = 0, keptCount = 0, staleExtended = 0
        for _ in 0..<4_000 {
            let key = engine.randomKey(samples: samples, using: &random)
            _ = engine.handle(key)
            let now = engine.view
            // The view from before the key, and one from up to eight keys back.
            let back = Int(random.next() % UInt64(min(8, history.count)))
            for (index, old) in [history[history.count - 1], history[history.count - 1 - back]].enumerated() {
                var view = old
                let count = engine.extendView(&view)
                if count > 0 {
                    #expect(view == now, "key \(key), \(old.text) → \(view.text), wanted \(now.text)")
                    #expect(view.text.utf8.count == old.text.utf8.count + count)
                    #expect(view.text.hasPrefix(old.text))
                    if index == 0 { extendedCount += 1 } else if back > 0 { staleExtended += 1 }
                } else {
                    #expect(view == old)
                    if index == 0 && old != now { keptCount += 1 }
                }
            }
            history.append(now)
            if history.count > 16 { history.removeFirst() }
        }
        // Both outcomes happened often (a test that cannot see an extension proves nothing).
        #expect(extendedCount > 300)
        #expect(keptCount > 300)
        #expect(staleExtended > 0)
    }
}

import CardKit
import Testing

/// The tray keeps cards packed; what comes out is what went in, masked.
@Suite struct CardTrayTests {
    @Test func cardsComeOutAsAccepted() throws {
        var engine = BundledRules.engine()
        for card in ["4111111111111111 12/30 123", "378282246310005 01/31 1234", "6011111111111117 11/29 123"] {
            _ = engine.type(card)
            _ = engine.handle(.enter)
        }
        let cards = engine.tray.cards
        #expect(engine.tray.count == 3)
        #expect(cards.map(\.maskedNumber) == ["411111••••••1111", "378282•••••0005", "601111••••••1117"])
        #expect(cards.map(\.lastFour) == ["1111", "0005", "1117"])
        #expect(cards.map(\.networkID) == ["visa", "american-express", "discover"])
        #expect(
            cards.map(\.expiry) == [
                YearMonth(year: 2030, month: 12), YearMonth(year: 2031, month: 1), YearMonth(year: 2029, month: 11),
            ])
        #expect(engine.tray.selected == 2)
        var tray = engine.tray
        #expect(tray.remove(2)?.networkID == "american-express")
        #expect(tray.cards.map(\.lastFour) == ["1111", "1117"])
        #expect(tray.selected == 1)
        #expect(
            tray.listing == [
                "  1. Visa 411111••••••1111  expires 12/30", "* 2. Discover 601111••••••1117  expires 11/29",
            ])
    }

    @Test func manyCardsAcrossChunks() {
        var engine = BundledRules.engine()
        for _ in 0..<5000 {
            _ = engine.type("4111111111111111 12/30 123")
            _ = engine.handle(.enter)
        }
        #expect(engine.tray.count == 5000)
        #expect(engine.tray[4999].maskedNumber == "411111••••••1111")
        #expect(engine.tray.selected == 4999)
    }
}

/// Replay has no renderer of its own: each field line it writes is the line the prompt leaves
/// on screen (`EntryEngine.finishedView(before:)` of the view before the key) drawn by the one
/// transcript renderer (`EntryView.transcriptLine`).
@Suite struct TranscriptLineTests {
    @Test(arguments: [
        "", "4", "41111", "4111111111111", "4111111111111111", "41111111111111111", "3782822463", "378282246310005",
        "4111111111111111 1", "4111111111111111 12", "4111111111111111 123", "4111111111111111 12/3",
        "4111111111111111 12/30",
        "4111111111111111 12/30 12", "378282246310005 12/30 123", "6", "62", "5", "2221", "3622720627166",
        "36227206271667",
        "4111111111111111 12/30 123<Enter>", "4111111111111111 :ca", "4111 1111 1111 1111 12/30 :", "4111<Enter>",
        "4111111111111111 12/30 12<Enter>", "4111111111111111 12/30 1234", "41111<C-c>", "4111111111111111 12<C-c>",
        "4111111111111111 :clear<Enter>", ":cards<Enter>", "4111111111111111 12/30 :xyz<Enter>",
        "4111111111111111 1<BS><BS><BS>",
        "378282246310005 12/30 123<Enter>4111111111111111 12/30 123<Enter>:cards<Enter>", "x",
        "4111111111111111 12/30 12x<Enter>",
    ])
    func replayWritesThePromptsFinishedLines(typed: String) throws {
        let script = try SessionScript.parse("@today 2026-11\n" + typed + "\n")
        for accepted in [nil, "visa,american-express"] {
            var engine = accepted.map { AcceptedNetworksTests.engine($0) } ?? BundledRules.engine()
            let networks = accepted.map { try! AcceptedNetworks.parse($0, in: BundledRules.set) }
            // The prompt's way: the view before every key, its finished view after.
            var expected: [String] = []
            var refusals = RefusalBurst()
            for step in script.steps {
                guard case .keys(let keys) = step.kind else { continue }
                for key in keys {
                    let before = engine.view
                    let outcome = engine.handle(key)
                    let reason = refusals.reasonToShow(outcome)
                    guard reason != nil || !outcome.messages.isEmpty else { continue }
                    expected.append(engine.finishedView(before: before).transcriptLine)
                    if let reason { expected.append(reason.line) }
                    expected += outcome.messages.map(\.line)
                }
            }
            expected.append(engine.view.transcriptLine)
            let replay = Replay.run(
                script, rules: BundledRules.set, today: YearMonth(year: 2026, month: 11), accepted: networks)
            #expect(replay.transcript == expected, "\(typed) \(accepted ?? "all")")
        }
    }
}

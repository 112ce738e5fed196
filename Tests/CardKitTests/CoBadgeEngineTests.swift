import CardKit
import Testing

/// The engine's side of co-badged cards: which network a card is reported and delivered as,
/// Ctrl-N and `:network`, `--networks`, on the fixture rules of `CoBadgeRulesTests`.
@Suite struct CoBadgeEngineTests {
    static let set = CoBadgeRulesTests.set
    /// Visa/Dankort, Luhn-valid, 16 digits.
    static let visaDankort = CoBadgeRulesTests.luhnValid("457100000000000")
    /// Visa/Mastercard/Dankort (the second `coBadged` entry), 16 digits (19 possible: Enter takes it).
    static let threeNetworks = CoBadgeRulesTests.luhnValid("457200000000000")

    static func engine(accepting ids: [String]? = nil) -> EntryEngine {
        EntryEngine(
            rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            acceptedNetworks: ids.map(AcceptedNetworks.init(ids:)))
    }

    /// Types a whole card and returns the card the engine hands over.
    static func submit(_ engine: inout EntryEngine) -> PaymentCard? {
        var outcome = Outcome.combined(engine.type("12/30123") + [engine.handle(.enter)])
        if outcome.event == nil {
            Issue.record("not submitted: \(outcome.messages.map(\.text)) \(outcome.refusal?.text ?? "")")
        }
        return outcome.takeAcceptedCard()
    }

    static func json(_ card: PaymentCard) -> String {
        var bytes: [UInt8] = []
        card.appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aCoBadgedCardIsReportedAsItsInternationalSchemeByDefault() throws {
        var engine = Self.engine()
        let outcomes = engine.type(Self.visaDankort)
        #expect(engine.detection.network?.id == "dankort")
        #expect(engine.network?.id == "visa")
        #expect(engine.alsoNetworks.map(\.id) == ["dankort"])
        #expect(engine.view(of: .number).logo == "VISA")
        #expect(engine.field == .expiry)
        #expect(
            outcomes.last!.messages.map(\.text).contains(
                "Network: Visa (also Dankort); Ctrl-N or :network ID changes it."))
        var card = try #require(Self.submit(&engine))
        #expect(card.network.id == "visa")
        #expect(
            Self.json(card).hasPrefix(
                #"{"network":"visa","alsoNetworks":["dankort"],"family":"visa","name":"Visa","number":"\#(Self.visaDankort)""#
            ))
        card.wipe()
    }

    @Test func ctrlNCyclesTheBadgeThroughTheCardsNetworks() throws {
        var engine = Self.engine()
        engine.type(Self.threeNetworks)
        #expect(engine.cardNetworks.map(\.id) == ["visa", "mastercard", "dankort"])
        var logos = [engine.view.logo]
        for _ in 0..<3 {
            #expect(engine.handle(.nextNetwork).disposition == .accepted)
            logos.append(engine.view(of: .number).logo)
        }
        #expect(logos == ["VISA", "MASTERCARD", "DANKORT", "VISA"])
        _ = engine.handle(.nextNetwork)
        _ = engine.handle(.nextNetwork)
        #expect(engine.network?.id == "dankort")
        #expect(engine.alsoNetworks.map(\.id) == ["visa", "mastercard"])
        var outcome = Outcome.combined([engine.handle(.enter)] + engine.type("12/30123") + [engine.handle(.enter)])
        #expect(
            outcome.messages.map(\.text).contains(
                "Success! Dankort •••• \(Self.threeNetworks.suffix(4)), expires 12/30"))
        let taken = outcome.takeAcceptedCard()
        var card = try #require(taken)
        #expect(
            Self.json(card).hasPrefix(
                #"{"network":"dankort","alsoNetworks":["visa","mastercard"],"family":"dankort","name":"Dankort""#))
        card.wipe()
        // The next card starts from the default again.
        engine.type(Self.visaDankort)
        #expect(engine.network?.id == "visa")
    }

    @Test func networkCommandListsAndChooses() throws {
        var engine = Self.engine()
        engine.type(Self.visaDankort)
        func run(_ line: String) -> Outcome { Outcome.combined(engine.type(line) + [engine.handle(.enter)]) }
        #expect(
            run(":network").messages.first?.text
                == "This card's networks: Visa (visa, chosen), Dankort (dankort); Ctrl-N or :network ID chooses.")
        #expect(run(":network DANKORT").messages.first?.text == "Network: Dankort (also Visa).")
        #expect(engine.network?.id == "dankort")
        #expect(engine.view(of: .expiry).logo == "DANKORT")
        let wrong = run(":network mastercard").messages.first
        #expect(
            wrong?.kind == .error && wrong?.text == "this card is not a `mastercard` card; its networks: visa, dankort")
        #expect(engine.network?.id == "dankort")
        #expect(
            run(":network visa dankort").messages.first?.text
                == "usage: :network [ID], where ID is one of the card's networks (:network lists them)")
        // A card number typed as the argument is never echoed.
        #expect(run(":network 4111111111111111").messages.first?.text.contains("4111111111111111") == false)
        var card = try #require(Self.submit(&engine))
        #expect(card.network.id == "dankort" && card.alsoNetworks.map(\.id) == ["visa"])
        card.wipe()
    }

    @Test func ctrlNOnACardWithOneNetworkKeepsItsOldMeaning() {
        var engine = Self.engine()
        #expect(
            engine.handle(.nextNetwork).refusal?.text
                == "Ctrl-N chooses among a co-badged card's networks; no network is known yet")
        engine.type("4111111111111111")
        #expect(engine.field == .expiry)
        // In the expiry field it is Down: recall, as before.
        #expect(engine.handle(.nextNetwork).refusal?.text == "already at the newest entry")
        _ = engine.handle(.backspace)
        #expect(
            engine.handle(.nextNetwork).refusal?.text
                == "Ctrl-N chooses among a co-badged card's networks; Visa cards have one")
        #expect(engine.network?.id == "visa" && engine.alsoNetworks.isEmpty)
        #expect(engine.view.logo == "VISA")
    }

    @Test func onlyAcceptedNetworksCanBeChosen() throws {
        var engine = Self.engine(accepting: ["dankort"])
        engine.type(Self.visaDankort)
        #expect(engine.field == .expiry)
        #expect(engine.network?.id == "dankort")
        #expect(engine.cardNetworks.map(\.id) == ["dankort"])
        // in the expiry field: recall
        #expect(engine.handle(.nextNetwork).refusal?.text == "already at the newest entry")
        #expect(engine.network?.id == "dankort")
        let picked = Outcome.combined(engine.type(":network visa") + [engine.handle(.enter)])
        #expect(picked.messages.first?.text == "Visa is not accepted here (accepted: Dankort)")
        _ = engine.handle(.backspace)  // back to the number field
        #expect(engine.handle(.nextNetwork).refusal?.text == "only Dankort of this card's networks is accepted here")
        _ = engine.handle(.enter)
        var card = try #require(Self.submit(&engine))
        #expect(Self.json(card).hasPrefix(#"{"network":"dankort","alsoNetworks":["visa"],"family":"dankort""#))
        card.wipe()
    }

    @Test func aCoBadgedCardIsTakenWhenAnyOfItsNetworksIs() {
        // Only Visa taken: a Dankort-only number is refused, a Visa/Dankort one goes through as Visa.
        var engine = Self.engine(accepting: ["visa"])
        #expect(
            engine.type("5").last?.refusal?.text
                == "a number starting 5 is Mastercard or Dankort, none accepted here (accepted: Visa)")
        #expect(engine.numberDigits.isEmpty)
        // Only Dankort taken: 4… may still grow into its co-badged 4571, 41 cannot.
        var dankort = Self.engine(accepting: ["dankort"])
        #expect(dankort.type("457").allSatisfy { $0.refusal?.text == nil })
        #expect(dankort.type("3").last?.refusal?.text == "Visa is not accepted here (accepted: Dankort)")
        engine.type(Self.visaDankort)
        #expect(engine.field == .expiry)
        #expect(engine.network?.id == "visa")
        // Only Mastercard taken: the three-network card goes through as Mastercard, Visa/Dankort not at all.
        var mastercard = Self.engine(accepting: ["mastercard"])
        mastercard.type(Self.threeNetworks)
        #expect(mastercard.network?.id == "mastercard")
        #expect(mastercard.alsoNetworks.map(\.id) == ["visa", "dankort"])
        var none = Self.engine(accepting: ["mastercard"])
        let outcomes = none.type(Self.visaDankort)
        #expect(
            outcomes.compactMap(\.refusal?.text).first
                == "Visa and Dankort are not accepted here (accepted: Mastercard)")
        #expect(none.numberDigits.count == 3)
    }

    @Test func helpNamesCtrlNAndTheNetworkCommand() {
        for cancelEndsEntry in [false, true] {
            let lines = EntryEngine.helpText(cancelEndsEntry: cancelEndsEntry)
            #expect(lines.contains { $0.contains("Ctrl-N") })
            #expect(lines.contains { $0.contains(":network ID") })
            #expect(lines.allSatisfy { $0.count <= 80 && $0.allSatisfy(\.isASCII) })
        }
    }

    @Test func replayCanChooseAndExpectTheNetwork() throws {
        let script = try SessionScript.parse(
            """
            @today 2026-11
            \(Self.visaDankort)
            @expect network visa
            @expect logo VISA
            <C-n>
            @expect network dankort
            @expect logo DANKORT
            <C-n>
            :network dankort<Enter>
            @expect message "Network: Dankort (also Visa)."
            12/30
            123<Enter>
            @expect accepted dankort \(Self.visaDankort.suffix(4))
            """)
        let result = Replay.run(script, rules: Self.set, today: YearMonth(year: 2026, month: 11))
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.cards.count == 1)
    }
}

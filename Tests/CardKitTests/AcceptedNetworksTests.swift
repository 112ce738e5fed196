import CardKit
import Foundation
import Testing

/// A merchant's accepted networks: parsing the list, refusals at the deciding keystroke, and
/// what the badge, help, `:rules` and `check` say.
@Suite struct AcceptedNetworksTests {
    static func engine(_ list: String) -> EntryEngine {
        EntryEngine(
            rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            acceptedNetworks: try! AcceptedNetworks.parse(list, in: BundledRules.set))
    }

    @Test func listTakesIDsAndBadgeNamesInAnyCase() throws {
        let accepted = try AcceptedNetworks.parse(" visa, MASTERCARD ,amex,visa", in: BundledRules.set)
        #expect(accepted.ids == ["visa", "mastercard", "american-express"])
        #expect(accepted.names(in: BundledRules.set) == "Visa, Mastercard and American Express")
    }

    @Test(arguments: [
        ("visa,mastercad", "unknown network `mastercad`; did you mean `mastercard`?"),
        (",,", "the list of accepted networks names no network"),
        ("nope\u{1B}[2J", "unknown network `nope\\u{1B}[2j`"),
    ])
    func unknownNetworksAreNamed(list: String, message: String) {
        #expect(throws: AcceptedNetworks.UnknownNetwork.self) { try AcceptedNetworks.parse(list, in: BundledRules.set) }
        do {
            _ = try AcceptedNetworks.parse(list, in: BundledRules.set)
        } catch {
            #expect(error.message.hasPrefix(message))
        }
    }

    @Test func aNumberOfAnotherNetworkIsRefusedAtTheKeystrokeThatDecidesIt() {
        var engine = Self.engine("visa,mastercard,american-express")
        // "3" could still be American Express: allowed.
        #expect(engine.handle(.character("3")) == .accepted)
        // "36" can only be Diners Club.
        let refused = engine.handle(.character("6"))
        #expect(
            refused.refusal?.text
                == "Diners Club is not accepted here (accepted: Visa, Mastercard and American Express)")
        #expect(engine.view.text == "3")
        // "34" is American Express: allowed, and the card goes through.
        engine.type("4")
        #expect(engine.detection.network?.id == "american-express")
        engine.type("0000000000009" + "1230" + "1234")
        guard case .accepted(let card) = engine.handle(.enter).event else {
            Issue.record("the American Express card was not accepted")
            return
        }
        #expect(card.network.id == "american-express")
    }

    @Test func aPrefixThatCanOnlyBeOthersIsRefusedWithTheirNames() {
        var engine = Self.engine("visa,mastercard")
        let outcome = engine.handle(.character("3"))
        #expect(outcome.refusal?.text == "no accepted network starts with 3 (accepted: Visa and Mastercard)")
        #expect(engine.numberDigits.isEmpty)
        // Two or three networks left are named.
        var amex = Self.engine("amex")
        #expect(amex.handle(.character("3")) == .accepted)
        #expect(
            amex.handle(.character("5")).refusal?.text
                == "a number starting 35 is JCB or LankaPay, none accepted here (accepted: American Express)")
    }

    @Test func aMoreSpecificNetworkInsideAnAcceptedOneDecides() {
        // Elo's 401178 lies inside Visa's 4: with only Visa taken, the sixth digit is refused.
        var visaOnly = Self.engine("visa")
        #expect(visaOnly.type("40117").allSatisfy { $0.refusal?.text == nil })
        #expect(visaOnly.handle(.character("8")).refusal?.text.hasPrefix("Elo is not accepted here") == true)
        #expect(
            visaOnly.handle(.character("9")).refusal?.text.hasPrefix("Elo is not accepted here") == true,
            "401179 is Elo too"
        )
        #expect(visaOnly.handle(.character("0")) == .accepted, "401170 is Visa")
        // With only Elo taken, 4 may still become Elo; 42 can only be Visa (or eftpos or mada,
        // whose co-badged BINs lie there).
        var eloOnly = Self.engine("elo")
        #expect(eloOnly.handle(.character("4")) == .accepted)
        #expect(
            eloOnly.handle(.character("2")).refusal?.text
                == "a number starting 42 is eftpos, mada or Visa, none accepted here (accepted: Elo)")
        #expect(eloOnly.type("01178").allSatisfy { $0.refusal?.text == nil })
        #expect(eloOnly.detection.network?.id == "elo")
    }

    @Test func badgeHelpAndRulesShowTheAcceptedSet() {
        var engine = Self.engine("visa,mastercard")
        #expect(engine.view.logo == "VISA/MASTERCARD")
        #expect(engine.help.text.contains("Visa and Mastercard accepted"))
        engine.type("4211")
        #expect(engine.view.logo == "VISA")
        _ = engine.handle(.clearLine)
        let rules = engine.handle(Key.typing(":rules") + [.enter]).last!.messages.map(\.text)
        #expect(
            Array(rules.prefix(2)) == ["Accepted here: Visa and Mastercard.", "The others are detected, then refused."])
        #expect(rules.contains { $0.hasPrefix("visa ") && $0.hasSuffix("  accepted") })
        #expect(rules.contains { $0.hasPrefix("diners-club ") && $0.hasSuffix("  not accepted here") })
        // Without a restriction, nothing changes.
        var all = BundledRules.engine()
        #expect(all.view.logo == "CARD")
        #expect(all.handle(Key.typing(":rules") + [.enter]).last!.messages.allSatisfy { !$0.text.contains("accepted") })
    }

    @Test func checkMarksOtherNetworksNotAccepted() throws {
        let accepted = try AcceptedNetworks.parse("visa", in: BundledRules.set)
        let checker = CardCheck(
            rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            accepted: accepted)
        func problems(_ record: String) -> [String] {
            let bytes = Array(record.utf8)
            return checker.check(bytes.span).problems.map(\.rawValue)
        }
        #expect(problems("4111111111111111,12/30,123") == [])
        #expect(problems("378282246310005,12/30,1234") == ["network_not_accepted"])
        #expect(problems("5555555555554445") == ["luhn", "network_not_accepted"])
    }
}

/// A card number typed as a `:` command (in the wrong place) is never echoed whole, recalled
/// or handed on for the history file.
@Suite struct CommandsHoldingNumbersTests {
    @Test(arguments: [
        ":4111 1111 1111 1111", ":4111-1111-1111-1111", ":use 4111111111111111", ":remove 4111.1111.1111.1111",
    ])
    func aNumberInACommandIsMaskedAndForgotten(line: String) {
        var engine = BundledRules.engine()
        let outcome = engine.handle(Key.typing(line) + [.enter]).last!
        #expect(outcome.command == nil, "not handed on for the history file")
        let shown = outcome.messages.map(\.text).joined(separator: "\n")
        #expect(
            !shown.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "-", with: "").replacingOccurrences(
                of: ".", with: ""
            ).contains("4111111111111111"), "\(shown)")
        #expect(!shown.isEmpty)
        #expect(engine.handle(Key.typing(":") + [.historyPrevious]).last?.refusal?.text != nil, "nothing to recall")
        // The line left on screen above the message is masked too.
        var typing = BundledRules.engine()
        typing.type(line)
        #expect(!typing.view.maskedText.contains("1111 1111 1111"))
        #expect(!typing.view.transcriptLine.contains("1111 1111 1111"))
    }

    @Test func ordinaryCommandsAreStillKept() {
        var engine = BundledRules.engine()
        #expect(engine.handle(Key.typing(":use 12") + [.enter]).last?.command == ":use 12")
        engine.type(":")
        #expect(engine.handle(.historyPrevious) == .accepted)
        #expect(engine.view.text == ":use 12")
    }
}

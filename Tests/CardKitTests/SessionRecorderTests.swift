import CardChip
import CardKit
import Foundation
import Testing

/// Issue 41, item 2, in the core: a card typed or pasted into an engine, recorded, gives a
/// script that replays green and shows none of the card's digits after its first six, and a
/// made-up number follows the typed one's path through the rules.
@Suite struct SessionRecorderTests {
    static let today = YearMonth(year: 2026, month: 11)

    /// The keys typed into a fresh engine (a paste when `pasted`), each told to a recorder: the
    /// script it wrote.
    static func record(_ inputs: [(keys: [Key], pasted: Bool)], rules: RuleSet) -> String {
        var engine = EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: today))
        var recorder = SessionRecorder(engine: engine, ruleFolders: [], recorded: "in a test", reloadingWith: nil)
        var text: [UInt8] = []
        for input in inputs {
            for key in input.keys { recorder.note(key, engine.handle(key), engine: engine) }
            text += recorder.endInput(pasted: input.pasted)
        }
        text += recorder.finish()
        return String(decoding: text, as: UTF8.self)
    }

    /// Lines of `script` that show four digits in a row of `number` after its first six.
    static func linesShowing(_ number: [UInt8], in script: String) -> [String] {
        let tail = number.dropFirst(6).map { Character(String($0)) }
        return script.split(separator: "\n").map(String.init).filter { line in
            let digits = line.filter { $0 != " " && $0 != "-" }
            return (0...(tail.count - 4)).contains { digits.contains(String(tail[$0..<$0 + 4])) }
        }
    }

    @Test func everyNetworksNumbersAreRecordedWithoutTheirDigitsAndReplay() throws {
        let rules = BundledRules.set
        var recorded = 0
        for network in rules.networks {
            let code = [UInt8](repeating: 7, count: CardPolicy.securityCode(for: network).maxLength)
            for (index, number) in rules.sampleNumbers(of: network, count: 2, seed: 41).enumerated() {
                let typed = Key.typing(CardNumber.string(number))
                // Typed key by key, or pasted; then Enter (moving on from a number that can grow,
                // refused on an empty expiry), an expiry, the code and a submit.
                let singly: (Key) -> (keys: [Key], pasted: Bool) = { ([$0], false) }
                let numberKeys: [(keys: [Key], pasted: Bool)] = index == 0 ? typed.map(singly) : [(typed, true)]
                let rest: [(keys: [Key], pasted: Bool)] =
                    [([.enter], false)] + Key.typing("1230").map(singly)
                    + Key.typing(CardNumber.string(code)).map(singly) + [([.enter], false)]
                let script = Self.record(numberKeys + rest, rules: rules)
                let replay = Replay.run(try SessionScript.parse(script), rules: rules, today: Self.today)
                #expect(replay.passed, "\(network.id) \(replay.failures)\n\(script)")
                #expect(
                    Self.linesShowing(number, in: script).isEmpty,
                    "\(network.id): \(Self.linesShowing(number, in: script))")
                // (A co-badged card is delivered as its first network: Visa for a Dankort `4571…`.)
                let delivered = rules.verdict(for: number).detection.networks.first ?? network
                #expect(
                    script.contains("@expect accepted \(delivered.id) ") || network.status == .retired, "\(network.id)")
                recorded += 1
            }
        }
        #expect(recorded > 100)
    }

    /// A card read from its chip, inserted or tapped, is written as a made-up card's answers
    /// (`@chip`, `@tap`) that the replay reads the same way; one that could not be read, as
    /// one that cannot.
    @Test func chipReadsAreMadeUpCards() throws {
        let rules = BundledRules.set
        let number = "4556737586899855"
        for contactless in [false, true] {
            var test = TestCard.visaContact(number: number, expiry: "301231")
            guard case .read(var card) = test.read(known: rules.knownAIDs) else {
                Issue.record("the test card was not read")
                return
            }
            card.contactless = contactless
            let script = Self.record(
                [([.chip(card)], false), ([.chip(nil)], false)] + Key.typing("737").map { ([$0], false) }
                    + [([.enter], false)],
                rules: rules)
            #expect(script.contains(contactless ? "\n@tap " : "\n@chip "), "\(script)")
            #expect(script.contains("\n@chip 6A82\n"))
            #expect(script.contains("@expect entry \(contactless ? "contactless" : "chip")"), "\(script)")
            let replay = Replay.run(try SessionScript.parse(script), rules: rules, today: Self.today)
            #expect(replay.passed, "\(replay.failures)\n\(script)")
            #expect(Self.linesShowing(Array(number.utf8).map { $0 - 48 }, in: script).isEmpty)
            #expect(!script.contains(Hex.string(Array("LOVELACE".utf8))))
        }
    }

    /// What the session-record fuzzer found (Tests/Fuzz/SessionRecordFuzz.swift), as terminal
    /// bytes: each recorded session must replay green.
    @Test(arguments: [
        // A lone `%` typed, written as a key line: replay read it as a swipe.
        "Mzd4Mv//////////OCvO1TQ2MzEwMDA1JVQCAAAAAAAAMCAxMjM0DRU6cnVsZXMNAxtbRBtbMTs1Qw==",
        "NDU3MTc0Nf9EDRU6cgMbukQbWzEeCTEyMzEwMC//////////WzEeCTEyMzEwMC//////////zxU6cgMbukQzMDczNg0=",
    ])
    func fuzzFindingsReplay(_ base64: String) throws {
        let today = Self.today
        var engine = EntryEngine(rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: today))
        var recorder = SessionRecorder(engine: engine, ruleFolders: [], recorded: "a test", reloadingWith: nil)
        var decoder = KeyDecoder()
        var script: [UInt8] = []
        var typed: [[UInt8]] = []
        for key in decoder.feed([UInt8](try #require(Data(base64Encoded: base64)))) + decoder.finish() {
            let keys = key.entryKeys
            guard !keys.isEmpty else { continue }
            for key in keys {
                recorder.note(key, engine.handle(key), engine: engine)
                if engine.numberDigits.count >= 13 { typed.append(engine.numberDigits) }
            }
            var pasted = false
            if case .paste = key.base { pasted = true }
            script += recorder.endInput(pasted: pasted)
        }
        script += recorder.finish()
        let text = String(decoding: script, as: UTF8.self)
        let replay = Replay.run(try SessionScript.parse(text), rules: BundledRules.set, today: today)
        #expect(replay.passed, "\(replay.failures)\n\(text)")
        // No typed number whole on a line (spaces and dashes left out).
        for line in text.split(separator: "\n") {
            let digits = line.filter { $0 != " " && $0 != "-" }
            for number in typed { #expect(!digits.contains(CardNumber.string(number)), "\(line)") }
        }
    }

    @Test func aMadeUpNumberFollowsTheTypedOnesPath() {
        let rules = BundledRules.set
        var random = SystemRandomNumberGenerator()
        for network in rules.networks {
            for number in rules.sampleNumbers(of: network, count: 3, seed: 9) {
                let made = rules.madeUpNumber(following: number, using: &random)
                #expect(made.count == number.count)
                #expect(made.prefix(6) == number.prefix(6))
                for length in 1...number.count {
                    let typed = rules.verdict(for: Array(number.prefix(length)))
                    let madeUp = rules.verdict(for: Array(made.prefix(length)))
                    #expect(
                        typed.detection == madeUp.detection && typed.verdict == madeUp.verdict,
                        "\(network.id) at \(length)")
                }
                // A later digit is the typed one only where no other digit keeps the path.
                for position in 6..<number.count where made[position] == number[position] {
                    let wanted = rules.verdict(for: Array(number.prefix(position + 1)))
                    for digit in UInt8(0)...9 where digit != number[position] {
                        let other = rules.verdict(for: Array(made.prefix(position)) + [digit])
                        #expect(
                            other.detection != wanted.detection || other.verdict != wanted.verdict,
                            "\(network.id): digit \(position + 1) kept though \(digit) keeps the path")
                    }
                }
            }
        }
    }
}

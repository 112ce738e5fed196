import Foundation
import Testing

/// Issue 22, item 3, through the real binary: a co-badged card (a `coBadged` entry of a
/// domestic network's rule file) is shown and delivered as its international scheme, Ctrl-N
/// moves the badge through the card's networks, and the delivered JSON carries the one chosen
/// as `network` and the others in `alsoNetworks`. Rules from a folder written here (no bundled
/// rules): the bundled data is another piece of work.
@Suite struct CoBadgedCardTests {
    let home = TemporaryHome()
    /// Luhn-valid: Visa/Dankort (`4571`), Dankort alone (`5019`).
    static let visaDankort = "4571000000000001"
    static let dankortOnly = "5019000000000008"

    /// The rule folder: Visa, and Dankort with `4571` co-badged with Visa.
    func rules() throws -> [String] {
        let folder = home.path + "/cobadge-rules"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        {"id": "visa", "name": "Visa", "logo": "VISA", "prefixes": ["4"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}

        """.write(toFile: folder + "/visa.json", atomically: true, encoding: .utf8)
        try """
        {"id": "dankort", "name": "Dankort", "logo": "DANKORT", "prefixes": ["5019"], "lengths": [16],
         "coBadged": [{"with": ["visa"], "prefixes": ["4571"]}], "cvv": {"name": "CVV", "length": 3}}

        """.write(toFile: folder + "/dankort.json", atomically: true, encoding: .utf8)
        return ["--no-default-rules", "--rules", folder]
    }

    func start(_ arguments: [String]) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history", "--print", "--once"] + rules() + arguments,
            environment: home.environment, pipes: [1])
        t.waitForRawMode()
        return t
    }

    /// The one JSON record the program printed.
    func delivered(_ text: String) throws -> [String: Any] {
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1, "records printed: \(lines.count)")
        let line = try #require(lines.first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The screen's row holding the live expiry field (its badge at the right).
    static func expiryRow(_ screen: ScreenModel) -> String? { screen.lines.last { $0.hasPrefix("Expiry") } }

    @Test func ctrlNChangesTheBadgeAndTheDeliveredNetwork() throws {
        let t = try start([])
        t.expect("Card number (")
        t.send(Self.visaDankort)
        t.expect("Network: Visa (also Dankort); Ctrl-N or :network ID changes it.")
        t.waitForScreen("the VISA badge on the expiry row") { Self.expiryRow($0)?.contains("VISA") == true }
        t.send("\u{0E}")  // Ctrl-N
        let screen = t.waitForScreen("the DANKORT badge on the expiry row") {
            Self.expiryRow($0)?.contains("DANKORT") == true
        }
        #expect(screen.map { Self.expiryRow($0)?.contains("VISA") } == false)
        t.send("1230")
        t.expect("Type the 3-digit")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        let card = try delivered(t.pipedText(1))
        #expect(card["network"] as? String == "dankort")
        #expect(card["also_networks"] as? [String] == ["visa"])
        #expect(card["family"] as? String == "dankort")
        #expect(card["network_name"] as? String == "Dankort")
        #expect(card["number"] as? String == Self.visaDankort)
        #expect(
            t.screen.lines.contains { $0.hasSuffix("Success! Dankort •••• 0001, expires 12/30") }, "\(t.screen.lines)")
        // Masking is unchanged: the finished lines show no more than six and four digits.
        #expect(!t.screen.lines.contains { $0.filter(\.isNumber).contains(Self.visaDankort.dropFirst(6).dropLast(4)) })
    }

    @Test func byDefaultTheInternationalSchemeIsDeliveredAndTheOtherSaid() throws {
        let t = try start([])
        t.expect("Card number (")
        t.send(Self.visaDankort)
        t.expect("Type the expiry date")
        t.send("1230")
        t.expect("Type the 3-digit")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        let card = try delivered(t.pipedText(1))
        #expect(card["network"] as? String == "visa")
        #expect(card["also_networks"] as? [String] == ["dankort"])
        #expect(card["family"] as? String == "visa")
    }

    /// `--networks visa`: Dankort's own numbers are refused; a Visa/Dankort card is taken as
    /// Visa, and Ctrl-N cannot choose Dankort (in the expiry field it recalls, as Down does).
    @Test func networksRestrictsTheChoice() throws {
        let t = try start(["--networks", "visa"])
        t.expect("Card number (")
        t.send("5")
        t.expect("Dankort is not accepted here (accepted: Visa)")
        t.send(Self.visaDankort)
        t.expect("Type the expiry date")
        t.send("\u{0E}")
        t.expect("already at the newest entry")
        #expect(t.waitForScreen("the VISA badge") { Self.expiryRow($0)?.contains("VISA") == true } != nil)
        t.send(":network dankort\r")
        t.expect("Dankort is not accepted here (accepted: Visa)")
        t.send("1230")
        t.expect("Type the 3-digit")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        let card = try delivered(t.pipedText(1))
        #expect(card["network"] as? String == "visa")
        #expect(card["also_networks"] as? [String] == ["dankort"])
    }

    /// On a pipe, `:network ID` on its own line after the number chooses; a card with one
    /// network says `"also_networks":[]`.
    @Test func pipedInputChoosesWithTheNetworkCommand() throws {
        let input = "\(Self.visaDankort)\n:network dankort\n12/30 123\n\(Self.dankortOnly) 12/30 123\n"
        let run = try runPiped(
            ["--today", "2026-11", "--no-history", "--print"] + rules(), input: input, environment: home.environment)
        #expect(run.status == 0, "\(run.errors)")
        let records = run.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(records.map { $0["network"] as? String } == ["dankort", "dankort"], "\(run.output)")
        #expect(records.map { $0["also_networks"] as? [String] } == [["visa"], []])
        #expect(run.errors.contains("Network: Dankort (also Visa)."), "\(run.errors)")
    }

    /// `check` reports a co-badged card as the prompt delivers it, and `rules test` says both
    /// networks; a range with its own `"luhn": false` is not checked, in both.
    @Test func checkAndRulesTestKnowCoBadgedCardsAndLuhnPerRange() throws {
        let rules = try self.rules()
        try """
        {"id": "unionpay", "name": "UnionPay", "prefixes": ["62"], "lengths": [16],
         "lengthsFor": [{"prefixes": ["6221"], "lengths": [16], "luhn": false}], "cvv": {"name": "CVN", "length": 3}}

        """.write(toFile: rules[2] + "/unionpay.json", atomically: true, encoding: .utf8)
        // 6221… and 6220… both failing Luhn.
        let check = try runPiped(
            ["check", "--today", "2026-11"] + rules, input: "\(Self.visaDankort)\n6221000000000001\n6220000000000002\n",
            environment: home.environment)
        let records = check.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(
            records.map { $0["network"] as? String } == ["visa", "unionpay", "unionpay"],
            "\(check.output)\(check.errors)")
        #expect(records.map { $0["valid"] as? Bool } == [true, true, false])
        let test = try runPiped(
            ["rules", "test"] + rules + [Self.visaDankort, "6221000000000001"], input: "", environment: home.environment
        )
        #expect(test.output.contains("  co-badged: also visa; reported as visa"), "\(test.output)\(test.errors)")
        #expect(test.output.contains("  luhn:      not checked for 6221"), "\(test.output)")
        let show = try runPiped(["rules", "show", "dankort"] + rules, input: "", environment: home.environment)
        #expect(show.output.contains("\n  co-badged:    with visa: 4571\n"), "\(show.output)")
        let unionpay = try runPiped(["rules", "show", "unionpay"] + rules, input: "", environment: home.environment)
        #expect(unionpay.output.contains("  luhn:         checked (not checked for 6221)\n"), "\(unionpay.output)")
    }
}

import Foundation
import Testing

/// One card record for programs (issue 38): the same card typed at the prompt, piped, replayed,
/// checked and encrypted comes out with the same members and the same values, each surface
/// with the members it is meant to have (`CardRecord`): the prompt and the pipe every member,
/// `replay --json` all but the number and the code, `check` what a record tells (the networks
/// as the prompt would deliver the card, masked, last four, expiry), the encrypted card its
/// clear members beside the JWE.
@Suite struct CardRecordTests {
    let home = TemporaryHome()

    /// A card as typed at the prompt, as one piped line, and as `.session` lines.
    struct Card: CustomStringConvertible {
        var description: String
        var options: [String] = []
        /// What is sent to the prompt, in steps (each waited on by the next field's label).
        var keys: [(expect: String, send: String)]
        var piped: String
        var session: String
        /// The members the prompt's record has.
        var members: Set<String>
    }

    static let common: Set<String> = [
        "network", "network_name", "family", "also_networks", "number", "masked", "last4", "expiry", "cvv", "entry",
    ]
    static let swipe = "%B4111111111111111^LOVELACE/ADA^3012201000000000000?;4111111111111111=30122010000000000?"

    static let cards: [Card] = [
        Card(
            description: "plain", keys: [("Card number", "4111111111111111"), ("Expiry", "1230"), ("CVV", "123\r")],
            piped: "4111111111111111 12/30 123\n", session: "4111111111111111 12/30 123<Enter>\n", members: common),
        Card(
            description: "co-badged",
            keys: [("Card number", "4571000000000001"), ("Expiry", "1230"), ("CVV", "123\r")],
            piped: "4571000000000001 12/30 123\n", session: "4571000000000001 12/30 123<Enter>\n", members: common),
        Card(
            description: "swiped", keys: [("Card number", swipe + "\r"), ("CVV", "123\r")], piped: swipe + "\n123\n",
            session: "@swipe \(swipe)\n123<Enter>\n", members: common.union(["chip"])),
        Card(
            description: "fully named", options: ["--name", "--postal-code", "US"],
            keys: [
                ("Card number", "4111111111111111"), ("Expiry", "1230"), ("CVV", "123\r"), ("Name", "Jane Doe\r"),
                ("ZIP", "94105\r"),
            ],
            piped: "4111111111111111\t12/30\t123\tJane Doe\t94105\n",
            session: "@name\n@postal-code US\n4111111111111111 12/30 123 Jane Doe<Enter>\n94105<Enter>\n",
            members: common.union(["holder_name", "postal_code"])),
    ]

    static func object(_ line: some StringProtocol) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    /// The one line a run printed, as an object.
    static func only(_ output: String) throws -> [String: Any] {
        let lines = output.split(separator: "\n")
        try #require(lines.count == 1, "\(output)")
        return try object(lines[0])
    }

    func piped(_ arguments: [String], _ input: String) throws -> String {
        let run = try runPiped(
            ["--today", "2026-11", "--no-history"] + arguments, input: input, environment: home.environment)
        #expect(run.status == 0, "\(arguments): \(run.errors)")
        return run.output
    }

    @Test(arguments: cards)
    func theFiveSurfacesGiveTheSameMembers(card: Card) throws {
        // Typed at the prompt, through the real binary on a pseudo-terminal.
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--no-history", "--print", "--once"] + card.options,
            environment: home.environment, pipes: [1])
        t.waitForRawMode()
        for (label, keys) in card.keys {
            t.expect(label)
            t.send(keys)
        }
        #expect(t.waitForExit() == 0)
        let typed = try Self.only(t.pipedText(1))
        #expect(Set(typed.keys) == card.members, "typed: \(typed.keys.sorted())")

        let pipedCard = try Self.only(piped(["--print"] + card.options, card.piped))

        let script = home.path + "/card.session"
        try ("@today 2026-11\n" + card.session).write(toFile: script, atomically: true, encoding: .utf8)
        let report = try Self.only(
            try runPiped(["replay", "--json", script], input: "", environment: home.environment).output)
        let replayed = try #require((report["cards"] as? [[String: Any]])?.first, "\(report)")

        let records = home.path + "/records.txt"
        try
            (card.piped.hasPrefix("%") || card.options.contains("--name")
            ? try piped(["--print"] + card.options, card.piped) : card.piped)
            .write(toFile: records, atomically: true, encoding: .utf8)
        let run = try runPiped(["check", "--today", "2026-11", records], input: "", environment: home.environment)
        let checked = try Self.only(run.output)
        #expect(checked["valid"] as? Bool == true, "\(run.output)")

        let keys = home.path + "/keys"
        _ = try EncryptionTests.jweCheck(["keys", keys])
        let sealed = try Self.only(
            piped(["--print", "--encrypt-to", keys + "/public.pem"] + card.options, card.piped))

        let surfaces: [(name: String, record: [String: Any], members: Set<String>)] = [
            ("piped", pipedCard, card.members),
            ("replayed", replayed, card.members.subtracting(["number", "cvv"])),
            ("checked", checked, ["network", "network_name", "family", "also_networks", "masked", "last4", "expiry"]),
            (
                "encrypted", sealed,
                card.members.intersection([
                    "network", "network_name", "family", "also_networks", "last4", "expiry", "entry", "chip",
                ])
            ),
        ]
        for surface in surfaces {
            let own: Set<String> = ["line", "valid", "errors", "jwe"]
            #expect(
                Set(surface.record.keys).subtracting(own) == surface.members,
                "\(card) \(surface.name): \(surface.record.keys.sorted())")
            for member in surface.members {
                let same = (surface.record[member] as? NSObject) == (typed[member] as? NSObject)
                #expect(
                    same,
                    "\(card) \(surface.name) \(member): \(surface.record[member] ?? "-") ≠ \(typed[member] ?? "-")")
            }
        }
        if card.description == "co-badged" {
            #expect(typed["network"] as? String == "visa" && typed["also_networks"] as? [String] == ["dankort"])
        }
    }

    /// A tab-separated line with all five fields is delivered whole (issue 38 item 6): the Tab
    /// ends the name, which a space does not.
    @Test func aTabSeparatedLineCarriesEveryField() throws {
        let card = try Self.only(
            piped(["--print", "--name", "--postal-code", "US"], "4111111111111111\t12/30\t123\tJane Doe\t94105\n"))
        #expect(card["number"] as? String == "4111111111111111")
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        #expect(card["cvv"] as? String == "123")
        #expect(card["holder_name"] as? String == "Jane Doe")
        #expect(card["postal_code"] as? String == "94105")
    }

    /// On a pipe a space after a whole expiry ends it whatever the year's length (issue 39
    /// item 5): a past two-digit year gets the clear message, not a year 201… grown from the
    /// code's first digit.
    @Test func aSpaceAfterAPastTwoDigitYearEndsTheExpiry() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--no-history", "--print"], input: "4111111111111111 12/20 123\n",
            environment: home.environment)
        #expect(run.status == 1)
        #expect(run.errors.contains("12/20 is in the past; type a four-digit year as MM/YYYY"), "\(run.errors)")
        #expect(!run.errors.contains("201"), "\(run.errors)")
    }
}

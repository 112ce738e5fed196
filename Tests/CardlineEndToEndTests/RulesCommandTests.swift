import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A network of our own, written where a test says.
func writeTestNetwork(to folder: String, id: String = "testnet", prefix: String = "70", extra: String = "") throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try """
    {"id": "\(id)", "name": "TestNet", "logo": "TESTNET", "prefixes": ["\(prefix)"], "lengths": [16], "luhn": false,
     "cvv": {"name": "TSC", "length": 3}\(extra)}

    """.write(toFile: folder + "/\(id).json", atomically: true, encoding: .utf8)
}

@Suite struct RuleSourceTests {
    let home = TemporaryHome()

    func accepts(_ arguments: [String], environment: [String: String] = [:]) throws -> Bool {
        let run = try runPiped(
            ["--today", "2026-11"] + arguments, input: "7000 0000 0000 0001 12/30 555\n",
            environment: home.environment.merging(environment) { $1 })
        return run.status == 0 && run.output.contains("Success! TestNet •••• 0001")
    }

    @Test func aNewNetworkIsFoundInEachPlaceWithNoRebuild() throws {
        #expect(try !accepts([]), "not there before")
        let viaFlag = home.path + "/flag"
        try writeTestNetwork(to: viaFlag)
        #expect(try accepts(["--rules", viaFlag]))
        let viaEnvironment = home.path + "/env"
        try writeTestNetwork(to: viaEnvironment)
        #expect(
            try accepts([], environment: ["CARDLINE_RULES": home.path + "/elsewhere:" + viaEnvironment]) == false,
            "a CARDLINE_RULES folder that does not exist is an error")
        try FileManager.default.createDirectory(atPath: home.path + "/elsewhere", withIntermediateDirectories: true)
        #expect(try accepts([], environment: ["CARDLINE_RULES": home.path + "/elsewhere:" + viaEnvironment]))
        try writeTestNetwork(to: home.path + "/config/cardline/rules")
        #expect(try accepts([]), "found in $XDG_CONFIG_HOME/cardline/rules")
    }

    /// Only `replay` leaves the personal folder and CARDLINE_RULES out: the prompt and `check`
    /// read them, and refuse to start on a broken file there.
    @Test func thePromptAndCheckReadThePersonalFolderAndEnvironment() throws {
        let personal = home.path + "/config/cardline/rules"
        try FileManager.default.createDirectory(atPath: personal, withIntermediateDirectories: true)
        try "{\"id\": \"broken\",\n".write(toFile: personal + "/broken.json", atomically: true, encoding: .utf8)
        let message =
            "\(personal)/broken.json:2:1: error: invalid JSON: expected a quoted field name, found the end of the file"
        let check = try runPiped(
            ["check", "--today", "2026-11"], input: "4111111111111111,12/30,123\n", environment: home.environment)
        #expect(check.status == 65)
        #expect(check.errors.contains(message), "\(check.errors)")
        #expect(check.output.isEmpty)
        let prompt = try runPiped(
            ["--today", "2026-11"], input: "4111111111111111 12/30 123\n", environment: home.environment)
        #expect(prompt.status == 65)
        #expect(prompt.errors.contains(message), "\(prompt.errors)")

        try FileManager.default.removeItem(atPath: personal + "/broken.json")
        let viaEnvironment = home.path + "/env"
        try FileManager.default.createDirectory(atPath: viaEnvironment, withIntermediateDirectories: true)
        try "{\"id\": \"broken\",\n".write(toFile: viaEnvironment + "/broken.json", atomically: true, encoding: .utf8)
        let environment = home.environment.merging(["CARDLINE_RULES": viaEnvironment]) { $1 }
        let checkWithEnvironment = try runPiped(
            ["check", "--today", "2026-11"], input: "4111111111111111,12/30,123\n", environment: environment)
        #expect(checkWithEnvironment.status == 65)
        #expect(
            checkWithEnvironment.errors.contains("\(viaEnvironment)/broken.json:2:1: error: invalid JSON"),
            "\(checkWithEnvironment.errors)")
    }

    @Test func laterSourcesOverrideAndDisable() throws {
        let folder = home.path + "/mine"
        try writeTestNetwork(to: folder, id: "visa", prefix: "4")  // replaces the bundled Visa
        try """
        {"id": "maestro", "disabled": true}

        """.write(toFile: folder + "/no-maestro.json", atomically: true, encoding: .utf8)
        let list = try runPiped(
            ["rules", "list", "--rules", folder], input: "",
            environment: home.environment.merging(["COLUMNS": "1000"]) { $1 })
        #expect(list.status == 0)
        #expect(list.output.split(separator: "\n").contains { $0.hasPrefix("visa ") && $0.contains("TestNet") })
        #expect(list.output.split(separator: "\n").contains { $0.hasPrefix("visa ") && $0.hasSuffix(" 2") })
        #expect(list.output.contains("FROM 2: \(folder)\n"))
        #expect(!list.output.contains("maestro"))
        #expect(list.output.contains("mastercard"))
    }

    @Test func noDefaultRulesLeavesOnlyYourOwn() throws {
        let folder = home.path + "/only"
        try writeTestNetwork(to: folder)
        let list = try runPiped(
            ["rules", "list", "--no-default-rules", "--rules", folder], input: "", environment: home.environment)
        #expect(list.output.split(separator: "\n").count == 3)  // the heading, testnet, its folder
        #expect(list.output.contains("testnet"))
        let none = try runPiped(["rules", "list", "--no-default-rules"], input: "", environment: home.environment)
        #expect(none.status == 66)
    }
}

@Suite struct RulesSubcommandTests {
    let home = TemporaryHome()

    func cardline(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String, timedOut: Bool) {
        try runPiped(arguments, input: "", environment: home.environment)
    }

    @Test func listAsJSON() throws {
        let run = try cardline(["rules", "list", "--json"])
        let networks = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
        #expect(networks?.count == 64, "59 active and 5 retired bundled networks")
        let amex = networks?.first { $0["id"] as? String == "american-express" }
        #expect(amex?["patterns"] as? [String] == ["34", "37"])
        #expect(amex?["groups"] as? [Int] == [4, 6, 5])
        #expect((amex?["cvv"] as? [String: Any])?["name"] as? String == "CID")
        // The debug build reads the copy compiled into it (an installed one, its installed files).
        #expect(amex?["file"] as? String == "<bundled>/american-express.json")
    }

    @Test func showOneNetworkByIDOrLogo() throws {
        let run = try cardline(["rules", "show", "amex"])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("american-express — American Express\n"))
        #expect(run.output.contains("  groups:       4 6 5  (#### ###### #####)"))
        #expect(run.output.contains("  code:         CID, 4 digits, on the front"))
        let missing = try cardline(["rules", "show", "vias"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no network has the id `vias`\ncardline: hint: did you mean `visa`?"))
    }

    @Test func testExplainsPartialAndCompleteNumbers() throws {
        let run = try cardline(["rules", "test", "4111 1111 1111 1111", "3782", "3", "0", "4111-1111-1111-1112"])
        #expect(run.status == 1, "not every number is valid")
        #expect(
            run.output.contains(
                """
                411111••••••1111
                  network:   visa (Visa), decided by pattern 4 in
                """))
        #expect(
            run.output.contains("  length:    16 — valid (Visa allows 13, 16)\n  luhn:      passes\n  verdict:   valid")
        )
        #expect(run.output.contains("••82\n  network:   american-express (American Express), decided by pattern 37 in"))
        #expect(run.output.contains("  length:    4 — incomplete (American Express allows 15)"))
        #expect(
            run.output.contains(
                "•\n  network:   not decided yet; could still be american-express, china-t-union, diners-club, hipercard, jcb, lankapay"
            ))
        #expect(run.output.contains("•\n  network:   none — no network starts with these digits"))
        #expect(run.output.contains("411111••••••1112\n  network:   visa (Visa), decided by pattern 4 in"))
        #expect(run.output.contains("  luhn:      fails\n  verdict:   invalid"))
        #expect(!run.output.contains("4111111111111111") && !run.output.contains("4111 1111 1111 1111"))
        let allValid = try cardline(["rules", "test", "378282246310005", "6011 1111 1111 1117"])
        #expect(allValid.status == 0)
        #expect(allValid.output.contains("decided by pattern 6011 in"))
    }

    @Test func lintReportsEveryProblemWithItsPlace() throws {
        let clean = try cardline(["rules", "lint"])
        #expect(clean.status == 0)
        #expect(clean.output == "checked 64 files in 1 folder: 0 errors, 0 warnings\n")
        let folder = home.path + "/broken"
        try writeTestNetwork(to: folder, id: "copycat", prefix: "37")
        try writeTestNetwork(to: folder, id: "typo", prefix: "71", extra: ", \"lenghts\": [16]")
        let broken = try cardline(["rules", "lint", folder])
        #expect(broken.status == 65)
        #expect(
            broken.output.contains("\(folder)/typo.json:2:39: error: unknown field `lenghts`; did you mean `lengths`?"))
        #expect(
            broken.output.contains(
                "\(folder)/copycat.json:1:70: error: pattern 37 of `copycat` ties with pattern 37 of `american-express`"
            ))
        #expect(broken.output.hasSuffix("checked 66 files in 2 folders: 2 errors, 0 warnings\n"))
        #expect(try cardline(["rules", "lint", home.path + "/missing"]).status == 66)
    }

    /// Issue 22: a pattern inside another network's is a warning until either file's note
    /// names the other network; the bundled rules explain every overlap of theirs.
    @Test func lintWarnsOfOverlapsNoNoteExplains() throws {
        let folder = home.path + "/overlaps"
        try writeTestNetwork(to: folder, id: "acme", prefix: "4111")
        try writeTestNetwork(to: folder, id: "zeta", prefix: "37123")
        let run = try cardline(["rules", "lint", folder])
        #expect(run.status == 0, "warnings only")
        let lines = run.output.split(separator: "\n")
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "\(folder)/acme.json:1:67: warning: pattern 4111 of `acme` lies inside pattern 4 of `visa` (<bundled>/visa.json:"
                )
                    && $0.hasSuffix(
                        "and neither file's `note` names the other network; say in a `note` why these numbers are `acme`'s (or list them as co-badged)"
                    )
            }, "\(run.output)")
        #expect(
            lines.contains { $0.contains("pattern 37123 of `zeta` lies inside pattern 37 of `american-express`") },
            "\(run.output)")
        #expect(run.output.hasSuffix("checked 66 files in 2 folders: 0 errors, 2 warnings\n"))
        // A note naming the other network (by name or id) explains the overlap.
        try writeTestNetwork(
            to: folder, id: "acme", prefix: "4111", extra: #", "note": "A Visa co-brand: its own badge.""#)
        try writeTestNetwork(
            to: folder, id: "zeta", prefix: "37123", extra: #", "note": "Inside american-express on purpose.""#)
        let explained = try cardline(["rules", "lint", folder])
        #expect(explained.output == "checked 66 files in 2 folders: 0 errors, 0 warnings\n", "\(explained.output)")
    }
}

/// Every command that prints checks its writes: `rules` and its subcommands, help, version,
/// and the prompt's messages on a pipe (`check` and `replay`: their own suites).
@Suite struct WriteFailureTests {
    let home = TemporaryHome()

    static let commands: [[String]] = [
        ["rules", "list"], ["rules", "list", "--json"], ["rules", "show", "amex"],
        ["rules", "test", "4111111111111111"],
        ["rules", "lint"], ["rules", "sample", "visa"], ["--version"], ["--help"], ["rules", "--help"],
        ["--today", "2026-11"],
    ]

    /// A full disk: exit 74 and one message, whatever the command would have exited with.
    @Test(arguments: commands)
    func aFullStandardOutputIsExit74WithOneMessage(arguments: [String]) throws {
        let input = home.path + "/card.txt"
        try "4111 1111 1111 1111 12/30 123\n".write(toFile: input, atomically: true, encoding: .utf8)
        let run = try runWritingTo(.file("/dev/full"), arguments, input: input, environment: home.environment)
        #expect(run.status == 74)
        #expect(run.errors == "cardline: error: cannot write to standard output: No space left on device\n")
    }

    /// A reader that has gone away: exit 74 and no message (SIGPIPE is ignored, so the write
    /// fails with EPIPE rather than killing the process with 141).
    @Test(arguments: commands)
    func aClosedPipeIsExit74Quietly(arguments: [String]) throws {
        let input = home.path + "/card.txt"
        try "4111 1111 1111 1111 12/30 123\n".write(toFile: input, atomically: true, encoding: .utf8)
        let run = try runWritingTo(.closedPipe, arguments, input: input, environment: home.environment)
        #expect(run.status == 74)
        #expect(run.errors.isEmpty, "\(run.errors)")
    }
}

@Suite struct ReloadTests {
    let home = TemporaryHome()

    /// `:reload` picks up a new file and an edit; a broken edit keeps the rules in force.
    @Test func reloadPicksUpEditsAndKeepsRulesWhenBroken() throws {
        let folder = home.path + "/live"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--no-history", "--rules", folder],
            environment: home.environment)
        t.waitForRawMode()
        t.expect("Card number")
        t.send("72")
        t.expect("no card network starts with 72")
        t.send("\u{15}")
        try writeTestNetwork(to: folder, prefix: "72")
        t.send(":reload\r")
        t.expect("Rules reloaded: 60 networks.")
        t.send("72")
        t.expect("TESTNET 2/16")
        t.send("\u{15}")
        // A broken edit: the error is shown with its place, and TestNet keeps working.
        try "{\"id\": \"testnet\",\n  \"name\": 7}\n".write(
            toFile: folder + "/testnet.json", atomically: true, encoding: .utf8)
        t.send(":reload\r")
        t.expect("Rules not reloaded; the previous rules stay in force:")
        t.expect("\(folder)/testnet.json:2:11: error: `name` must be a string, found a number")
        t.send("72")
        t.expect("TESTNET 2/16")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

/// A network with an unusual security code (a 4-digit `CVX`) and no Luhn check, told the same
/// by `rules list`, `rules show`, `rules test`, `check` and the prompt: each asks `CardPolicy`,
/// none has a CVV of 3 or a Luhn check of its own.
@Suite struct PolicySurfacesTests {
    let home = TemporaryHome()

    @Test func anUnusualSecurityCodeAndValidityAreToldTheSameEverywhere() throws {
        let folder = home.path + "/odd"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        {"id": "oddcard", "name": "Oddcard", "logo": "ODD", "prefixes": ["70"], "lengths": [16], "luhn": false,
         "groups": [5, 6, 5], "cvv": {"name": "CVX", "length": 4, "side": "front"}}

        """.write(toFile: folder + "/oddcard.json", atomically: true, encoding: .utf8)
        let rules = ["--no-default-rules", "--rules", folder]
        let list = try runPiped(["rules", "list"] + rules, input: "", environment: home.environment)
        #expect(list.status == 0 && list.output.contains("CVX 4"), "\(list.output)")
        let show = try runPiped(["rules", "show", "oddcard"] + rules, input: "", environment: home.environment)
        #expect(show.output.contains("CVX, 4 digits, on the front"), "\(show.output)")
        // Not Luhn-valid, and valid here: the network does not check Luhn.
        let test = try runPiped(
            ["rules", "test", "7000 0000 0000 0002"] + rules, input: "", environment: home.environment)
        #expect(test.status == 0 && test.output.contains("verdict:   valid"), "\(test.output)")
        let short = try runPiped(
            ["rules", "test", "7000 0000 0000 000"] + rules, input: "", environment: home.environment)
        #expect(short.status == 1 && short.output.contains("verdict:   incomplete"), "\(short.output)")
        let check = try runPiped(
            ["check", "--today", "2026-11", "--format", "text"] + rules,
            input: "7000000000000002,12/30,1234\n7000000000000002,12/30,123\n",
            environment: home.environment)
        #expect(check.output.contains("line 1: 700000******0002  oddcard  valid"), "\(check.output)")
        #expect(check.output.contains("line 2: 700000******0002  oddcard  invalid (cvv_length)"), "\(check.output)")
        let short3 = try runPiped(
            ["--today", "2026-11"] + rules, input: "7000 0000 0000 0002 12/30 123\n", environment: home.environment)
        #expect(
            short3.status != 0 && short3.output.contains("the CVX has 4 digits; this has 3"),
            "\(short3.output) \(short3.errors)")
        let whole = try runPiped(
            ["--today", "2026-11"] + rules, input: "7000 0000 0000 0002 12/30 1234\n", environment: home.environment)
        #expect(whole.output.contains("Success! Oddcard •••• 0002"), "\(whole.output) \(whole.errors)")
    }
}

import Foundation
import Testing

/// cardline's face on the command line (issue 26 items 2, 3, 4, 7): `--help` names the
/// prompt's main options, every command-line mistake is `cardline: error: …` with at most one
/// `cardline: hint: …` line (argument-parser's `Error:` and usage too), did-you-mean finds
/// commands and networks, and tables fit the width.
@Suite struct ErrorStyleTests {
    let home = TemporaryHome()

    func run(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws
        -> (status: Int32, output: String, errors: String, timedOut: Bool)
    {
        try runPiped(arguments, input: input, environment: home.environment.merging(extra) { $1 })
    }

    /// Each mistake: its exit status and its whole standard error, nothing on standard output.
    @Test(arguments: [
        (["chek"], 64, "cardline: error: unknown command `chek`\ncardline: hint: did you mean `check`?\n"),
        (
            ["zzz"], 64,
            "cardline: error: unknown command `zzz`\ncardline: hint: the commands are `enter`, `replay`, `rules`, `check`, `messages` and `readers`; `cardline --help` says more\n"
        ),
        (["rules", "lst"], 64, "cardline: error: unknown command `lst`\ncardline: hint: did you mean `list`?\n"),
        (
            ["--netwrks", "visa"], 64,
            "cardline: error: unknown option `--netwrks`\ncardline: hint: did you mean `--networks`?\n"
        ),
        (
            ["check", "--bogus"], 64,
            "cardline: error: unknown option `--bogus`\ncardline: hint: `cardline check --help` lists the options\n"
        ),
        (
            ["--networks", "mc", "--print"], 64,
            "cardline: error: --networks: unknown network `mc`\ncardline: hint: did you mean `mastercard`?\n"
        ),
        (
            ["--networks", "visa,zzz", "--print"], 64,
            "cardline: error: --networks: unknown network `zzz`\ncardline: hint: `cardline rules list` lists the networks\n"
        ),
        (
            ["rules", "show", "vias"], 1,
            "cardline: error: no network has the id `vias`\ncardline: hint: did you mean `visa`?\n"
        ),
        (
            ["--today", "2026-13"], 64,
            "cardline: error: --today takes a year and month as YYYY-MM, like 2026-11; got `2026-13`\n"
        ),
    ])
    func aMistakeIsOneErrorLineAndAHint(arguments: [String], status: Int32, errors: String) throws {
        let result = try run(arguments)
        #expect(result.status == status)
        #expect(result.errors == errors)
        #expect(result.output.isEmpty)
    }

    /// Nothing in argument-parser's own style is left: no `Error:`, no usage block.
    @Test(arguments: [
        ["--print", "rules", "list"], ["--timeout"], ["check", "a", "--format", "nope"], ["replay"], ["zzz"],
    ])
    func noMistakeIsReportedInArgumentParsersStyle(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.first?.hasPrefix("cardline: error: ") == true, "\(result.errors)")
        #expect(
            lines.count <= 2 && lines.dropFirst().allSatisfy { $0.hasPrefix("cardline: hint: ") }, "\(result.errors)")
        #expect(!result.errors.contains("Error:") && !result.errors.contains("Usage:"), "\(result.errors)")
        // One quoting style for names (issue 39): `--timeout`, as in `chek`, never '--timeout'.
        #expect(!result.errors.contains("'"), "\(result.errors)")
    }

    /// The overview of `cardline help rules` names every one of its commands (issue 39: not `sample`).
    @Test func theRulesOverviewNamesEachCommand() throws {
        let help = try run(["help", "rules"])
        let overview = help.output.split(separator: "\n").first { $0.hasPrefix("OVERVIEW:") } ?? ""
        for command in ["list", "show", "test", "lint", "sample"] {
            #expect(overview.lowercased().contains(command), "\(overview)")
        }
    }

    /// A card number given as an argument by mistake is masked in the error.
    @Test func aCardNumberInAMistakeIsMasked() throws {
        let result = try run(["4111111111111111"])
        #expect(result.status == 64)
        #expect(!result.errors.contains("4111111111111111"), "\(result.errors)")
        #expect(result.errors.hasPrefix("cardline: error: "))
    }

    /// `cardline --help` lists the prompt's main options, one line each, each an option
    /// `cardline enter` takes, and says where the rest are.
    @Test func helpNamesTheMainOptionsAndWhereTheRestAre() throws {
        let help = try run(["--help"])
        #expect(help.status == 0)
        let enterHelp = try run(["enter", "--help"]).output
        for option in ["--print", "--once", "--networks", "--timeout", "--encrypt-to"] {
            let lines = help.output.split(separator: "\n").filter { $0.hasPrefix("  \(option) ") }
            #expect(lines.count == 1, "\(option) in:\n\(help.output)")
            #expect(enterHelp.contains("  \(option)"), "\(option) is not an option of enter")
        }
        #expect(help.output.contains("cardline enter --help"))
        #expect(help.output.contains("man cardline"))
        #expect(help.output.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    /// Piped input gets no hint about keys and `:help` (nobody is at a terminal); a refused
    /// line is still `✗ line N: …`.
    @Test func pipedInputHasNoInteractiveHint() throws {
        let result = try run(["--today", "2026-11"], input: "4111111111111111 12/30 123\nabc\n")
        #expect(result.status == 1)
        #expect(!result.output.contains(":help"), "\(result.output)")
        #expect(result.output.contains("✗ line 2: card number: "), "\(result.output)")
        // A number refused at its Enter says why once: not first at its last digit, then again.
        let invalid = try run(["--today", "2026-11"], input: "4111111111111112\n")
        #expect(invalid.status == 1)
        #expect(
            invalid.output == "✗ line 1: card number: card number is not valid — check the digits (card abandoned)\n",
            "\(invalid.output)")
    }

    /// A malformed script's error is printed once, with the column of what is wrong: the
    /// unknown network of a `@networks` list, after extra spaces.
    @Test func replaySaysAScriptsErrorOnceAtItsColumn() throws {
        let script = home.path + "/networks.session"
        try "@networks  visa, bogsu\n4111\n".write(toFile: script, atomically: true, encoding: .utf8)
        let result = try run(["replay", script])
        #expect(result.status == 65)
        let said = "\(script):1:18: error: @networks: unknown network `bogsu`"
        #expect(
            (result.output + result.errors).components(separatedBy: said).count == 2, "\(result.output)\(result.errors)"
        )
        let dates = home.path + "/date.session"
        try "@today   2026-13\n".write(toFile: dates, atomically: true, encoding: .utf8)
        let date = try run(["replay", dates])
        #expect(
            (date.output + date.errors).components(separatedBy: "\(dates):1:10: error: @today takes").count == 2,
            "\(date.output)\(date.errors)")
        // `@cvv-only` and `@postal-code` name the column of their argument, said once too.
        let onFile = home.path + "/cvv-only.session"
        try "@cvv-only   bogsu\n1234\n".write(toFile: onFile, atomically: true, encoding: .utf8)
        let code = try run(["replay", onFile])
        #expect(code.status == 65)
        #expect(
            (code.output + code.errors).components(
                separatedBy: "\(onFile):1:13: error: @cvv-only: unknown network `bogsu`"
            ).count == 2,
            "\(code.output)\(code.errors)")
        let postal = home.path + "/postal.session"
        try "@postal-code  XX\n".write(toFile: postal, atomically: true, encoding: .utf8)
        let country = try run(["replay", postal])
        #expect(
            (country.output + country.errors).components(
                separatedBy: "\(postal):1:15: error: @postal-code: unknown country `XX`"
            ).count == 2,
            "\(country.output)\(country.errors)")
        // With --json the error is in the object, and on standard error once for people.
        let json = try run(["replay", "--json", script])
        #expect(json.errors.components(separatedBy: said).count == 2 && json.output.contains("1:18: error: @networks"))
    }

    /// A script or folder that cannot be read is said in the one style.
    @Test func replaysUnreadableFilesAreSaidInTheOneStyle() throws {
        let result = try run(["replay", home.path + "/nope.session"])
        #expect(result.status == 66)
        #expect(result.errors == "cardline: error: cannot read \(home.path)/nope.session: no such file or folder\n")
    }

    /// `rules list` fits 80 columns, or `COLUMNS`; ids and names in full (issue 39: `American
    /// Ex…`), each file by its folder's number (and its path there when not `ID.json`), each
    /// folder named once under the table, resolved.
    @Test(arguments: [nil, 76, 100, 1000])
    func rulesListFitsTheWidth(columns: Int?) throws {
        let folder = home.path + "/mine"
        try writeTestNetwork(to: folder)
        let result = try run(
            ["rules", "list", "--rules", home.path + "/./mine/../mine/"],
            environment: columns.map { ["COLUMNS": String($0)] } ?? [:])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count > 40)
        #expect(
            lines.allSatisfy { $0.unicodeScalars.count <= columns ?? 80 }, "\(lines.max { $0.count < $1.count } ?? "")")
        #expect(!result.output.contains("<bundled>"))
        #expect(lines.contains { $0.hasPrefix("visa ") && $0.hasSuffix(" 1") })
        #expect(lines.contains { $0.hasPrefix("american-express     American Express  ") }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("testnet ") && $0.hasSuffix(" 2") }, "\(result.output)")
        #expect(lines.suffix(2) == ["FROM 1: the rules compiled into cardline", "FROM 2: \(folder)"][...])
        let table = lines.dropLast(2).filter { !$0.hasPrefix("retired") }
        #expect(table.allSatisfy { !$0.prefix(42).contains("…") }, "\(result.output)")
    }

    /// Installed, the bundled folder is named by its real path, not `…/bin/../share/…`.
    @Test func rulesListNamesAnInstalledFolderByItsRealPath() throws {
        let prefix = home.path + "/prefix"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: prefix + "/share/cardline/rules", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cardlineBinary, toPath: prefix + "/bin/cardline")
        let rules = URL(fileURLWithPath: cardlineBinary).deletingLastPathComponent()
            .appendingPathComponent("../../../rules").standardized.path
        for file in try FileManager.default.contentsOfDirectory(atPath: rules) where file.hasSuffix(".json") {
            try FileManager.default.copyItem(
                atPath: rules + "/" + file, toPath: prefix + "/share/cardline/rules/" + file)
        }
        let result = try runPiped(
            ["rules", "list"], input: "", environment: home.environment, executable: prefix + "/bin/cardline")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasSuffix("FROM 1: \(prefix)/share/cardline/rules\n"), "\(result.output)")
    }
}

import Foundation
import Testing

/// Where options may be typed, and how help text wraps.
@Suite struct CommandLineTests {
    let home = TemporaryHome()

    /// `cardline --rules DIR rules list`: options typed before the subcommand, as people type
    /// global options, reach it.
    @Test func optionsBeforeTheSubcommandReachIt() throws {
        let folder = home.path + "/mine"
        try writeTestNetwork(to: folder)
        let list = try runPiped(
            ["--no-default-rules", "--rules", folder, "rules", "list"], input: "", environment: home.environment)
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.output.contains("testnet"))
        #expect(!list.output.contains("visa"), "--no-default-rules reached rules list too")

        let test = try runPiped(
            ["--rules=" + folder, "rules", "test", "7000 0000 0000 0001"], input: "", environment: home.environment)
        #expect(test.status == 0, "\(test.errors)")
        #expect(test.output.contains("network:   testnet (TestNet)"), "\(test.output)")

        let check = try runPiped(
            ["--rules", folder, "--today", "2026-11", "check", "--format", "summary"],
            input: "7000000000000001,12/30,555\n", environment: home.environment)
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.errors.contains("1 records, 1 valid, 0 invalid"), "\(check.errors)")
    }

    /// An option the subcommand does not take is reported with that subcommand's usage, which
    /// shows where its options go.
    @Test func anOptionTheSubcommandDoesNotTakeNamesTheSubcommand() throws {
        let run = try runPiped(["--print", "rules", "list"], input: "", environment: home.environment)
        #expect(run.status == 64)
        #expect(run.errors.hasPrefix("cardline: error: unknown option `--print`\n"), "\(run.errors)")
        #expect(run.errors.contains("cardline rules list"), "\(run.errors)")
        #expect(run.output.isEmpty)
    }

    /// Arguments that parse as typed keep their meaning: a title that is a subcommand's name is
    /// still a title for the prompt.
    @Test func anOptionValueThatNamesASubcommandStaysAValue() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--title", "check"], input: "4111 1111 1111 1111 12/30 123\n",
            environment: home.environment)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.split(separator: "\n").first == "check", "\(run.output)")
        #expect(run.output.contains("Success! Visa •••• 1111"))
    }

    /// Every command's `--help`, at 80 columns and at 50: no line is wider than the terminal
    /// (argument-parser never wraps its USAGE and "See 'cardline help …'" lines, so those are
    /// held to 80 columns), and no
    /// help text has line breaks of its own inside a paragraph (they made the text wrap
    /// raggedly: argument-parser wraps each line it is given). The commands are those the
    /// binary describes (`--experimental-dump-help`), so a new one is checked too.
    @Test func helpWrapsAtEveryWidth() throws {
        let dump = try runPiped(["--experimental-dump-help"], input: "", environment: home.environment)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        var paths: [[String]] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            paths.append(path)
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, path + [name])
            }
        }
        walk(command, [])
        #expect(paths.count >= 8, "\(paths)")

        var hardBreaks: [String] = []
        func texts(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, value) in object {
                    if ["abstract", "discussion"].contains(key), let text = value as? String {
                        // (An indented list, like the main options in `cardline --help`, has a
                        // line per item.)
                        if text.replacingOccurrences(of: "\n\n", with: "").replacingOccurrences(of: "\n  ", with: " ")
                            .contains("\n")
                        {
                            hardBreaks.append(text)
                        }
                    } else {
                        texts(value)
                    }
                }
            } else if let array = value as? [Any] {
                array.forEach(texts)
            }
        }
        texts(command)
        #expect(hardBreaks.isEmpty, "help text with line breaks inside a paragraph: \(hardBreaks)")

        for path in paths {
            for width in [80, 50] {
                let help = try runPiped(
                    path + ["--help"], input: "", environment: home.environment.merging(["COLUMNS": "\(width)"]) { $1 })
                #expect(help.status == 0)
                for line in help.output.split(separator: "\n") {
                    let limit = line.hasPrefix("USAGE:") || line.hasPrefix("  See '") ? 80 : width
                    #expect(
                        line.count <= limit,
                        "cardline \(path.joined(separator: " ")) --help at \(width) columns: \(line)")
                }
            }
        }
    }
}

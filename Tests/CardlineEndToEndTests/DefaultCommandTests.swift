import Foundation
import Testing

/// `cardline ARGS` (argument-parser's default subcommand) against `cardline enter ARGS`: the
/// same output, messages and exit status for every command line, the everyday ones and the
/// wrong ones. (There is one parser, argument-parser; these lines once had a second.)
@Suite struct DefaultCommandTests {
    let home = TemporaryHome()

    /// Command lines that open the prompt: the same output, messages and status as `enter`'s.
    static let everydayLines: [[String]] = [
        [],
        ["--no-history", "--today", "2026-11"],
        ["--today=2026-11", "--no-color", "--once"],
        ["--print", "--once", "--today", "2026-11"],
        ["--networks", "visa,amex", "--today", "2026-11"],
        ["--networks=nope", "--today", "2026-11"],  // unknown network: exit 64 from the prompt
        ["--no-default-rules", "--today", "2026-11"],  // no rule folders: exit 66
        ["--rules", "/nonexistent/rules", "--today", "2026-11"],
        ["--retired", "--title", "Order 1042", "--today", "2026-11"],
        ["--today", "2026-11", "--today", "2026-12"],  // repeated: argument-parser keeps the last
    ]

    @Test(arguments: everydayLines)
    func theDefaultCommandIsEnter(arguments: [String]) throws {
        let input = "4111 1111 1111 1111 12/30 123\n"
        let quick = try runPiped(arguments, input: input, environment: home.environment)
        let full = try runPiped(["enter"] + arguments, input: input, environment: home.environment)
        #expect(!quick.timedOut && !full.timedOut)
        #expect(quick.status == full.status, "\(arguments): exit \(quick.status), through enter \(full.status)")
        #expect(quick.output == full.output, "\(arguments)")
        #expect(quick.errors == full.errors, "\(arguments)")
        #expect(!(quick.output + quick.errors).isEmpty, "\(arguments): nothing was said at all")
    }

    /// Wrong lines: argument-parser words the problem (its usage text then is the root
    /// command's, so only the error line and the status are compared).
    static let wrongLines: [[String]] = [
        ["--today", "2026-13"],
        ["--print", "--print-fd", "3"],
        ["--print-fd", "2"],
        ["--print-fd", "-1"],
        ["--print-fd", "x"],
        ["--title", "-x"],
        ["--title"],
        ["--once=yes"],
        ["--bogus"],
        ["--no-history", "extra"],
        ["-h"],
    ]

    @Test(arguments: wrongLines)
    func wrongLinesGetEntersMessages(arguments: [String]) throws {
        let input = "4111 1111 1111 1111 12/30 123\n"
        let quick = try runPiped(arguments, input: input, environment: home.environment)
        let full = try runPiped(["enter"] + arguments, input: input, environment: home.environment)
        #expect(quick.status == full.status, "\(arguments): exit \(quick.status), through enter \(full.status)")
        if arguments == ["-h"] {
            #expect(quick.status == 0 && quick.output.hasPrefix("OVERVIEW: "), "\(quick.output)")
        } else {
            #expect(quick.status == 64, "\(arguments): exit \(quick.status)")
            let firstLine = quick.errors.split(separator: "\n").first.map(String.init)
            #expect(
                firstLine != nil && firstLine!.hasPrefix("cardline: error: ")
                    && firstLine == full.errors.split(separator: "\n").first.map(String.init),
                "\(arguments): \(quick.errors)")
            #expect(quick.output.isEmpty, "\(arguments): a card was taken: \(quick.output)")
        }
    }

    /// `cardline --version` alone is answered before argument-parser is asked (`Cardline.main`):
    /// the same as argument-parser's own answer, which any other line with `--version` gets.
    @Test func theVersionAnswerIsArgumentParsers() throws {
        let fast = try runPiped(["--version"], input: "", environment: home.environment)
        for arguments in [["--version", "--version"], ["--version", "--today", "2026-11"], ["rules", "--version"]] {
            let parsed = try runPiped(arguments, input: "", environment: home.environment)
            #expect(fast.status == 0 && parsed.status == 0, "\(arguments): exit \(parsed.status)")
            #expect(
                fast.output == parsed.output && fast.errors == parsed.errors,
                "\(arguments): \(parsed.output) \(parsed.errors)")
        }
        #expect(fast.output.hasSuffix("\n") && fast.output.first?.isNumber == true, "\(fast.output)")
    }
}

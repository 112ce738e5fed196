import Foundation
import Testing

/// `cardline ARGS` (the prompt's own argument reader, `EnterSettings(quickParsing:)`, with
/// argument-parser behind it for anything else) against `cardline enter ARGS` (always
/// argument-parser): the same output, messages and exit status for every command line, the
/// everyday ones and those the quick reader must hand over.
@Suite struct QuickParseTests {
    let home = TemporaryHome()

    /// Command lines that open the prompt (nearly all read by the quick reader): the same
    /// output, messages and status as through argument-parser.
    static let quickLines: [[String]] = [
        [],
        ["--no-history", "--today", "2026-11"],
        ["--today=2026-11", "--no-color", "--once"],
        ["--print", "--once", "--today", "2026-11"],
        ["--networks", "visa,amex", "--today", "2026-11"],
        ["--networks=nope", "--today", "2026-11"],            // unknown network: exit 64 from the prompt
        ["--no-default-rules", "--today", "2026-11"],         // no rule folders: exit 66
        ["--rules", "/nonexistent/rules", "--today", "2026-11"],
        ["--retired", "--title", "Order 1042", "--today", "2026-11"],
        ["--today", "2026-11", "--today", "2026-12"],        // repeated: handed over; argument-parser keeps the last
    ]

    @Test(arguments: quickLines)
    func theQuickReaderAgreesWithArgumentParser(arguments: [String]) throws {
        let input = "4111 1111 1111 1111 12/30 123\n"
        let quick = try runPiped(arguments, input: input, environment: home.environment)
        let full = try runPiped(["enter"] + arguments, input: input, environment: home.environment)
        #expect(!quick.timedOut && !full.timedOut)
        #expect(quick.status == full.status, "\(arguments): exit \(quick.status), argument-parser \(full.status)")
        #expect(quick.output == full.output, "\(arguments)")
        #expect(quick.errors == full.errors, "\(arguments)")
        #expect(!(quick.output + quick.errors).isEmpty, "\(arguments): nothing was said at all")
    }

    /// Lines the quick reader must hand over: argument-parser words the problem (its usage
    /// text then is the root command's, so only the error line and the status are compared).
    static let handedOver: [[String]] = [
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

    @Test(arguments: handedOver)
    func argumentParserAnswersTheRest(arguments: [String]) throws {
        let input = "4111 1111 1111 1111 12/30 123\n"
        let quick = try runPiped(arguments, input: input, environment: home.environment)
        let full = try runPiped(["enter"] + arguments, input: input, environment: home.environment)
        #expect(quick.status == full.status, "\(arguments): exit \(quick.status), through enter \(full.status)")
        if arguments == ["-h"] {
            #expect(quick.status == 0 && quick.output.hasPrefix("OVERVIEW: "), "\(quick.output)")
        } else {
            #expect(quick.status == 64, "\(arguments): exit \(quick.status)")
            let firstLine = quick.errors.split(separator: "\n").first.map(String.init)
            #expect(firstLine != nil && firstLine!.hasPrefix("Error: ") && firstLine == full.errors.split(separator: "\n").first.map(String.init),
                    "\(arguments): \(quick.errors)")
            #expect(quick.output.isEmpty, "\(arguments): a card was taken: \(quick.output)")
        }
    }
}

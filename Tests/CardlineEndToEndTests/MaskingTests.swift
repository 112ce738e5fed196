import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every surface masks card numbers by the one policy and escapes text from outside by the one
/// function: a `:` command at the terminal, `replay`'s failures, `--title`, option errors.
@Suite struct MaskingTests {
    let home = TemporaryHome()
    /// A Visa test number whose middle digits (7–12) appear nowhere else, and a code.
    static let number = "4539578763621486", middle = "876362", code = "735"

    /// The bytes must hold neither the middle digits nor the code.
    func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            !text.contains(Self.middle), "\(what) holds the number's middle digits: \(text.suffix(800))",
            sourceLocation: sourceLocation)
        #expect(!text.contains(Self.code), "\(what) holds the CVV: \(text.suffix(800))", sourceLocation: sourceLocation)
    }

    @Test func aCommandWithNumberExpiryAndCodeIsEchoedMasked() throws {
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-color"], environment: home.environment)
        t.waitForRawMode()
        t.expect("Card number (#### #### #### ####): ")
        // The live field shows what is typed; everything written after Enter is checked.
        t.send(":\(Self.number) 12/30 \(Self.code)")
        t.expect(Self.code)
        let mark = t.raw.count
        t.send("\r")
        t.expect("unknown command")
        t.expect(":help lists the commands")
        t.send(":cards\r")
        t.expect("no cards yet")
        expectClean(PseudoTerminal.plain(Array(t.rawSince(mark))), "what was written after Enter")
        expectClean(t.screen.lines.joined(separator: "\n"), "the screen")
        #expect(
            t.screen.lines.contains { $0.contains(":453957••••••1486 ••/•• •••") },
            "\(t.screen.lines.joined(separator: "\n"))")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        let history = (try? String(contentsOfFile: home.path + "/state/cardline/history", encoding: .utf8)) ?? ""
        #expect(history.contains(":cards"), "history is written: \(history)")
        expectClean(history, "the history file")
    }

    /// Issue 36 item 4: a number typed into a `:` command with its groups joined by several
    /// spaces, by commas, or with letters among its digits, is masked in the echo and in the
    /// field's line left on screen: six and four digits at most.
    static let loose = [":4256  9674  1851  8869", ":4256,9674,1851,8869", ":a4256967b418518869"]

    func expectSixAndFourAtMost(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            !text.contains("1851") && !text.contains("741851"), "\(what): \(text.suffix(800))",
            sourceLocation: sourceLocation)
        for line in text.split(whereSeparator: \.isNewline) where line.filter(\.isNumber).count > 10 {
            Issue.record("\(what) shows more than ten digits: \(line)", sourceLocation: sourceLocation)
        }
    }

    @Test func looselyWrittenNumbersArePipedMasked() throws {
        let run = try runPiped(
            ["--today", "2026-11"], input: Self.loose.joined(separator: "\n") + "\n", environment: home.environment)
        // (Without `--print`, messages go to stdout.)
        #expect(
            (run.output + run.errors).components(separatedBy: "unknown command").count - 1 == 3,
            "\(run.output + run.errors)")
        expectSixAndFourAtMost(run.output + run.errors, "the output")
    }

    @Test func looselyWrittenNumbersAreMaskedAtThePrompt() throws {
        let t = try PseudoTerminal.prompt([], home: home)
        t.expect("Card number (#### #### #### ####): ")
        var mark = t.raw.count
        for command in Self.loose {
            t.send(command)
            // Typed in full in the live field; everything written after Enter is checked.
            t.waitForScreen("the command typed") { $0.cursorLine.contains(command) }
            mark = t.raw.count
            t.send("\r")
            t.expect("unknown command")
            t.expect(":help lists the commands")
            expectSixAndFourAtMost(PseudoTerminal.plain(Array(t.rawSince(mark))), "what was written after Enter")
        }
        expectSixAndFourAtMost(t.screen.lines.joined(separator: "\n"), "the screen")
        #expect(
            t.screen.lines.contains { $0.contains(":4256  96••  ••••  8869") },
            "\(t.screen.lines.joined(separator: "\n"))")
    }

    func replay(_ script: String) throws -> (status: Int32, output: String, errors: String, timedOut: Bool) {
        let path = home.path + "/outside.session"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return try runPiped(["replay", path], input: "", environment: home.environment)
    }

    @Test func replayEscapesTheScriptsTextInItsFailures() throws {
        let clipboard = "\u{1B}]52;c;aGVsbG8=\u{07}"
        let override = "\u{202E}"
        let run = try replay(
            """
            @today 2026-11
            4111111111111111
            @expect message "\(clipboard) written\(override)"
            @expect text "12\(override)/30"
            @expect network vi\(override)sa

            """)
        #expect(run.status == 1)
        let all = run.output + run.errors
        #expect(!all.contains("\u{1B}") && !all.contains("\u{07}") && !all.contains(override), "\(all)")
        #expect(
            all.contains(
                #"outside.session:3: expected a message containing "\u{1B}]52;c;aGVsbG8=\u{7} written\u{202E}""#),
            "\(all)")
        #expect(all.contains(#"outside.session:4: expected text "12\u{202E}/30""#), "\(all)")
        #expect(all.contains(#"outside.session:5: expected network vi\u{202E}sa, got visa"#), "\(all)")
    }

    @Test func replayMismatchLinesAreMasked() throws {
        let run = try replay(
            """
            @today 2026-11
            4111111111111111
            :use 5555555555554444
            @expect text "1230"
            @expect message ":use \(Self.number) 12/30 \(Self.code)"

            """)
        #expect(run.status == 1)
        let all = run.output + run.errors
        #expect(all.contains(#"outside.session:4: expected text "1230", got ":use 555555••••••4444""#), "\(all)")
        #expect(
            all.contains(#"outside.session:5: expected a message containing ":use 453957••••••1486 ••/•• •••""#),
            "\(all)")
        #expect(!all.contains("5555555555554444") && !all.contains("555555555555"), "\(all)")
        expectClean(all, "replay's output")
    }

    @Test func aTitleIsMaskedAndItsBidiOverrideEscaped() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--title", "Order \(Self.number) \u{202E}paid"], input: ":quit\n",
            environment: home.environment, timeout: 20)
        #expect(run.status == 0)
        let all = run.output + run.errors
        #expect(all.contains("Order 453957••••••1486 \\u{202E}paid"), "\(all)")
        #expect(!all.contains("\u{202E}"))
        expectClean(all, "the title")
    }

    @Test(arguments: [
        ["check", "--format", number], ["--today", number], ["--print-fd", number],
        ["--today", "2026-11", "--networks", "visa,\(number)"],
    ])
    func anOptionErrorMasksTheNumberGiven(arguments: [String]) throws {
        let run = try runPiped(arguments, input: "", environment: home.environment, timeout: 20)
        #expect(run.status == 64)
        #expect(run.errors.contains("453957••••••1486"), "\(run.errors)")
        #expect(!(run.output + run.errors).contains(Self.middle), "\(run.errors)")
    }

    @Test func anOptionErrorEscapesControlCharacters() throws {
        let run = try runPiped(
            ["--today", "\u{1B}]52;c;aGk=\u{07}\u{202E}"], input: "", environment: home.environment, timeout: 20)
        #expect(run.status == 64)
        #expect(run.errors.contains(#"got `\u{1B}]52;c;aGk=\u{7}\u{202E}`"#), "\(run.errors)")
        #expect(!run.errors.contains("\u{1B}") && !run.errors.contains("\u{202E}"))
    }
}

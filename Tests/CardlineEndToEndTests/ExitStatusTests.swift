import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Piped input: a line whose field is refused abandons the card being entered (issue 19 item 1).
@Suite struct PipedAbandonTests {
    let home = TemporaryHome()

    @Test func aShortFieldAbandonsItsCardAndTheNextLineStartsANewOne() throws {
        // The first line's CVV is one digit short: before, the next line's first digit was typed
        // into it and a Visa with CVV 125 was delivered (exit 0).
        let run = try runPiped(
            ["--today", "2026-11", "--print"],
            input: "4111111111111111 12/30 12\n5555555555554444 12/30 123\n", environment: home.environment)
        #expect(run.status == 1, "a card was abandoned: the caller must know a record was lost")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 1)
        let card = try #require(
            try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(card["number"] as? String == "5555555555554444")
        #expect(card["cvv"] as? String == "123")
        #expect(!run.output.contains("4111111111111111"), "no card is made of the abandoned line")
        #expect(run.errors.contains("line 1: CVV: the CVV has 3 digits; this has 2 (card abandoned)"))
        #expect(!run.errors.contains("line 2:"), "the second line is a card of its own")
        #expect(!run.errors.contains("4111111111111111") && !run.errors.contains("5555555555554444"))
    }

    @Test func aDigitRefusedInALineAbandonsTheCard() throws {
        // A CVV typed one digit too long: the Enter would submit the first three.
        let run = try runPiped(
            ["--today", "2026-11", "--print"],
            input: "4111111111111111 12/30 1234\n", environment: home.environment)
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("line 1: CVV: the CVV has 3 digits (card abandoned)"))
    }

    /// A field that moves on by itself (a 16-digit Visa, a full expiry) ends where it is full:
    /// a digit right after it, with no space, is a digit too many, not the first of the next
    /// field. Before, `41111111111111111 2/30 123` (one number digit too many) delivered a card
    /// expiring 12/30 and `… 12/301 23` one with CVV 123: cards nobody typed.
    @Test(arguments: ["41111111111111111 2/30 123", "4111111111111111 12/301 23", "4111111111111111123012 3"])
    func aDigitRunningOnFromAFullFieldAbandonsTheCard(_ line: String) throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print"],
            input: line + "\n5555555555554444 12/30 123\n", environment: home.environment)
        #expect(run.status == 1)
        let cards = run.output.split(separator: "\n")
        #expect(
            cards.count == 1 && cards[0].contains("\"5555555555554444\""), "only the second line's card: \(run.output)")
        #expect(run.errors.contains("line 1:") && run.errors.contains("(card abandoned)"), "\(run.errors)")
        #expect(!run.errors.contains("line 2:"))
    }

    @Test func fieldsSeparatedBySpacesSlashesOrLinesStillRunOn() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print"],
            input:
                "4111111111111111 12/30 123\n4111111111111111/12/30/123\n4111-1111-1111-1111 1230 123\n4111111111111111\n1230\n123\n"
                + "4111111111111111\t12/30\t123\n",  // tab-separated, as a spreadsheet writes
            environment: home.environment)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.split(separator: "\n").count == 5)
    }

    @Test func anIncompleteFieldOnItsOwnLineAbandonsTheCard() throws {
        // The expiry on line 2 lacks its year: line 3 must not complete it.
        let run = try runPiped(
            ["--today", "2026-11"],
            input: "4111111111111111\n12/\n30\n", environment: home.environment)
        #expect(run.status == 1)
        #expect(run.output.contains("line 2: expiry: the expiry needs a month and a year, as MM/YY (card abandoned)"))
        #expect(!run.output.contains("Success!"))
    }

    @Test func oneFieldPerLineIsStillDelivered() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print"],
            input: "4111111111111111\n12/30\n123\n378282246310005\n0129\n1234\n", environment: home.environment)
        #expect(run.status == 0)
        let numbers = run.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["number"] as? String
        }
        #expect(numbers == ["4111111111111111", "378282246310005"])
        #expect(!run.errors.contains("abandoned"))
    }

    @Test func aCardLostAfterOneDeliveredStillExitsOne() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print"],
            input: "4111 1111 1111 1111 12/30 123\n4111111111111112\n", environment: home.environment)
        #expect(run.status == 1)
        #expect(run.output.split(separator: "\n").count == 1)
        #expect(run.errors.contains("line 2: card number: card number is not valid"))
    }
}

/// Every way out of the prompt has an exit status, and none writes to stdout (issue 19 item 4).
@Suite struct WaysOutTests {
    let home = TemporaryHome()

    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: arguments, environment: home.environment.merging(environment) { $1 }, pipes: [1])
        t.waitForRawMode()
        return t
    }

    @Test(arguments: ["\u{03}", "\u{1B}"])
    func ctrlCOrALoneEscEndsAOneShotPromptWith130(key: String) throws {
        let t = try start(["--today", "2026-11", "--print", "--once", "--no-history"])
        t.expect("Card number")
        t.send("4111111111")
        t.waitForScreen("the typed digits") { $0.cursorLine.contains("4111 1111 11") }
        t.send(key)
        #expect(t.waitForExit() == 130)
        #expect(t.pipedText(1).isEmpty)
        let screen = t.screen
        #expect(screen.lines.contains { $0.contains("Cancelled") })
        #expect(!screen.lines.contains { $0.contains("4111 1111 11") }, "the live field is wiped from the screen")
    }

    @Test func anEscapeSequenceIsNotALoneEsc() throws {
        let t = try start(["--today", "2026-11", "--print", "--once", "--no-history"])
        t.expect("Card number")
        t.send("\u{1B}[D")  // Left: one key, refused; the prompt stays
        t.expect("does nothing here")
        t.send(":quit\r")
        #expect(t.waitForExit() == 1)
    }

    @Test func ctrlCInTheREPLStillOnlyCancelsTheCard() throws {
        let t = try start(["--today", "2026-11", "--no-history"])
        t.expect("Card number")
        t.send("4111111111")
        t.send("\u{03}")
        t.expect("Card cancelled. Start again with the card number.")
        t.send("4111111111111111" + "1230" + "123\r")
        t.expect("Success! Visa")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
    }

    @Test func helpInAOneShotPromptSaysCtrlCEndsIt() throws {
        // Before, :help and the Ctrl-D refusal said "Ctrl-C cancels the card" (start over),
        // while in one-shot use Ctrl-C ends cardline with 130.
        let t = try start(["--today", "2026-11", "--print", "--once", "--no-history"])
        t.expect("Card number")
        t.send(":help\r")
        t.expect(":quit       leave")
        let help = t.screen.lines.joined(separator: "\n")
        #expect(help.contains("Ctrl-C or Esc gives up, ends the prompt"))
        #expect(!help.contains("Ctrl-C cancels the card"))
        #expect(!help.contains("Esc...) do nothing"))
        t.send("4111111111111111")  // moves on: an empty expiry, in the middle of a card
        t.waitForScreen("the expiry field") { $0.cursorLine.contains("Expiry") }
        t.send("\u{04}")
        t.expect("Ctrl-D quits only between cards; Ctrl-C gives up and ends the prompt")
        t.send("\u{03}")
        #expect(t.waitForExit() == 130)
        #expect(t.pipedText(1).isEmpty)
    }

    @Test func ctrlCAfterACardWasDeliveredKeepsItAndSaysOnlyTheCardBeingEnteredWasWiped() throws {
        // --print without --once takes several cards: the first is on stdout when Ctrl-C ends
        // the prompt (130). Before, the line said "Cancelled: no card taken".
        let t = try start(["--today", "2026-11", "--print", "--no-history"])
        t.expect("Card number")
        t.send("5555555555554444" + "1230" + "123\r")
        #expect(t.waitForPiped(1, containing: "\n"))
        t.send("4111111111")
        t.waitForScreen("the typed digits") { $0.cursorLine.contains("4111 1111 11") }
        t.send("\u{03}")
        #expect(t.waitForExit() == 130)
        let lines = t.pipedText(1).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("\"number\":\"5555555555554444\""))
        #expect(t.screen.lines.contains { $0.contains("Cancelled: the card being entered was wiped") })
        #expect(!t.screen.lines.contains { $0.contains("no card taken") })
    }

    @Test func helpInTheREPLSaysCtrlCCancelsTheCard() throws {
        let t = try start(["--today", "2026-11", "--no-history"])
        t.expect("Card number")
        t.send(":help\r")
        t.expect(":quit       leave")
        #expect(t.screen.lines.contains { $0.contains("Ctrl-C cancels the card") })
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
    }

    @Test(arguments: [":quit\r", "\u{04}"])
    func quittingAOneShotPromptExitsOne(keys: String) throws {
        let t = try start(["--today", "2026-11", "--once", "--no-history"])
        t.expect("Card number")
        t.send(keys)
        #expect(t.waitForExit() == 1)
        #expect(t.pipedText(1).isEmpty)
    }

    @Test func inputThatEndsBeforeAnyCardExitsOne() throws {
        let out = home.path + "/out"
        try #require(FileManager.default.createFile(atPath: out, contents: nil))
        let run = try runWritingTo(.file(out), ["--print"], input: "/dev/null", environment: home.environment)
        #expect(run.status == 1)
        #expect(try String(contentsOfFile: out, encoding: .utf8).isEmpty)
    }

    @Test func anIdlePromptTimesOutWith124AndItsDigitsWiped() throws {
        // 2 seconds, not 1: the digits must arrive before it runs out even on a loaded machine
        // (each key then starts it again).
        let t = try start(["--today", "2026-11", "--print", "--once", "--no-history", "--timeout", "2"])
        t.expect("Card number")
        t.send("4111111111")
        t.waitForScreen("the typed digits") { $0.cursorLine.contains("4111 1111 11") }
        #expect(t.waitForExit() == 124)
        #expect(t.pipedText(1).isEmpty)
        let screen = t.screen
        #expect(screen.lines.contains { $0.contains("Timed out") })
        #expect(!screen.lines.contains { $0.contains("4111 1111 11") }, "the live field is wiped from the screen")
    }

    @Test func theTimeoutFromTheEnvironmentEndsAPipeThatStaysOpen() throws {
        // A pipe with a writer that never writes nor closes (a FIFO held open by this test).
        let fifo = home.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        let out = home.path + "/out"
        try #require(FileManager.default.createFile(atPath: out, contents: nil))
        let run = try runWritingTo(
            .file(out), ["--print"], input: fifo,
            environment: home.environment.merging(["CARDLINE_TIMEOUT": "1"]) { $1 })
        #expect(run.status == 124)
        #expect(run.errors.contains("Timed out"))
        #expect(try String(contentsOfFile: out, encoding: .utf8).isEmpty)
    }

    @Test(arguments: [
        ["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "soon"], ["--timeout", "1e12"],
        ["--timeout=nan"], ["--timeout", "inf"], ["--timeout", "0.0005"],
    ])
    func badTimeoutsAreUsageErrors(arguments: [String]) throws {
        let run = try runPiped(["--print"] + arguments, input: "", environment: home.environment)
        #expect(run.status == 64)
        #expect(run.errors.contains("--timeout"))
        #expect(run.output.isEmpty)
    }

    @Test func aTimeoutBelowAMillisecondIsRefusedSayingTheRange() throws {
        // Before, 0.0001 was refused as not "more than 0", and 0.0005 taken as 1 ms.
        let run = try runPiped(
            ["--print"], input: "", environment: home.environment.merging(["CARDLINE_TIMEOUT": "0.0001"]) { $1 })
        #expect(run.status == 64)
        #expect(run.errors.contains("CARDLINE_TIMEOUT takes a number of seconds from 0.001 to 86400"))
    }

    @Test func aBadTimeoutInTheEnvironmentIsAUsageError() throws {
        let run = try runPiped(
            ["--print"], input: "", environment: home.environment.merging(["CARDLINE_TIMEOUT": "0"]) { $1 })
        #expect(run.status == 64)
        #expect(run.errors.contains("CARDLINE_TIMEOUT"))
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The REPL through a real pseudo-terminal, against the built binary and the real libedit.
@Suite struct InteractiveTests {
    let home = TemporaryHome()

    func start(_ extra: [String] = []) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color"] + extra, environment: home.environment)
        terminal.waitForRawMode()
        terminal.expect("Card number (#### #### #### ####): ")
        return terminal
    }

    @Test func visaTypedAndAccepted() throws {
        let t = try start()
        t.send("4111111111111111")
        // The number's line, left above once the field is done, is redrawn masked.
        t.expect("•• •••• 1111")
        t.expect("Type the expiry date as MM/YY")
        t.send("1230")
        t.expect("Visa •••• 1111, expires 12/30")
        t.expect("Type the 3-digit CVV on the back of the card")
        t.send("123\r")
        t.expect("Success! Visa •••• 1111, expires 12/30")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        #expect(!t.text.contains("123 "), "the CVV is never echoed")
    }

    @Test func refusedKeyRingsTheBellAndIsNotShown() throws {
        let t = try start()
        t.send("4")
        let mark = t.raw.count
        t.send("x")
        t.expect("only digits go in the card number, not 'x'")
        #expect(t.rawSince(mark).contains(0x07), "bell")
        let screen = t.redraw(expectingBadge: "CARD 1")
        #expect(screen.contains("Card number (#### #### #### ####): 4"))
        #expect(!screen.contains("4x"))
        // The next refused key names itself: the line on screen is about the key just pressed.
        t.send("y")
        t.expect("only digits go in the card number, not 'y'")
        // The same refusal again, straight after, rings the bell without another line.
        let again = t.raw.count
        t.send("y")
        t.send("11")  // 411 can only be Visa (41 and 42 may still be Visa Electron, or eftpos or mada co-badged)
        t.expect("VISA 3/16")
        #expect(t.rawSince(again).contains(0x07))
        #expect(t.text.components(separatedBy: "not 'y'").count == 2, "one line for two refusals of 'y'")
    }

    @Test func amexGroupsFourSixFiveAndStopsAtFifteen() throws {
        let t = try start()
        t.send("378282246310006")  // fails Luhn: stays in the number field
        t.expect("card number is not valid — check the digits")
        t.send("1")
        t.expect("an American Express number has at most 15 digits")
        let screen = t.redraw(expectingBadge: "AMEX 15/15")
        #expect(screen.contains("Card number (#### ###### #####): 3782 822463 10006"))
        #expect(!screen.contains("100061"))
    }

    @Test func autoAdvanceThenBackspaceReturnsToTheNumberIntact() throws {
        let t = try start()
        t.send("4111111111111111")
        // The finished line is brought up to its final state (badge 16/16) before the help.
        t.expect("VISA 16/16")
        t.expect("Type the expiry date")
        t.expect("Expiry (MM/YY): ")
        t.send("\u{7F}")  // Backspace on the empty expiry
        let screen = t.redraw(expectingBadge: "VISA 16/16")
        #expect(screen.contains("Card number (#### #### #### ####): 4111 1111 1111 1111"))
        t.send("\u{7F}")
        let shorter = t.redraw(expectingBadge: "VISA 15/16")
        #expect(shorter.contains("): 4111 1111 1111 111"))
    }

    @Test func rightPromptBadgeFollowsTheNetworkAndField() throws {
        let t = try start()
        #expect(t.redraw(expectingBadge: "CARD 0").contains("CARD 0"))
        t.send("37")
        #expect(t.redraw(expectingBadge: "AMEX 2/15").contains("Card number (#### ###### #####): 37"))
        t.send("\u{15}")  // Ctrl-U
        t.send("424")
        _ = t.redraw(expectingBadge: "VISA 3/16")
        t.send("24242424242421230")
        t.expect("Type the 3-digit CVV")
        #expect(t.redraw(expectingBadge: "CVV 0/3").contains("CVV (###): "))
    }

    /// The next person at the terminal cannot bring back the last customer's number; expiry
    /// dates are recalled.
    @Test func upArrowNeverRecallsANumberButRecallsAnExpiry() throws {
        let t = try start()
        t.send("4111111111111111" + "1230" + "123\r")
        t.expect("Success!")
        t.expect("Card number (#### #### #### ####): ")
        t.send("\u{1B}[A")
        t.expect("card numbers are never kept, so there is nothing to recall")
        let screen = t.redraw(expectingBadge: "CARD 0")
        #expect(!screen.contains("4111"))
        t.send("5555555555554444")
        t.expect("Expiry (MM/YY): ")
        t.send("\u{1B}[A")
        #expect(t.redraw(expectingBadge: "MASTERCARD 4/4").contains("Expiry (MM/YY): 12/30"))
    }

    @Test func ctrlCCancelsTheCardAndEntryGoesOn() throws {
        let t = try start()
        t.send("4111")
        t.expectBadge("VISA 4/16")
        t.send("\u{03}")
        t.expect("Card cancelled. Start again with the card number.")
        let screen = t.redraw(expectingBadge: "CARD 0")
        #expect(screen.contains("Card number (#### #### #### ####): "))
        #expect(!screen.contains("4111"))
        t.send("378282246310005" + "0129" + "1234\r")
        t.expect("Success! American Express •••• 0005, expires 01/29")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func ctrlDExitsAndRestoresTheTerminal() throws {
        let t = try start()
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let before = t.initialSettings
        let after = t.currentSettings
        #expect(after.c_lflag == before.c_lflag)
        #expect(after.c_iflag == before.c_iflag)
        #expect(after.c_oflag == before.c_oflag)
        #expect(after.c_cflag == before.c_cflag)
        #expect(withUnsafeBytes(of: after.c_cc) { Array($0) } == withUnsafeBytes(of: before.c_cc) { Array($0) })
    }

    /// A signal from outside ends the program with the terminal put back as it was.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE])
    func aSignalFromOutsideRestoresTheTerminal(signal: Int32) throws {
        let t = try start()
        t.send("411")
        t.expect("VISA 3/16")
        kill(t.pid, signal)
        #expect(t.waitForExit() == 128 + signal)
        #expect(t.currentSettings.c_lflag == t.initialSettings.c_lflag)
        #expect(t.currentSettings.c_iflag == t.initialSettings.c_iflag)
    }

    @Test func nonASCIIAndInvalidBytesAreRefusedAndNeverKept() throws {
        let t = try start()
        t.send("4")
        t.send("\u{E9}")  // é: libedit inserts it without consulting a binding
        t.send("1")
        t.expect("only digits go in the card number, not '\u{E9}'")
        let mark = t.raw.count
        var bytes: [UInt8] = [0xFF, 0xFE]  // not UTF-8 at all
        _ = bytes.withUnsafeMutableBytes { write(t.master, $0.baseAddress!, $0.count) }
        t.send("1")
        let screen = t.redraw(expectingBadge: "VISA 3/16")
        #expect(screen.contains("Card number (#### #### #### ####): 411"))
        #expect(!Array(t.rawSince(mark)).contains(0xFF))
    }

    @Test(arguments: [
        (["TERM": "xterm"], [] as [String], true),
        (["TERM": "xterm", "NO_COLOR": "1"], [], false),
        (["TERM": "dumb"], [], false),
        (["TERM": "xterm"], ["--no-color"], false),
    ])
    func colourOnlyWhenWanted(environment: [String: String], arguments: [String], coloured: Bool) throws {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history"] + arguments,
            environment: home.environment.merging(environment) { $1 })
        t.waitForRawMode()
        t.expect("Card number")
        t.send("0")
        t.expect("no card network starts with 0")
        let red = Array("\u{1B}[31m".utf8)
        let raw = Array(t.rawSince(0))
        let hasRed = (0...(raw.count - red.count)).contains { raw[$0...].starts(with: red) }
        #expect(hasRed == coloured)
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func trayCommandsAtThePrompt() throws {
        let t = try start()
        t.send("4111111111111111" + "1230" + "123\r")
        t.expect("Success!")
        t.send(":cards\r")
        t.expect("* 1. Visa 411111••••••1111  expires 12/30")
        t.send(":remove 1\r")
        t.expect("removed Visa 411111••••••1111")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
    }

    /// Runs a whole session with HOME in a temporary folder, then reads every file the
    /// program left there: commands are kept, card numbers and CVVs are not.
    @Test func noCardNumberOrCVVReachesAnyFile() throws {
        let t = try start([])  // history on
        t.send("4111111111111111" + "1230" + "864\r")
        t.expect("Success! Visa")
        t.send("378282246310005" + "0129" + "9731\r")
        t.expect("Success! American Express")
        t.send(":cards\r")
        t.expect("2. American Express")
        t.send("\u{1B}[A")  // numbers are not even kept in memory for recall
        t.expect("card numbers are never kept")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        let files = home.files()
        let history = files.first { $0.path.hasSuffix("/state/cardline/history") }
        #expect(history.map { String(decoding: $0.contents, as: UTF8.self) } == ":cards\n:quit\n")
        let mode =
            try FileManager.default.attributesOfItem(atPath: home.path + "/state/cardline/history")[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
        for file in files {
            let text = String(decoding: file.contents, as: UTF8.self)
            for secret in [
                "4111111111111111", "4111 1111 1111 1111", "378282246310005", "864", "9731", "12/30", "01/29",
            ] {
                #expect(!text.contains(secret), "\(file.path) holds \(secret)")
            }
        }
    }
}

/// stdin not a terminal: each line is typed into the same engine.
@Suite struct PipedTests {
    let home = TemporaryHome()

    @Test func acceptedCardsExitZeroAndNumbersStayMasked() throws {
        let run = try runPiped(
            ["--today", "2026-11"], input: "4111 1111 1111 1111 12/30 123\n378282246310005\n0129\n1234\n",
            environment: home.environment)
        #expect(run.status == 0)
        #expect(run.output.contains("Success! Visa •••• 1111, expires 12/30"))
        #expect(run.output.contains("Success! American Express •••• 0005, expires 01/29"))
        #expect(!run.output.contains("\u{1B}["), "no escape codes on a pipe")
        for secret in ["4111111111111111", "4111 1111", "378282246310005", "1234"] {
            #expect(!run.output.contains(secret))
        }
    }

    @Test func aRejectedOrUnfinishedCardExitsOne() throws {
        let rejected = try runPiped(
            ["--today", "2026-11"], input: "4111111111111111 12/30 12\n", environment: home.environment)
        #expect(rejected.status == 1)
        #expect(rejected.output.contains("line 1: CVV: the CVV has 3 digits; this has 2 (card abandoned)"))
        let short = try runPiped(["--today", "2026-11"], input: "4111 1111\n", environment: home.environment)
        #expect(short.status == 1)
        #expect(short.output.contains("line 1: card number: "))
        #expect(short.output.contains("(card abandoned)"))
        // The number moved on by itself; the Enter on the empty expiry is not a refusal.
        let unfinished = try runPiped(
            ["--today", "2026-11"], input: "4111 1111 1111 1111\n", environment: home.environment)
        #expect(unfinished.status == 1)
        #expect(unfinished.output.contains("input ended before the card was complete (expiry field)"))
        #expect(!unfinished.output.contains("abandoned"))
        let refused = try runPiped(["--today", "2026-11"], input: "0\n\u{FF}abc\n", environment: home.environment)
        #expect(refused.output.components(separatedBy: "line 2:").count == 2, "one reason per line")
        #expect(refused.output.contains("line 1: card number: no card network starts with 0"))
        #expect(refused.output.contains("line 2: card number: only digits go in the card number"))
    }

    @Test func brokenRulesExit65WithALocatedMessage() throws {
        let folder = home.path + "/bad-rules"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lenghts\": [16]}\n".utf8).write(
            to: URL(fileURLWithPath: folder + "/x.json"))
        let run = try runPiped(["--rules", folder], input: "", environment: home.environment)
        #expect(run.status == 65)
        #expect(run.errors.contains("\(folder)/x.json:1:45: error: unknown field `lenghts`; did you mean `lengths`?"))
        let missing = try runPiped(["--rules", home.path + "/nowhere"], input: "", environment: home.environment)
        #expect(missing.status == 66)
        #expect(missing.errors.contains("cannot read rule folder"))
        let usage = try runPiped(["--today", "2026-13"], input: "", environment: home.environment)
        #expect(usage.status == 64)
    }

    @Test func aNetworkFromAUserFolderIsDetected() throws {
        let folder = home.path + "/my-rules"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(
            "{\"id\": \"testnet\", \"name\": \"TestNet\", \"prefixes\": [\"7\"], \"lengths\": [16], \"luhn\": false, \"cvv\": {\"name\": \"TSC\", \"length\": 3}}\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: folder + "/testnet.json"))
        let run = try runPiped(
            ["--today", "2026-11", "--rules", folder], input: "7000 0000 0000 0001 1230 555\n",
            environment: home.environment)
        #expect(run.status == 0)
        #expect(run.output.contains("Success! TestNet •••• 0001, expires 12/30"))
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt on the terminals and locales people really have (issue 20, item 7): a C locale
/// (ASCII only), terminals without colour (vt100, no TERM), a dumb terminal (no escape
/// sequence at all), 80 columns; the prompt's label with and without its format hint; a
/// warning while the prompt runs.
@Suite struct TerminalKindsTests {
    let home = TemporaryHome()

    /// The child's environment with `changes` applied; a nil value removes the variable.
    func environment(_ changes: [String: String?]) -> [String: String] { home.environment(changing: changes) }

    /// Starts cardline on a pty, waits for the first prompt.
    func start(_ changes: [String: String?], _ arguments: [String] = [], columns: Int = 140) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history"] + arguments,
            environment: environment(changes), columns: columns)
        t.waitForRawMode()
        t.expect("Card number")
        return t
    }

    /// True when `bytes` hold an SGR sequence (`ESC [ … m`).
    static func holdsSGR(_ bytes: some Collection<UInt8>) -> Bool {
        let bytes = Array(bytes)
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x1B && bytes[index + 1] == UInt8(ascii: "[") {
                var end = index + 2
                while end < bytes.count && (0x30...0x3F).contains(bytes[end]) { end += 1 }
                if end < bytes.count && bytes[end] == UInt8(ascii: "m") { return true }
                index = end
            } else {
                index += 1
            }
        }
        return false
    }

    /// Types a whole Visa card (number, expiry, code) and waits for each field's end.
    func typeCard(_ t: PseudoTerminal) {
        t.send("4111111111111111")
        t.expect("Type the expiry date as MM/YY")
        t.send("1230")
        t.expect("expires 12/30")
        t.expect("Type the 3-digit CVV on the back of the card")
        t.send("123")
    }

    // MARK: - Locale

    @Test(
        arguments: [
            ["LANG": "C"],
            ["LANG": "C.UTF-8", "LC_ALL": "C"],
            ["LANG": nil],
        ] as [[String: String?]])
    func aLocaleWithoutUTF8GetsASCIIOnly(locale: [String: String?]) throws {
        let t = try start(locale)
        typeCard(t)
        // The number's line left above is masked with `*`, the code echoed as `***`.
        let screen = t.waitForScreen("the masked number and the code in ASCII") { screen in
            screen.lines.contains { $0.contains("4111 11** **** 1111") }
                && screen.lines.contains { $0.hasPrefix("CVV (###): ***") }
        }
        #expect(screen != nil)
        t.send("\r")
        t.expect("Success!")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let nonASCII = t.raw.filter { $0 >= 0x80 }
        #expect(nonASCII.isEmpty, "bytes >= 0x80 written in a C locale: \(nonASCII.count)")
        #expect(!t.text.contains("1111 1111 11"), "the number's middle digits")
    }

    /// Piped input's messages, in a C locale, are ASCII too.
    @Test func pipedMessagesInACLocaleAreASCII() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--no-history"], input: "4111 1111 1111 1111 12/30 123\n",
            environment: environment(["LANG": "C"]))
        #expect(run.status == 0)
        #expect(run.output.contains("OK Success! Visa **** 1111, expires 12/30"), "\(run.output)")
        #expect(!(run.output + run.errors).utf8.contains { $0 >= 0x80 })
    }

    @Test func aUTF8LocaleKeepsItsDots() throws {
        let t = try start([:])
        typeCard(t)
        #expect(t.waitForScreen("the code as dots") { $0.lines.contains { $0.hasPrefix("CVV (###): •••") } } != nil)
    }

    // MARK: - Colour

    @Test(
        arguments: [
            (["TERM": "vt100"], false),
            (["TERM": nil], false),
            (["TERM": "dumb"], false),
            (["TERM": "xterm-256color", "NO_COLOR": "1"], false),
            (["TERM": "vt100", "COLORTERM": "truecolor", "NO_COLOR": "1"], false),
            (["TERM": "xterm-256color"], true),
            (["TERM": "xterm"], true),
            (["TERM": "vt100", "COLORTERM": "truecolor"], true),
        ] as [([String: String?], Bool)])
    func colourOnlyWhereTheTerminalHasIt(terminal: [String: String?], coloured: Bool) throws {
        let t = try start(terminal)
        t.send("0")
        t.expect("no card network starts with 0")
        t.send("\u{08}")
        typeCard(t)
        t.send("\r")
        t.expect("Success!")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        #expect(Self.holdsSGR(t.raw) == coloured)
    }

    /// On a VT100 that says it has colour (no column addressing), the badge's colour is reset
    /// before the output under the line: no cell of the output takes it.
    @Test func theBadgeColourStopsAtTheEndOfItsLine() throws {
        let t = try start(["TERM": "vt100", "COLORTERM": "truecolor"], columns: 80)
        t.send("4111111111111111")
        let screen = t.waitForScreen("the expiry help under the number") { screen in
            screen.lines.contains { $0.hasPrefix("Type the expiry date") }
        }
        let row = screen?.lines.firstIndex { $0.hasPrefix("Type the expiry date") }
        if let screen, let row {
            // Dim (SGR 2) and nothing else.
            let attributes = Set(screen.cells[row].prefix(20).map(\.attributes))
            #expect(attributes == ["2"], "the help line took the badge's colour: \(attributes)")
        }
    }

    @Test func aDumbTerminalGetsNoEscapeSequence() throws {
        let t = try start(["TERM": "dumb"])
        t.send("x")
        t.expect("only digits go in the card number")
        t.send("\u{0C}")  // Ctrl-L
        typeCard(t)
        t.send("\r")
        t.expect("Success!")
        t.send(":help\r")
        t.expect(":quit")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        #expect(!t.raw.contains(0x1B), "ESC written to a dumb terminal")

        // A one-shot prompt cancelled with Ctrl-C cannot erase the field there either.
        let once = try start(["TERM": "dumb"], ["--once"])
        once.send("4111")
        once.send("\u{03}")
        once.expect("Cancelled: the card being entered was wiped")
        #expect(once.waitForExit() != nil)
        #expect(!once.raw.contains(0x1B), "ESC written to a dumb terminal")
    }

    // MARK: - 80 columns

    /// Every line written, with escape sequences and carriage returns taken out, as a
    /// terminal of `columns` would need them: none is wider.
    static func widestLine(_ text: String) -> (width: Int, line: String) {
        text.split(separator: "\n").map { ($0.unicodeScalars.count, String($0)) }.max { $0.0 < $1.0 } ?? (0, "")
    }

    /// On a terminal wider than 80 columns, every line but the prompt's (laid out to the
    /// terminal's width, its badge at the right edge) takes 80 columns at most; at 80 columns
    /// the prompt keeps its label and hint.
    @Test(arguments: [[], ["--networks", "visa,mastercard,amex"]])
    func helpAndHintsFitEightyColumns(arguments: [String]) throws {
        let t = try start([:], arguments, columns: 140)
        t.send(":help\r")
        t.expect(":quit")
        t.send("3782")
        t.expectBadge("AMEX 4/15")
        t.send("\u{15}")  // Ctrl-U
        t.send(":rules\r")
        t.expect("visa")
        t.expect("Card number")
        // Every line written, the prompt's lines (their redraws included) left out.
        let lines = t.text.split(separator: "\n").filter { !$0.contains("Card number") }
        #expect(lines.count > 20)
        let widest = Self.widestLine(lines.joined(separator: "\n"))
        #expect(widest.width <= 80, "\(widest.width) columns: \(widest.line)")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)

        let narrow = try start([:], arguments, columns: 80)
        narrow.send("3782")
        #expect(
            narrow.waitForScreen("the hint at 80 columns") {
                $0.cursorLine.hasPrefix("Card number (#### ###### #####): 3782 ")
            } != nil)
    }

    @Test(arguments: [
        [], ["enter"], ["check"], ["replay"], ["rules"], ["rules", "list"], ["rules", "show"],
        ["rules", "test"], ["rules", "lint"], ["rules", "sample"],
    ])
    func commandHelpFitsEightyColumns(command: [String]) throws {
        for arguments in [command + ["--help"]] + (command.isEmpty ? [] : [["help"] + command]) {
            let t = try PseudoTerminal(arguments: arguments, environment: home.environment, columns: 80)
            #expect(t.waitForExit() == 0)
            let widest = Self.widestLine(t.text)
            #expect(widest.width <= 80, "\(arguments): \(widest.width) columns: \(widest.line)")
            #expect(t.text.contains("USAGE:"))
        }
    }

    // MARK: - Labels

    /// The label keeps one colon when the format hint comes (a network is found) or goes
    /// (the badge needs its room), in colour too.
    @Test(arguments: [
        (["--networks", "visa,mastercard,amex"], "3782", "Card number (#### ###### #####): 3782"),
        ([], "62212600000000", "Card number: 6221 2600 0000 00"),
    ])
    func theLabelKeepsOneColonWhateverTheHint(arguments: [String], keys: String, line: String) throws {
        let t = try start(["TERM": "xterm-256color"], arguments, columns: 80)
        t.send(keys)
        let screen = t.waitForScreen("the label and its digits") { screen in
            screen.cursorLine.hasPrefix(line)
        }
        #expect(screen?.cursorLine.filter { $0 == ":" }.count == 1, "\(screen?.cursorLine ?? "")")
    }

    // MARK: - Warnings

    /// A history folder that cannot be made is said on its own line above the prompt, with
    /// the cause (the first folder that could not be made), and the prompt is drawn again.
    @Test func aHistoryWarningGoesAboveThePromptWithItsCause() throws {
        // A folder under /sys cannot be made (EPERM as root, EACCES otherwise); the folders
        // below it then "do not exist", which is not the cause. A name without digits: a run of
        // digits in it (a random suffix's, say) could be masked as card-like in the warning.
        let top = "/sys/cardline-history-warning-test"
        let made = mkdir(top, 0o700)
        let cause = String(cString: strerror(errno))
        if made == 0 { rmdir(top) }
        try #require(made != 0, "a folder under /sys could be made: the test has nothing to check")
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11"],
            environment: environment(["XDG_STATE_HOME": top + "/state"]), columns: 200)
        t.waitForRawMode()
        t.expect("Card number")
        t.send(":cards\r")
        let warning =
            "cardline: warning: \(top)/state/cardline/history: its folder cannot be made: \(cause); command history is off for this run"
        let screen = t.waitForScreen("the warning on its own line, the prompt under it") { screen in
            screen.lines.contains(warning) && screen.cursorLine.hasPrefix("Card number (#### #### #### ####): ")
        }
        #expect(screen != nil)
        #expect(!t.text.contains("No such file or directory"))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

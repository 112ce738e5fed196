import Foundation
import Testing

/// A card swiped through a keyboard-wedge reader (issue 24): the reader types the stripe's
/// tracks and Enter into the terminal. The prompt fills the number and expiry from them and
/// moves to the CVV; no track text reaches the terminal, only the masked number; the card is
/// delivered with `"entry":"swipe"` and the chip flag. Run against the real binary at a pty,
/// and with piped input.
@Suite struct SwipeTests {
    let home = TemporaryHome()
    static let number = "4111111111111111", code = "987"
    static let tracks = "%B4111111111111111^LOVELACE/ADA^3012201000000000000?;4111111111111111=30122010000000000?"
    /// Pieces of the track text that must never be drawn: the number whole, the name as on
    /// the stripe, the sentinels and separators, the service code with its discretionary data.
    static let trackPieces = [number, "LOVELACE", "ADA", "%B", ";4111", "^", "=3012", "2201000", "0000000000?"]

    func json(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func expectNoTrackText(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = String(decoding: t.raw, as: UTF8.self)
        for piece in Self.trackPieces {
            #expect(!raw.contains(piece), "\(piece) reached the terminal", sourceLocation: sourceLocation)
        }
        #expect(!raw.contains(Self.code), sourceLocation: sourceLocation)
    }

    /// Once the swipe is sent: the CVV asked for and typed, the swiped card delivered on fd 1,
    /// no track text on the terminal.
    func expectSwipedCardDelivered(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) throws {
        t.expect("Type the 3-digit CVV")
        t.send(Self.code + "\r")
        #expect(t.waitForExit() == 0, sourceLocation: sourceLocation)
        let card = try json(try #require(t.pipedText(1).split(separator: "\n").first, sourceLocation: sourceLocation))
        #expect(card["number"] as? String == Self.number, sourceLocation: sourceLocation)
        #expect(card["entry"] as? String == "swipe", sourceLocation: sourceLocation)
        expectNoTrackText(t, sourceLocation: sourceLocation)
    }

    @Test func aSwipeFillsTheCardWithoutShowingTheTracks() throws {
        let t = try PseudoTerminal.prompt(["--print", "--once"], home: home, pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        t.send(Self.tracks + "\r")
        t.expect("Visa •••• 1111, expires 12/30")
        t.expect("Type the 3-digit CVV")
        // The number's line left above is masked, and the CVV is the live field.
        let screen = try #require(
            t.waitForScreen("the CVV prompt") { $0.lines.contains { $0.hasPrefix("CVV (###): ") } })
        #expect(
            screen.lines.contains { $0.hasPrefix("Card number (#### #### #### ####): 4111 11•• •••• 1111") },
            "\(screen.lines)")
        t.send(Self.code + "\r")
        #expect(t.waitForExit() == 0)
        t.expect("Success! Visa •••• 1111, expires 12/30")
        let lines = t.pipedText(1).split(separator: "\n")
        #expect(lines.count == 1)
        let card = try json(try #require(lines.first))
        #expect(card["number"] as? String == Self.number)
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        #expect(card["cvv"] as? String == Self.code)
        #expect(card["entry"] as? String == "swipe")
        #expect(card["chip"] as? Bool == true)
        expectNoTrackText(t)
    }

    /// With `--name`, track 1's `LOVELACE/ADA` fills the name field as `ADA LOVELACE`: after the
    /// CVV the name is shown filled for the person to check, and Enter submits it.
    @Test func aSwipeFillsTheNameFieldWhenItIsAsked() throws {
        let t = try PseudoTerminal.prompt(["--print", "--once", "--name"], home: home, pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        t.send(Self.tracks + "\r")
        t.expect("Type the 3-digit CVV")
        t.send(Self.code + "\r")
        let screen = try #require(
            t.waitForScreen("the filled name") {
                $0.lines.contains { $0.hasPrefix("Name (as on the card): ADA LOVELACE") }
            })
        #expect(!screen.lines.contains { $0.contains("LOVELACE/ADA") })
        t.send("\r")
        #expect(t.waitForExit() == 0)
        let card = try json(try #require(t.pipedText(1).split(separator: "\n").first))
        #expect(card["holder_name"] as? String == "ADA LOVELACE")
        #expect(card["entry"] as? String == "swipe")
        let raw = String(decoding: t.raw, as: UTF8.self)
        for piece in Self.trackPieces where piece != "LOVELACE" && piece != "ADA" {
            #expect(!raw.contains(piece), "\(piece) reached the terminal")
        }
        #expect(!raw.contains("LOVELACE/ADA"))
    }

    /// The swiped name, shown filled, is replaced by a name typed into its field (not added to)
    /// and the line shows what is typed.
    @Test func aNameTypedAtThePromptReplacesTheSwipedName() throws {
        let t = try PseudoTerminal.prompt(["--print", "--once", "--name"], home: home, pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        t.send(Self.tracks + "\r")
        t.expect("Type the 3-digit CVV")
        t.send(Self.code + "\r")
        t.waitForScreen("the filled name") { $0.cursorLine.hasPrefix("Name (as on the card): ADA LOVELACE") }
        t.send("Bob Smith")
        t.waitForScreen("the typed name") { $0.cursorLine.hasPrefix("Name (as on the card): Bob Smith ") }
        t.send("\r")
        #expect(t.waitForExit() == 0)
        let card = try json(try #require(t.pipedText(1).split(separator: "\n").first))
        #expect(card["holder_name"] as? String == "Bob Smith")
    }

    /// A reader types a character at a time: the swipe comes over many reads, and is one swipe.
    @Test func aSwipeReadInPiecesIsOneSwipe() throws {
        let t = try PseudoTerminal.prompt(["--print", "--once"], home: home, pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        let text = Array(Self.tracks.utf8)
        for start in stride(from: 0, to: text.count, by: 20) {
            t.send(bytes: Array(text[start..<min(start + 20, text.count)]))
            // Read by the prompt before the next piece comes: a read of its own.
            #expect(t.until("the prompt has read the piece") { t.unreadInput == 0 })
        }
        t.send("\r")
        try expectSwipedCardDelivered(t)
    }

    /// Wherever people type: a dumb terminal, a VT100, the C locale (ASCII only).
    @Test(arguments: [["TERM": "dumb"], ["TERM": "vt100"], ["TERM": "xterm", "LANG": "C", "LC_ALL": "C"]])
    func aSwipeWorksOnEveryKindOfTerminal(changes: [String: String]) throws {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history", "--print", "--once"],
            environment: home.environment.merging(changes) { $1 }, pipes: [1])
        t.waitForRawMode()
        t.expect("Card number")
        t.send(Self.tracks + "\r")
        try expectSwipedCardDelivered(t)
    }

    @Test func aTruncatedSwipeLeavesTheFieldsEmptyAndThePromptUsable() throws {
        let t = try PseudoTerminal.prompt(["--print", "--once"], home: home, pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        t.send("%B4111111111111111^LOVELACE/ADA^30122010000\r")
        t.expect("couldn't read the swipe — swipe again or type the number")
        let screen = try #require(
            t.waitForScreen("the number prompt") { $0.cursorLine.hasPrefix("Card number (#### #### #### ####): ") })
        #expect(!screen.cursorLine.contains("4111"), "the number field is empty: \(screen.cursorLine)")
        expectNoTrackText(t)
        // Typed by hand after it, the card is keyed.
        t.send("5555555555554444")
        t.expect("Type the expiry date")
        t.send("0128" + Self.code + "\r")
        #expect(t.waitForExit() == 0)
        let card = try json(try #require(t.pipedText(1).split(separator: "\n").first))
        #expect(card["number"] as? String == "5555555555554444")
        #expect(card["entry"] as? String == "keyed")
        #expect(card["chip"] == nil)
    }

    @Test func aSwipeAtTheCVVIsRefusedWithoutTypingItsDigits() throws {
        let t = try PseudoTerminal.prompt(["--print", "--once"], home: home, pipes: [1])
        t.send("5555555555554444" + "0128")
        t.expect("Type the 3-digit CVC")
        t.send(";4111111111111111=30121010000000000?\r")
        t.expect("a card is swiped at an empty card number field")
        let screen = try #require(t.waitForScreen("the CVC prompt") { $0.cursorLine.hasPrefix("CVC (###): ") })
        #expect(!screen.cursorLine.contains("•"), "no digit of the track went into the CVC: \(screen.cursorLine)")
        t.send(Self.code + "\r")
        #expect(t.waitForExit() == 0)
        let card = try json(try #require(t.pipedText(1).split(separator: "\n").first))
        #expect(card["cvv"] as? String == Self.code)
    }

    @Test func aSemicolonTypedByHandIsStillAKey() throws {
        // A lone `%` or `;` with no more bytes after it is a key, refused as before.
        let t = try PseudoTerminal.prompt([], home: home)
        t.expect("Card number (#### #### #### ####): ")
        t.send(";")
        t.expect("only digits go in the card number, not ';'")
        t.send("4111111111111111")
        t.expect("Type the expiry date")
    }

    /// The review's card (issue 36): its tracks, and pieces of them that must never be shown
    /// when the swipe is refused, not even the masked number's ends, the name or the expiry.
    static let otherTracks =
        "%B4256967418518869^QUIXOTE/ZEBULON^30122010000000000000?;4256967418518869=30122010000000000?"
    static let otherPieces = ["4256", "8869", "QUIXOTE", "ZEBULON", "%B", "^", "=3012", "2201000"]

    func expectNone(
        of pieces: [String], in text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for piece in pieces {
            #expect(
                !text.contains(piece), "\(piece) in \(what): \(text.suffix(600).debugDescription)",
                sourceLocation: sourceLocation)
        }
    }

    /// Issue 36 item 3: a swipe while a `:` command is typed is collected unechoed and refused
    /// with the swipe's message; nothing of its tracks reaches the terminal or the history file.
    @Test func aSwipeInACommandLineIsNeverTyped() throws {
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-color"], environment: home.environment)
        t.waitForRawMode()
        t.expect("Card number (#### #### #### ####): ")
        t.send(":")
        t.waitForScreen("the command begun") { $0.cursorLine.hasPrefix("Card number (#### #### #### ####): :") }
        t.send(Self.otherTracks + "\r")
        t.expect("a card is swiped at an empty card number field")
        // The command line is still `:`; emptied, a command runs as ever.
        t.send("\u{15}:cards\r")
        t.expect("no cards yet")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        expectNone(of: Self.otherPieces, in: String(decoding: t.raw, as: UTF8.self), "the terminal")
        let history = (try? String(contentsOfFile: home.path + "/state/cardline/history", encoding: .utf8)) ?? ""
        #expect(history.contains(":cards"), "history is written: \(history)")
        expectNone(of: Self.otherPieces, in: history, "the history file")
    }

    /// Issue 36 item 3: piped, a line whose track data does not start it at an empty number (a
    /// `:` command, digits before it, the CVV's line) is refused with the swipe's message and
    /// nothing of the tracks is written; the lines after it go on.
    @Test func aSwipeAfterOtherTextOnAPipedLineIsNeverTyped() throws {
        let input = [
            ":" + Self.otherTracks, "4111 " + Self.otherTracks, "5555555555554444 01/28", Self.otherTracks,
            "  " + Self.tracks, Self.code, ":quit",
        ]
        let run = try runPiped(
            ["--today", "2026-11", "--print"], input: input.joined(separator: "\n") + "\n",
            environment: home.environment)
        #expect(
            run.errors.components(separatedBy: "a card is swiped at an empty card number field").count - 1 == 3,
            "\(run.errors)")
        #expect(run.errors.contains("line 1: command: a card is swiped"), "\(run.errors)")
        #expect(run.errors.contains("line 4: CVC: a card is swiped"), "\(run.errors)")
        // Blanks before a swipe at an empty number: still a swipe.
        let card = try json(try #require(run.output.split(separator: "\n").first))
        #expect(card["number"] as? String == Self.number)
        #expect(card["entry"] as? String == "swipe")
        expectNone(of: Self.otherPieces, in: run.output + run.errors, "the output")
        let history = (try? String(contentsOfFile: home.path + "/state/cardline/history", encoding: .utf8)) ?? ""
        expectNone(of: Self.otherPieces, in: history, "the history file")
    }

    /// Issue 36 item 10: piped with `--name`, a swipe then `123 Bob Smith`: the name typed
    /// replaces the swiped one, never glued to it.
    @Test func aNameTypedAfterAPipedSwipeReplacesTheSwipedName() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print", "--name"], input: Self.tracks + "\n" + Self.code + " Bob Smith\n",
            environment: home.environment)
        #expect(run.status == 0, "\(run.errors)")
        let card = try json(try #require(run.output.split(separator: "\n").first))
        #expect(card["holder_name"] as? String == "Bob Smith")
        #expect(card["entry"] as? String == "swipe")
    }

    @Test func aPipedLineOfTrackDataIsASwipe() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print"], input: Self.tracks + "\n" + Self.code + "\n;4111111111111111=3012\n",
            environment: home.environment)
        #expect(run.status == 1, "the truncated swipe on line 3 is a failed card")
        let card = try json(try #require(run.output.split(separator: "\n").first))
        #expect(card["number"] as? String == Self.number)
        #expect(card["entry"] as? String == "swipe")
        #expect(card["chip"] as? Bool == true)
        #expect(run.errors.contains("line 3: card number: couldn't read the swipe"), "\(run.errors)")
        for piece in Self.trackPieces { #expect(!run.errors.contains(piece), "\(piece) in the messages") }
    }
}

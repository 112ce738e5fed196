import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Accessible mode (issue 25, item 1): `--accessible` or `ACCESSIBLE`. Each field is asked on a
/// line of its own and answered with Enter; the terminal receives only text and line breaks
/// (a screen reader reads what is appended, and loses what is redrawn); a refused answer gets
/// one sentence on its own line and the field is asked again; the security code is not echoed;
/// the same engine decides, and the card is delivered as `--print` delivers it.
@Suite struct AccessibleModeTests {
    let home = TemporaryHome()
    static let number = "4111111111111111", code = "987"

    /// cardline in accessible mode on a pty whose terminal has colour (xterm-256color,
    /// COLORTERM), so that anything but plain text would show; stdout is a pipe (`pipes`).
    func start(
        _ arguments: [String], pipes: [Int32] = [1], environment: [String: String] = [:],
        accessibleFlag: Bool = true
    ) throws -> PseudoTerminal {
        let env = home.environment.merging(["TERM": "xterm-256color", "COLORTERM": "truecolor"]) { $1 }.merging(
            environment
        ) { $1 }
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history"] + (accessibleFlag ? ["--accessible"] : []) + arguments,
            environment: env, pipes: pipes)
        t.waitForRawMode()
        return t
    }

    func json(_ text: String) throws -> [String: Any] {
        let line = try #require(text.split(separator: "\n").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The prompt ends with 0 having delivered exactly the Visa 4111… 12/30 987 on stdout, and
    /// the terminal got plain text only.
    func expectDelivered(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(t.waitForExit() == 0, sourceLocation: sourceLocation)
        let card = try json(t.pipedText(1))
        #expect(card["number"] as? String == Self.number, sourceLocation: sourceLocation)
        #expect(card["cvv"] as? String == Self.code, sourceLocation: sourceLocation)
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030], sourceLocation: sourceLocation)
        #expect(card["network"] as? String == "visa", sourceLocation: sourceLocation)
        Self.expectPlainText(t.raw, sourceLocation: sourceLocation)
    }

    /// The terminal's byte stream holds no escape sequence of any kind (cursor motion, erase,
    /// colour, modes), no carriage return but the one before each line feed, and no backspace.
    static func expectPlainText(_ raw: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: raw, as: UTF8.self)
        #expect(
            !text.contains("\u{1B}"), "an escape sequence: \(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(!raw.contains(0x08), "a backspace", sourceLocation: sourceLocation)
        let overwriting = raw.indices.filter { raw[$0] == 0x0D && ($0 + 1 == raw.count || raw[$0 + 1] != 0x0A) }
        #expect(overwriting.isEmpty, "a carriage return not followed by a line feed", sourceLocation: sourceLocation)
    }

    /// The screen's lines, without trailing blanks, non-empty ones only.
    static func lines(_ t: PseudoTerminal) -> [String] {
        t.screen.lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
    }

    @Test func aFullEntryIsPlainSequentialText() throws {
        let t = try start(["--print", "--once"])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r")
        #expect(t.expect("Visa card number, 16 digits, ending in 1111."))
        #expect(t.expect("Expiry date, month and year as MM/YY: "))
        t.send("12/30\r")
        #expect(t.expect("Visa ending in 1111, expires December 2030."))
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        t.send(Self.code + "\r")
        try expectDelivered(t)
        let raw = String(decoding: t.raw, as: UTF8.self)
        #expect(
            raw.contains("Card number: " + Self.number + "\r\n"), "the number echoed as typed, on its question's line")
        #expect(!raw.contains(Self.code), "the code is never echoed")
        #expect(
            Self.lines(t) == [
                "Each question is answered with Enter; type :help for the commands.",
                "Card number: 4111111111111111",
                "Visa card number, 16 digits, ending in 1111.",
                "Expiry date, month and year as MM/YY: 12/30",
                "Visa ending in 1111, expires December 2030.",
                "CVV, 3 digits, not shown as you type:",
                "Success! Visa ending in 1111, expires December 2030.",
            ])
    }

    /// Accessible mode speaks the prompt's language (issue 25): its questions and sentences come
    /// from the catalog, as the engine's reasons do.
    @Test func aFrenchDeskHearsFrench() throws {
        let t = try start(["--print", "--once", "--locale", "fr"])
        #expect(t.expect("Numéro de carte : "))
        t.send("4111111111111112\r")
        #expect(
            t.expect(
                "Ce numéro a 16 chiffres, comme un numéro de carte Visa, mais le dernier chiffre ne correspond pas aux autres ; vérifiez-le."
            ))
        t.send(Self.number + "\r")
        #expect(t.expect("Numéro de carte Visa, 16 chiffres, se terminant par 1111."))
        #expect(t.expect("Date d'expiration, mois et année en MM/AA : "))
        t.send("12/30\r")
        #expect(t.expect("CVV, 3 chiffres, non affichés pendant la saisie : "))
        t.send(Self.code + "\r")
        try expectDelivered(t)
        #expect(!Self.lines(t).contains { $0.hasPrefix("Card number") || $0.hasPrefix("Each question") })
    }

    @Test func theEnvironmentTurnsItOnAndZeroLeavesItOff() throws {
        let on = try start(["--print", "--once"], environment: ["ACCESSIBLE": "yes"], accessibleFlag: false)
        #expect(on.expect("Card number: "))
        on.send(Self.number + "\r12/30\r" + Self.code + "\r")
        try expectDelivered(on)

        let off = try start(["--print", "--once"], environment: ["ACCESSIBLE": "0"], accessibleFlag: false)
        #expect(off.expect("Card number (#### #### #### ####): "))
        #expect(off.raw.contains(0x1B), "the ordinary prompt, in colour")
        off.send("\u{03}")
        #expect(off.waitForExit() == 130)
    }

    /// The name and postal code (`--name`, `--postal-code`) are asked after the code, each on its
    /// own line, echoed; a refused postal code is said and asked again.
    @Test func theNameAndPostalCodeAreAskedInTurn() throws {
        let t = try start(["--print", "--once", "--name", "--postal-code", "CA"])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/30\r" + Self.code + "\r")
        #expect(t.expect("Name, as on the card: "))
        t.send("Ada Lovelace\r")
        #expect(t.expect("Postal code, like K1A 0B1: "))
        t.send("K1A\r")
        #expect(
            t.expect("Cannot accept this card: postal code — a Canada postal code looks like K1A 0B1; this is K1A."))
        #expect(t.expect("Postal code, like K1A 0B1: "))
        t.send("k1a 0b1\r")
        try expectDelivered(t)
        let card = try json(t.pipedText(1))
        #expect(card["holder_name"] as? String == "Ada Lovelace")
        #expect(card["postal_code"] as? String == "K1A 0B1")
        #expect(Self.lines(t).contains("Name, as on the card: Ada Lovelace"), "\(Self.lines(t))")
    }

    @Test func aCodeOnlyEntryAsksTheCodeAlone() throws {
        let t = try start(["--print", "--once", "--cvv-only", "--network", "amex"])
        #expect(t.expect("CID, 4 digits, not shown as you type: "))
        t.send("1234\r")
        #expect(t.waitForExit() == 0)
        let card = try json(t.pipedText(1))
        #expect(card["cvv"] as? String == "1234")
        #expect(card["number"] == nil)
        #expect(!String(decoding: t.raw, as: UTF8.self).contains("1234"))
        Self.expectPlainText(t.raw)
    }

    /// A card reader's swipe at the number's question fills number and expiry without echoing
    /// any of the track; an unreadable one is said in a sentence and the number asked again.
    @Test func aSwipeIsReadUnechoed() throws {
        let t = try start(["--print", "--once"])
        #expect(t.expect("Card number: "))
        t.send("%B4111111111111111^LOVELACE/ADA^30122010000\r")
        #expect(t.expect("Couldn't read the swipe"))
        #expect(t.expect("Card number: "))
        t.send(SwipeTests.tracks + "\r")
        #expect(t.expect("Visa card number, 16 digits, ending in 1111."))
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        t.send(Self.code + "\r")
        try expectDelivered(t)
        let raw = String(decoding: t.raw, as: UTF8.self)
        for piece in SwipeTests.trackPieces { #expect(!raw.contains(piece), "\(piece) on the terminal") }
        #expect(Self.lines(t).count(where: { $0 == "Card number:" }) == 2, "\(Self.lines(t))")
    }

    /// An expiry's two-digit year is said in the century the engine reads it in: a card that
    /// expired in 12/99 expired in December 1999, not 2099.
    @Test func aTwoDigitYearIsSaidInItsCentury() throws {
        let t = try start(["--print", "--once"])
        #expect(t.expect("Card number: "))
        t.send("%B4111111111111111^LOVELACE/ADA^99122010000?;4111111111111111=99122010000?\r")
        #expect(t.expect("December 1999"), "\(Self.lines(t))")
        #expect(!Self.lines(t).joined().contains("2099"))
    }

    /// Issue 36 item 3: a swipe after characters were typed on the answer's line is read whole
    /// and unechoed, refused in a sentence, and the question asked again.
    @Test func aSwipeAfterTypedCharactersIsNeverShown() throws {
        let t = try start(["--print", "--once"])
        #expect(t.expect("Card number: "))
        t.send("4")
        #expect(t.expect("4"))
        #expect(t.until("the prompt has read the key") { t.unreadInput == 0 })
        t.send(SwipeTests.otherTracks + "\r")
        #expect(t.expect("A card is swiped at an empty card number field."))
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r")
        #expect(t.expect("Expiry date"))
        t.send("12/30\r")
        #expect(t.expect("CVV"))
        t.send(Self.code + "\r")
        try expectDelivered(t)
        let raw = String(decoding: t.raw, as: UTF8.self)
        for piece in SwipeTests.otherPieces {
            #expect(!raw.contains(piece), "\(piece) on the terminal")
        }
    }

    @Test func aDumbTerminalInTheCLocaleGetsASCIIOnly() throws {
        let t = try start(["--print", "--once"], environment: ["TERM": "dumb", "LANG": "C"])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/30\r" + "98\r")
        #expect(t.expect("Visa ending in 1111, expires December 2030."))
        #expect(t.expect("Cannot accept this card: CVV - the CVV has 3 digits; this has 2."))
        t.send(Self.code + "\r")
        try expectDelivered(t)
        #expect(t.raw.allSatisfy { $0 < 0x80 }, "\(String(decoding: t.raw, as: UTF8.self).debugDescription)")
    }

    @Test func aRefusedAnswerGetsOneSentenceAndTheFieldIsAskedAgain() throws {
        let t = try start(["--print", "--once"])
        #expect(t.expect("Card number: "))
        // A key the engine refuses: the reason, as a sentence.
        t.send("4111x\r")
        #expect(t.expect("Only digits go in the card number, not 'x'."))
        #expect(t.expect("Card number: "))
        // A whole number whose check digit fails.
        t.send("4111111111111112\r")
        #expect(
            t.expect(
                "That number has 16 digits, as a Visa card number does, but the last digit doesn't match the others; please check it."
            ))
        #expect(t.expect("Card number: "))
        // Too short for its network.
        t.send("411111111111\r")
        #expect(t.expect("A Visa number has 13 or 16 digits; this has 12."))
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r")
        #expect(t.expect("Expiry date, month and year as MM/YY: "))
        t.send("01/20\r")
        #expect(t.expect("January 2020 is in the past; type a four-digit year as MM/YYYY."))
        #expect(t.expect("Expiry date, month and year as MM/YY: "))
        // More than the field on one line: the expiry and the code together.
        t.send("12/30 987\r")
        #expect(t.expect("There was more on that line than the expiry takes; please type the expiry alone."))
        #expect(t.expect("Expiry date, month and year as MM/YY: "))
        t.send("12/30\r")
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        t.send("98\r")
        #expect(t.expect("Cannot accept this card: CVV — the CVV has 3 digits; this has 2."))
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        t.send(Self.code + "\r")
        // Delivered exactly as typed the last time, nothing carried over from the refusals.
        try expectDelivered(t)
        // Each sentence is a line of its own.
        let lines = Self.lines(t)
        for sentence in [
            "Only digits go in the card number, not 'x'.",
            "January 2020 is in the past; type a four-digit year as MM/YYYY.",
            "Cannot accept this card: CVV — the CVV has 3 digits; this has 2.",
        ] {
            #expect(lines.contains(sentence), "\(lines)")
        }
        #expect(!String(decoding: t.raw, as: UTF8.self).contains("98\r\n"), "no part of a code echoed")
    }

    /// A card refused at submit for an earlier field (its network gone after `:reload`) is
    /// emptied whole: nothing typed for it is carried into the next answers.
    @Test func aSubmitRefusedForTheNumberStartsTheCardAgain() throws {
        let folder = home.path + "/extra-rules"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let t = try start(["--print", "--once", "--rules", folder])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/30\r")
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        try #"{"id": "visa", "disabled": true}"#.write(toFile: folder + "/visa.json", atomically: true, encoding: .utf8)
        t.send(":reload\r")
        #expect(t.expect("Rules reloaded"))
        t.send(Self.code + "\r")
        #expect(t.expect("Cannot accept this card: card number"))
        #expect(t.expect("The card was emptied; please start again with the card number."))
        #expect(t.expect("Card number: "))
        try FileManager.default.removeItem(atPath: folder + "/visa.json")
        t.send(":reload\r")
        #expect(t.expect("Rules reloaded"))
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r")
        #expect(t.expect("Expiry date, month and year as MM/YY: "))
        t.send("12/30\r")
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        t.send(Self.code + "\r")
        try expectDelivered(t)
    }

    @Test func theCodeIsNotEchoedAndTheTerminalIsPutBack() throws {
        let t = try start([])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/30\r")
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        let mark = t.raw.count
        t.send("98")
        // The keys are read (the input queue empties) and nothing comes back for them.
        #expect(t.until("the code's keys read") { t.unreadInput == 0 })
        t.send("7\r")
        #expect(t.expect("Success! Visa ending in 1111, expires December 2030."))
        let after = String(decoding: t.rawSince(mark), as: UTF8.self)
        #expect(!after.contains("9") && !after.contains("8") && !after.contains("7"), "\(after.debugDescription)")
        #expect(t.expect("Card number: "))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let settings = t.currentSettings
        #expect(settings.c_lflag & tcflag_t(ICANON) != 0, "cooked again")
        #expect(settings.c_lflag & tcflag_t(ECHO) != 0, "echo on again")
        Self.expectPlainText(t.raw)
    }

    @Test func aSignalAtTheCodePutsTheTerminalBack() throws {
        let t = try start([])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/30\r")
        #expect(t.expect("CVV, 3 digits, not shown as you type: "))
        t.send("98")
        #expect(t.until("the code's keys read") { t.unreadInput == 0 })
        kill(t.pid, SIGTERM)
        #expect(t.waitForExit() == 128 + SIGTERM)
        let settings = t.currentSettings
        #expect(settings.c_lflag & tcflag_t(ICANON) != 0, "cooked again")
        #expect(settings.c_lflag & tcflag_t(ECHO) != 0, "echo on again")
    }

    @Test func theIdleTimeoutWipesTheCardAndSaysSo() throws {
        let t = try start(["--timeout", "0.5"])
        #expect(t.expect("Card number: "))
        t.send("4111")
        #expect(t.waitForExit() == 124)
        #expect(t.expect("Timed out: no key for 0.5 seconds; the card being entered was wiped."))
        Self.expectPlainText(t.raw)
    }

    @Test func ctrlCCancelsTheCardOrEndsAOneShotPrompt() throws {
        let t = try start([])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/3")
        t.send("\u{03}")
        #expect(t.expect("Card cancelled. Start again with the card number."))
        #expect(t.expect("Card number: "))
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        Self.expectPlainText(t.raw)

        let once = try start(["--print", "--once"])
        #expect(once.expect("Card number: "))
        once.send("4111")
        once.send("\u{03}")
        #expect(once.expect("Cancelled: the card being entered was wiped."))
        #expect(once.waitForExit() == 130)
        #expect(once.pipedText(1).isEmpty)
    }

    /// Accessible mode leaves no copy of the number in the process's memory once an entry has
    /// ended (accepted, cancelled halfway through a line, refused and asked again): the answer
    /// being typed is overwritten as the engine's fields are (`CardMemoryTests`' scan).
    @Test(
        .enabled(
            if: geteuid() == 0, "reading the prompt's memory (/proc/PID/mem of a non-dumpable process) needs root"),
        .disabled(if: testingUnderASan, "AddressSanitizer keeps its own free(): freed memory is not wiped"),
        arguments: ["accepted", "cancelled", "refused"])
    func noCopyOfTheNumberOnceTheEntryHasEnded(_ ending: String) throws {
        let scan = CardMemoryTests()
        let number = CardMemoryTests.number
        // Delivered to descriptor 3 when accepted; else Ctrl-C cancels the card (one-shot use would end).
        let t = ending == "accepted" ? try start(["--print-fd", "3"], pipes: [3]) : try start([], pipes: [])
        #expect(t.expect("Card number: "))
        switch ending {
        case "accepted":
            t.send(number + "\r")
            #expect(t.expect("Expiry date"))
            // The scan sees the digits while the engine holds them (it is not blind).
            let found = scan.copies(in: t.pid)
            #expect(found.contains { $0.hasPrefix("digit values") }, "found: \(found)")
            t.send("12/30\r123\r")
            #expect(t.expect("Success!"))
            t.waitForPiped(3, containing: number)
        case "cancelled":
            t.send(CardMemoryTests.partial)
            #expect(t.expect(CardMemoryTests.partial))
            // The answer being typed is seen where it is kept (the scan is not blind to it).
            let found = scan.copies(in: t.pid)
            #expect(found.contains { $0.hasPrefix("middle digits") }, "found: \(found)")
            t.send("\u{03}")
            #expect(t.expect("Card cancelled."))
        default:
            // One digit short: refused at Enter, emptied, asked again.
            t.send(CardMemoryTests.partial + "\r")
            #expect(t.expect("this has 15."))
        }
        scan.waitUntilIdle(t) { $0.cursorLine.hasPrefix("Card number:") && !$0.cursorLine.contains(where: \.isNumber) }
        let found = scan.copies(in: t.pid)
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")
        t.send("\u{04}")
    }

    /// Issue 39: a masked number and an expiry are said in words everywhere, `:cards` too (a
    /// screen reader read "bullet" eight times), and `:help` lists only what works here.
    @Test func numbersAreSaidInWordsAndTheHelpIsAccessibleModes() throws {
        let t = try start([])
        #expect(t.expect("Card number: "))
        t.send(Self.number + "\r12/30\r" + Self.code + "\r")
        #expect(t.expect("Success! Visa ending in 1111, expires December 2030."))
        t.send(":cards\r")
        #expect(t.expect("1. Visa ending in 1111  expires December 2030 (selected)"))
        #expect(!Self.lines(t).contains { $0.hasPrefix("*") }, "the selected card is not marked with a star")
        t.send(":help\r")
        #expect(t.expect(":network ID delivers a co-badged card as network ID; :quit leaves."))
        #expect(t.expect("Card number: "))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let lines = Self.lines(t)
        #expect(!lines.contains { $0.contains("•") }, "\(lines)")
        for absent in ["Up/Down", "previous", "Ctrl-N"] {
            #expect(!lines.contains { $0.contains(absent) }, "\(absent): \(lines)")
        }
    }

    /// The words are the language's: months and "ending in" from the catalog.
    @Test func numbersAreSaidInTheDesksLanguage() throws {
        let t = try start([], environment: ["LANG": "de_DE.UTF-8"])
        #expect(t.expect("Kartennummer"))
        t.send(Self.number + "\r12/30\r" + Self.code + "\r")
        #expect(t.expect("Visa endet auf 1111, gültig bis Dezember 2030."))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

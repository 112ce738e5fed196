import CardKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every key sequence a terminal sends goes through the engine whole: through a real pty
/// against the real binary, the card delivered with `--print` holds exactly the digits typed,
/// and the screen shows exactly what the engine holds, whatever was pressed in between.
@Suite struct KeySequenceTests {
    let home = TemporaryHome()

    /// cardline at a pty (no colour, no history, `--today 2026-11`, plus `extra`), once it
    /// has the terminal in raw mode.
    func start(_ extra: [String] = [], pipes: [Int32] = [], columns: Int = 140, readOnlyInput: Bool = false) throws
        -> PseudoTerminal
    {
        try .prompt(extra, home: home, pipes: pipes, columns: columns, readOnlyInput: readOnlyInput)
    }

    /// Keys that must change nothing in a card number, as terminals send them (xterm, its
    /// modified forms `CSI 1;mod X` and `CSI n;mod ~`, SS3, rxvt, the Linux console), plus
    /// Alt chords, control keys, mouse reports, characters that are not digits and bytes that
    /// are not UTF-8. Each is refused with a line starting "✗".
    static let sequences: [(String, String)] = [
        ("Ctrl-Left", "\u{1B}[1;5D"), ("Ctrl-Right", "\u{1B}[1;5C"), ("Shift-Up", "\u{1B}[1;2A"),
        ("Alt-Down", "\u{1B}[1;3B"), ("Ctrl-Shift-Left", "\u{1B}[1;6D"), ("Left", "\u{1B}[D"), ("Right", "\u{1B}[C"),
        ("SS3 Left", "\u{1B}OD"), ("SS3 Right", "\u{1B}OC"), ("Home", "\u{1B}[H"), ("End", "\u{1B}[F"),
        ("SS3 Home", "\u{1B}OH"), ("SS3 End", "\u{1B}OF"), ("Home ~", "\u{1B}[1~"), ("End ~", "\u{1B}[4~"),
        ("rxvt Home", "\u{1B}[7~"), ("rxvt End", "\u{1B}[8~"), ("Insert", "\u{1B}[2~"), ("Delete", "\u{1B}[3~"),
        ("Ctrl-Delete", "\u{1B}[3;5~"), ("Page Up", "\u{1B}[5~"), ("Page Down", "\u{1B}[6~"), ("F1", "\u{1B}OP"),
        ("rxvt F1", "\u{1B}[11~"), ("Linux F1", "\u{1B}[[A"), ("F5", "\u{1B}[15~"), ("Shift-F12", "\u{1B}[24;2~"),
        ("Ctrl-F1", "\u{1B}[1;5P"), ("Shift-Tab", "\u{1B}[Z"), ("rxvt Ctrl-Delete", "\u{1B}[3^"),
        ("rxvt Shift-Insert", "\u{1B}[2$"), ("rxvt Ctrl-Left", "\u{1B}Od"), ("rxvt Shift-Up", "\u{1B}[a"),
        ("Alt-Up", "\u{1B}\u{1B}[A"), ("Alt-5", "\u{1B}5"), ("Alt-x", "\u{1B}x"), ("Alt-Backspace", "\u{1B}\u{7F}"),
        ("SGR mouse", "\u{1B}[<0;10;5M"), ("X10 mouse", "\u{1B}[M !!"), ("keypad begin", "\u{1B}[E"),
        ("Ctrl-A", "\u{01}"), ("Ctrl-B", "\u{02}"), ("Ctrl-E", "\u{05}"), ("Ctrl-F", "\u{06}"), ("Ctrl-K", "\u{0B}"),
        ("Ctrl-W", "\u{17}"), ("Ctrl-Y", "\u{19}"), ("Ctrl-T", "\u{14}"), ("Ctrl-R", "\u{12}"), ("Ctrl-]", "\u{1D}"),
        ("Up", "\u{1B}[A"), ("euro", "€"), ("emoji", "😀"), ("e acute", "é"), ("letter", "x"),
        ("unknown CSI", "\u{1B}[99z"), ("kitty Ctrl-5", "\u{1B}[53;5u"),
    ]
    static let bytes: [(String, [UInt8])] = [
        ("byte 0xFF", [0xFF]), ("lone continuation", [0x80]), ("truncated UTF-8", [0xC3]), ("overlong", [0xC0, 0xAF]),
    ]
    /// Every key sequence terminfo lists for the ten terminals of
    /// `Tests/CardKitTests/TerminfoKeySequences.swift` (read from that file, so both tests
    /// share one catalogue), once each, that is not a key with a meaning here (digits on the
    /// keypad, Enter, Backspace, Up and Down, Ctrl-Z), and not `kmous`.
    static let terminfo: [(name: String, bytes: [UInt8])] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../CardKitTests/TerminfoKeySequences.swift").standardized
        guard let source = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        var seen = Set<[UInt8]>()
        var rows: [(String, [UInt8])] = []
        for line in source.split(separator: "\n") where line.hasPrefix("    (\"") {
            let parts = line.split(separator: "\"")
            guard parts.count >= 5, let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else {
                continue
            }
            let bytes = line[line.index(after: open)..<close].split(separator: ",").compactMap {
                UInt8($0.trimmingCharacters(in: .whitespaces).dropFirst(2), radix: 16)
            }
            // kmous is only the start of a mouse report (three more bytes follow); reports
            // whole are in `sequences`.
            guard parts[3] != "kmous", !bytes.isEmpty, seen.insert(bytes).inserted else { continue }
            var decoder = KeyDecoder()
            let keys = decoder.feed(bytes) + decoder.flush()
            guard keys.count == 1, case .other? = keys[0].entryKey, keys[0].base != .control(0x1A) else { continue }
            rows.append(("\(parts[1]) \(parts[3])", bytes))
        }
        return rows
    }()

    static let noise: [(name: String, bytes: [UInt8])] = sequences.map { ($0.0, Array($0.1.utf8)) } + bytes + terminfo

    static let cards = ["4111111111111111", "5555555555554444", "4012888888881881", "5105105105105100"]

    /// The field's text on the screen's cursor line: after the prompt's ": ", before the badge.
    static func field(_ line: String) -> String {
        guard let colon = line.range(of: "): ") ?? line.range(of: ": ") else { return "" }
        let rest = line[colon.upperBound...]
        return String(rest.components(separatedBy: "  ").first ?? "").trimmingCharacters(in: .whitespaces)
    }

    static func grouped(_ digits: String) -> String {
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && index % 4 == 0 { text += " " }
            text.append(digit)
        }
        return text
    }

    @Test func noKeySequenceChangesTheNumberOrTheScreen() throws {
        let t = try start(["--print"], pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        #expect(Self.terminfo.count > 100, "the terminfo catalogue was read")
        var slot = 0
        let rounds = (Self.noise.count + 15) / 16
        for card in (0..<rounds).map({ Self.cards[$0 % Self.cards.count] }) {
            var typed = ""
            for digit in card {
                let (name, bytes) = Self.noise[slot % Self.noise.count]
                slot += 1
                let refusals = t.text.components(separatedBy: "✗ ").count
                // The key and the digit go in one write, as fast typing or a slow link
                // delivers them: the decoder must still tell where the sequence ends.
                t.send(bytes: bytes + Array(String(digit).utf8))
                typed.append(digit)
                let shown = Self.grouped(typed)
                let screen = t.waitForScreen("\(name) then \(digit): the field shows \(shown)") { screen in
                    screen.lines.contains { $0.hasPrefix("Card number") && Self.field($0) == shown }
                        || (typed.count == 16 && screen.cursorLine.hasPrefix("Expiry"))
                }
                #expect(screen != nil, "after \(name)")
                #expect(t.text.components(separatedBy: "✗ ").count > refusals, "\(name) was refused with a reason")
            }
            t.waitForScreen("the expiry field") { $0.cursorLine.hasPrefix("Expiry") }
            t.send("1230")
            t.waitForScreen("the security code field") {
                $0.cursorLine.hasPrefix("CVV") || $0.cursorLine.hasPrefix("CVC")
            }
            t.send("123\r")
            t.waitForPiped(1, containing: "\"number\":\"\(card)\"")
        }
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let delivered = t.pipedText(1).split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return object["number"] as? String
        }
        #expect(
            delivered == (0..<rounds).map { Self.cards[$0 % Self.cards.count] },
            "exactly the digits typed, card by card")
        #expect(slot >= Self.noise.count, "every sequence was sent")
    }

    @Test func aLoneEscapeIsAKeyAndTheNextDigitIsTyped() throws {
        let t = try start()
        t.send("41")
        t.send("\u{1B}")
        t.expect("Esc does nothing here")
        t.send("1")
        #expect(t.waitForScreen("411") { Self.field($0.cursorLine) == "411" } != nil)
        t.send("\u{1B}5")
        t.expect("Alt-digit does nothing here")
        t.send("1")
        #expect(t.waitForScreen("4111: the Alt chord typed nothing") { Self.field($0.cursorLine) == "4111" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func aSequenceSplitByASlowLinkTypesNoDigit() throws {
        let t = try start()
        t.send("4111\u{1B}")
        // The pause has ended the sequence: Esc alone (seen on screen), then the rest arrives.
        t.expect("Esc does nothing here")
        t.send("[1;5D1")
        t.expect("Ctrl-Left does nothing here")
        #expect(t.waitForScreen("4111 1") { Self.field($0.cursorLine) == "4111 1" } != nil)
        // F5 cut after ESC [ the same way.
        t.send("\u{1B}[")
        t.expect("Alt-[ does nothing here")
        t.send("15~1")
        t.expect("F5 does nothing here")
        #expect(t.waitForScreen("4111 11") { Self.field($0.cursorLine) == "4111 11" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func anOverlongSequenceTypesNoDigit() throws {
        let t = try start()
        t.send("4111\u{1B}[" + String(repeating: "1", count: 70) + "~1")
        t.expect("does nothing here")
        #expect(t.waitForScreen("4111 1") { Self.field($0.cursorLine) == "4111 1" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func aPasteWithNoEndIsEndedByAPause() throws {
        let t = try start()
        t.send("\u{1B}[200~41")
        // No end marker: after a pause of a few seconds the paste is taken as it stands.
        #expect(t.waitForScreen("41 from the unfinished paste") { Self.field($0.cursorLine) == "41" } != nil)
        t.send("1")
        #expect(t.waitForScreen("keys work again") { Self.field($0.cursorLine) == "411" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test(arguments: [false, true])
    func aSignalClearsEveryRowOfAWrappedLine(readOnlyInput: Bool) throws {
        // At 24 columns a long number wraps; with stdin read-only the handlers must still
        // write to the terminal (through stdout's side).
        let t = try start(columns: 24, readOnlyInput: readOnlyInput)
        t.send("555555555555444")
        t.waitForScreen("15 digits") { $0.lines.joined().contains("5555 5555 5555 444") }
        kill(t.pid, SIGTERM)
        #expect(t.waitForExit() == 128 + SIGTERM)
        let screen = t.screen
        #expect(!screen.lines.contains { $0.contains("5555") || $0.contains("444") }, "no digit left: \(screen.lines)")
        #expect(!screen.bracketedPaste)
    }

    @Test func keypadDigitsInApplicationModeAreDigits() throws {
        let t = try start()
        t.send("\u{1B}Ot\u{1B}Oq\u{1B}Oq")  // keypad 4, 1, 1 (DECKPAM)
        #expect(t.waitForScreen("411 from the keypad") { Self.field($0.cursorLine) == "411" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func bracketedPasteIsOneBurstAndIsTurnedOff() throws {
        let t = try start(["--print"], pipes: [1])
        #expect(t.waitForScreen("bracketed paste on") { $0.bracketedPaste } != nil)
        // A whole card pasted: one burst, with its line break left out (Enter is the person's).
        t.send("\u{1B}[200~4111 1111 1111 1111\n12/30 123\u{1B}[201~")
        t.waitForScreen("the CVV field holding 3 digits") {
            $0.cursorLine.hasPrefix("CVV") && $0.cursorLine.contains("•••")
        }
        #expect(t.pipedText(1).isEmpty, "a paste does not submit")
        t.send("\r")
        t.waitForPiped(1, containing: "\"number\":\"4111111111111111\"")
        // A paste of text that is not a card: one refusal line, nothing typed.
        let before = t.text.components(separatedBy: "✗ ").count
        t.send("\u{1B}[200~hello \u{1B}[A world\u{1B}[201~")
        t.expect("only digits go in the card number, not 'h'")
        t.send("5")
        #expect(t.waitForScreen("5 typed after the paste") { Self.field($0.cursorLine) == "5" } != nil)
        #expect(t.text.components(separatedBy: "✗ ").count == before + 1)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
        #expect(!t.screen.bracketedPaste, "bracketed paste is off again at exit")
    }

    @Test func bracketedPasteIsOffAfterASignal() throws {
        let t = try start()
        #expect(t.waitForScreen("bracketed paste on") { $0.bracketedPaste } != nil)
        t.send("4111")
        t.waitForScreen("4111") { Self.field($0.cursorLine) == "4111" }
        kill(t.pid, SIGTERM)
        #expect(t.waitForExit() == 128 + SIGTERM)
        let screen = t.screen
        #expect(!screen.bracketedPaste)
        #expect(!screen.lines.contains { $0.contains("4111") }, "the live field is cleared: \(screen.lines)")
    }

    @Test func colourIsResetAfterEverySpan() throws {
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-history"], environment: environment)
        t.waitForRawMode()
        t.send("4111")
        // Once drawn, nothing is left coloured: the next thing written starts in default colours.
        let screen = t.waitForScreen("4111 typed and no colour left on") {
            Self.field($0.cursorLine) == "4111" && $0.attributes.isEmpty
        }
        #expect(t.raw.contains(0x1B), "colour is on")
        let line = try #require(screen).cells[try #require(screen).row]
        let text = String(line.map(\.character))
        let start = try #require(text.range(of: "): ")).upperBound
        let offset = text.distance(from: text.startIndex, to: start)
        let digits = line[offset..<(offset + 4)]
        #expect(digits.map(\.character) == ["4", "1", "1", "1"])
        #expect(
            digits.allSatisfy { $0.attributes.isEmpty }, "typed digits in default colours: \(digits.map(\.attributes))")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func narrowTerminalKeepsEveryLineWhole() throws {
        let t = try start(columns: 40)
        t.send("5555555555554444")
        t.waitForScreen("the expiry field") { $0.cursorLine.hasPrefix("Expiry") }
        t.send("1")
        let screen = try #require(t.waitForScreen("1 in the expiry") { Self.field($0.cursorLine) == "1" })
        // The help printed when the number was done is whole, not overwritten by the prompt.
        let all = screen.lines.joined(separator: "\n")
        #expect(all.contains("Type the expiry date as MM/YY"), "\(all)")
        #expect(
            screen.lines.contains { $0.hasPrefix("Number: 5555 55") || $0.hasPrefix("Card number: 5555 55") }, "\(all)")
        #expect(
            screen.cursorLine.contains("MASTERCARD") || screen.cursorLine.contains("CVV")
                || !screen.cursorLine.contains("  "),
            "the badge is shown whole or not at all: \(screen.cursorLine)")
        t.send("\u{15}\u{03}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func aResizeRedrawsTheLineCleanly() throws {
        let t = try start()
        t.send("5555555555")
        t.waitForScreen("the badge at 10 digits") { $0.cursorLine.contains("MASTERCARD 10/16") }
        t.resize(columns: 40)
        let screen = try #require(
            t.waitForScreen("the line redrawn for 40 columns") { screen in
                screen.cursorLine.hasPrefix("Card number: 5555") || screen.cursorLine.hasPrefix("Number: 5555")
            })
        #expect(
            !screen.lines.contains {
                $0.contains("MASTERCARD 10/16") && !$0.hasPrefix("Card number: ") && !$0.hasPrefix("Number: ")
            },
            "no stale badge: \(screen.lines)")
        #expect(Self.field(screen.cursorLine) == "5555 5555 55")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func ctrlZClearsTheLiveFieldFirst() throws {
        let t = try start()
        t.send("555555555555444")
        t.waitForScreen("15 digits") { Self.field($0.cursorLine) == "5555 5555 5555 444" }
        let mark = t.raw.count
        t.send("\u{1A}")
        // The child leads its own session, so the stop itself is discarded (an orphaned
        // process group); what the shell would show is the screen as the handler left it,
        // just before bracketed paste was turned off.
        let off = Array("\u{1B}[?2004l".utf8)
        _ = t.waitForScreen("the terminal let go") { _ in
            let tail = Array(t.rawSince(mark))
            return tail.count >= off.count && (0...(tail.count - off.count)).contains { tail[$0...].starts(with: off) }
        }
        let tail = Array(t.rawSince(mark))
        let at = try #require((0...(tail.count - off.count)).first { tail[$0...].starts(with: off) })
        var before = ScreenModel(columns: 140, rows: 40)
        before.feed(t.raw[..<(mark + at)])
        #expect(
            !before.lines.contains { $0.contains("5555") },
            "no digit on screen when the shell takes over: \(before.lines)")
        // Back from the stop: the field is drawn again.
        #expect(t.waitForScreen("the field drawn again") { Self.field($0.cursorLine) == "5555 5555 5555 444" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

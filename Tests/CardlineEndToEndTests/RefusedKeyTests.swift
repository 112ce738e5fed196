import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A refused key is named by what it is, never by spelling what was typed (issue 20): `ESC [`
/// followed by fast typing is one escape sequence holding the whole card, and Alt chords on
/// digits spell the card one refusal at a time. The whole byte stream the terminal got is
/// scanned for the test number's middle digits.
@Suite struct RefusedKeyTests {
    let home = TemporaryHome()

    /// A Luhn-valid Visa number whose digits 7–12 (`880343`, what masking hides) occur nowhere
    /// else on the screen.
    static let number = "4539148803436467"
    static let middle = "880343"

    /// Runs of digits in `text`, where digits separated by one space (a group, or a spelled-out
    /// byte list) count as one run, with the separators taken out.
    static func digitRuns(_ text: String) -> [String] {
        var runs: [String] = []
        var current = ""
        var gap = false
        for scalar in text.unicodeScalars {
            if scalar.properties.numericType == .decimal && scalar.isASCII {
                current.unicodeScalars.append(scalar)
                gap = false
            } else if scalar == " " && !gap && !current.isEmpty {
                gap = true
            } else {
                if !current.isEmpty { runs.append(current) }
                current = ""
                gap = false
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// True when the terminal's whole byte stream, escape sequences taken out, holds the
    /// middle digits of `number` in one run.
    static func showsMiddleDigits(_ raw: [UInt8]) -> Bool {
        digitRuns(PseudoTerminal.plain(raw)).contains { $0.contains(middle) }
    }

    func start() throws -> PseudoTerminal { try .prompt(home: home) }

    @Test func theScanFindsTheDigitsItHunts() {
        #expect(Self.showsMiddleDigits(Array("an unknown key (ESC [ 4 5 3 9 1 4 8 8 0 3 4 3 6 4 6 7)".utf8)))
        #expect(Self.showsMiddleDigits(Array("4539 1488 0343 6467".utf8)))
        #expect(!Self.showsMiddleDigits(Array("4539 14•• •••• 6467".utf8)))
    }

    @Test func escapeBracketThenFastDigitsIsOneSequenceNamedByItsKind() throws {
        let t = try start()
        t.expect("Card number")
        t.send("\u{1B}[" + Self.number)
        // No final byte came: a pause ends the sequence, refused as one key.
        t.expect("does nothing here")
        // Keys still work, and the sequence typed nothing.
        t.send("4")
        #expect(t.waitForScreen("4 typed") { KeySequenceTests.field($0.cursorLine) == "4" } != nil)
        #expect(t.text.contains("an unknown escape sequence does nothing here"), "\(t.text.suffix(300))")
        #expect(!t.text.contains("ESC"), "no byte of it spelled out")
        #expect(!Self.showsMiddleDigits(t.raw), "\(t.text.suffix(300))")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func altDigitsAreOneRefusalThatNamesNoDigit() throws {
        let t = try start()
        t.expect("Card number")
        // Alt held over the whole number, typed fast: one burst of sixteen chords.
        t.send(Self.number.map { "\u{1B}\($0)" }.joined())
        t.expect("does nothing here")
        // Keys are handled in order: once the 4 shows, every chord has been.
        t.send("4")
        #expect(t.waitForScreen("4 typed") { KeySequenceTests.field($0.cursorLine) == "4" } != nil)
        let text = t.text
        #expect(text.components(separatedBy: "does nothing here").count == 2, "one message for the burst: \(text)")
        #expect(text.contains("Alt-digit does nothing here"))
        #expect(text.range(of: "Alt-[0-9]", options: .regularExpression) == nil, "\(text)")
        #expect(!Self.showsMiddleDigits(t.raw))
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// Different refused keys arriving in one burst (a mouse report, Alt chords, Ctrl-Left)
    /// give one message, not one each.
    @Test func aBurstOfDifferentRefusedKeysGivesOneMessage() throws {
        let t = try start()
        t.expect("Card number")
        t.send("\u{1B}4\u{1B}[<0;10;5M\u{1B}5\u{1B}[1;5D\u{1B}3\u{1B}[Mabc\u{1B}9")
        t.expect("does nothing here")
        t.send("4")
        #expect(t.waitForScreen("4 typed") { KeySequenceTests.field($0.cursorLine) == "4" } != nil)
        #expect(t.text.components(separatedBy: "does nothing here").count == 2, "\(t.text)")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

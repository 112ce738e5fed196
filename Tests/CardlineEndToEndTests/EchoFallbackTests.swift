import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The redraw after a wrong early echo (issue 21's review). An ordinary digit's echo may go
/// out as the key is read, before the engine takes it (`EarlyEcho`); the editor then checks
/// that it wrote what the key does, and when not (`echoWentWrong`) draws the line again. That
/// cannot happen with the prompt's own predictions, so `echo-fallback-prompt` (the real
/// prompt, its key reader standing in with every armed echo spoiled: the digit then "XX")
/// drives it: the wrong echo reaches the terminal, and the line is then what a full redraw
/// (Ctrl-L) draws, with no "X" left on it.
@Suite struct EchoFallbackTests {
    let home = TemporaryHome()

    @Test func aWrongEarlyEchoIsDrawnOver() throws {
        let t = try PseudoTerminal(arguments: [], environment: home.environment, binary: builtBinary("echo-fallback-prompt"), columns: 100)
        t.waitForRawMode()
        try #require(t.expect("Card number"))
        // Digit by digit, each once the line shows the one before (an echo is armed only
        // when no key is waiting, and only once the network is known).
        var spoiled = 0
        for (count, digit) in "4111111".enumerated() {
            let mark = t.raw.count
            t.send(String(digit))
            let shown = t.waitForScreen("digit \(count + 1)") { screen in
                screen.cursorLine.hasSuffix(" \(count + 1)") || screen.cursorLine.hasSuffix(" \(count + 1)/16")
            }
            try #require(shown != nil, "\(t.screen.lines)")
            // The spoiled echo went out first, as read: the path under test.
            if PseudoTerminal.plain(Array(t.rawSince(mark))).hasPrefix("\(digit)XX") { spoiled += 1 }
        }
        #expect(spoiled >= 4, "\(spoiled) of 7 digits were echoed early (spoiled)")
        let typed = try #require(t.waitForScreen("the line") {
            $0.cursorLine.hasPrefix("Card number (#### #### #### ####): 4111 111 ") && $0.cursorLine.hasSuffix("VISA 7/16")
        })
        #expect(!typed.lines.joined().contains("X"), "\(typed.lines)")
        // Cell by cell what Ctrl-L draws afresh.
        let before = typed.cursorLine
        let mark = t.raw.count
        t.send("\u{0C}")
        let home = Array("\u{1B}[H".utf8)
        let redrawn = t.waitForScreen("the redraw") { screen in
            let tail = Array(t.rawSince(mark))
            return tail.count >= home.count && (0...(tail.count - home.count)).contains { tail[$0...].starts(with: home) }
                && screen.cursorLine.hasSuffix("VISA 7/16")
        }
        #expect(redrawn?.cursorLine == before)
        t.send("\u{04}\u{04}")
    }
}

import Foundation
import PTYSupport
import Testing

/// A resize ends the prompt's wait for a key by itself: the line is drawn again at the new
/// width with no key typed after it (the other resize tests always send a key afterwards, so
/// a resize noticed only at the next key would pass them).
@Suite struct ResizeWaitTests {
    let home = TemporaryHome()

    @Test func aResizeAloneRedrawsTheLine() throws {
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-history"], environment: home.environment)
        t.waitForRawMode()
        t.send("4111")
        #expect(t.expectBadge("VISA 4/16"))
        // Waiting for a key: the typed digits are all read (nothing left in the input queue).
        #expect(t.until("the prompt has read every key") { t.unreadInput == 0 })
        let mark = t.raw.count
        t.resize(columns: 70)
        let redrawn = t.waitForScreen("the line drawn again after the resize, no key sent") { _ in
            String(decoding: t.rawSince(mark), as: UTF8.self).contains("4111")
        }
        #expect(redrawn != nil)
        t.send("1")
        #expect(t.expectBadge("VISA 5/16"))
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a keystroke writes to the terminal (issue 13): a digit that only appends to the field
/// is echoed once and the badge's logo and progress are rewritten; the prompt and the rest of
/// the field are not drawn again. Bytes matter on a slow link (SSH from a shop, a serial console).
@Suite struct PromptEconomyTests {
    let home = TemporaryHome()

    @Test(arguments: [true, false])
    func anOrdinaryDigitWritesItselfAndTheBadgeOnly(colour: Bool) throws {
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-history"] + (colour ? [] : ["--no-color"]),
                                   environment: home.environment)
        t.waitForRawMode()
        t.send("41111")
        t.expect("VISA 5/16")
        let mark = t.raw.count
        t.send("1")
        t.expect("VISA 6/16")
        let written = Array(t.rawSince(mark))
        #expect(PseudoTerminal.plain(written) == "1VISA 6/16", "only the digit and the badge: \(PseudoTerminal.plain(written).debugDescription)")
        #expect(written.count <= (colour ? 40 : 24), "\(written.count) bytes: \(String(decoding: written, as: UTF8.self).debugDescription)")
        // The screen is right: the field, and the badge in its colour with nothing left on.
        let screen = try #require(t.waitForScreen("the digit and the badge") { $0.cursorLine.contains("4111 11") && $0.cursorLine.contains("VISA 6/16") })
        #expect(screen.attributes.isEmpty)
        let line = screen.cells[screen.row]
        let badge = String(line.map(\.character)).range(of: "VISA 6/16").map { String(line.map(\.character)).distance(from: String(line.map(\.character)).startIndex, to: $0.lowerBound) }
        let start = try #require(badge)
        #expect(line[start..<(start + 9)].allSatisfy { $0.attributes.isEmpty != colour }, "the badge coloured only with colour on")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

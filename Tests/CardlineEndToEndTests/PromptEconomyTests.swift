import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a keystroke writes to the terminal (issues 13, 21 and 37): a digit that only appends to
/// the field writes only the cells that change (`LineCells`), the digit and the badge counter's
/// changed characters, with relative cursor motions: at most 16 bytes. The prompt,
/// the rest of the field and the badge's logo are not drawn again. Bytes matter on a slow link
/// (SSH from a shop, a serial console).
@Suite struct PromptEconomyTests {
    let home = TemporaryHome()

    @Test(arguments: BadgeDrawingTests.terminals)
    func anOrdinaryDigitWritesOnlyTheCellsThatChange(terminal: [String: String?]) throws {
        var environment = home.environment
        for (name, value) in terminal { environment[name] = value }
        let colour = terminal["NO_COLOR"] == nil && (terminal["TERM"] == "xterm" || terminal["COLORTERM"] != nil)
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-history"], environment: environment)
        t.waitForRawMode()
        let number = Array("4111111111111111")
        t.send(String(number.prefix(3)))
        t.expectBadge("VISA 3/16")
        var sizes: [Int] = []
        for count in 4...15 {
            let mark = t.raw.count
            t.send(String(number[count - 1]))
            let field = String(number.prefix(count)).grouped
            let screen = try #require(
                t.waitForScreen("\(count) digits") {
                    $0.cursorLine.contains(": " + field + " ") && $0.cursorLine.hasSuffix("VISA \(count)/16")
                })
            // The counter grows a cell at ten digits, and the whole badge moves: not an ordinary digit.
            guard count != 10 else { continue }
            let written = Array(t.rawSince(mark))
            sizes.append(written.count)
            #expect(
                written.count <= 16,
                "digit \(count): \(written.count) bytes: \(String(decoding: written, as: UTF8.self).debugDescription)")
            // What is written, escape sequences left out: the digit and the counter's characters
            // that changed (a group's space before the digit goes in a cell that is blank
            // already: the cursor moves over it).
            let before = Array("\(count - 1)/16")
            let after = Array("\(count)/16")
            let changed = before.indices.filter { before[$0] != after[$0] }
            let expected = String(number[count - 1]) + String(after[changed.first!...changed.last!])
            #expect(
                PseudoTerminal.plain(written) == expected,
                "digit \(count): \(PseudoTerminal.plain(written).debugDescription)")
            // Nothing left coloured: the next digit echoed is plain.
            #expect(screen.attributes.isEmpty)
            // The badge's logo in its colour with colour on; its counter plain.
            let line = screen.cells[screen.row]
            let text = String(line.map(\.character))
            let start = text.distance(from: text.startIndex, to: try #require(text.range(of: " VISA ")).lowerBound)
            #expect(
                line[start..<(start + 6)].allSatisfy { $0.attributes.isEmpty != colour },
                "the logo coloured only with colour on")
            #expect(line[(start + 6)...].allSatisfy { $0.attributes.isEmpty }, "the counter plain")
        }
        #expect(sizes.count == 11)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

extension String {
    /// Digits grouped by four, as a 16-digit Visa number is shown.
    var grouped: String {
        var result = ""
        for (index, character) in enumerated() {
            if index > 0 && index % 4 == 0 { result += " " }
            result.append(character)
        }
        return result
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a keystroke writes to the terminal (issues 13 and 21): a digit that only appends to the
/// field writes only the cells that change, the digit (after a group's space) and the badge
/// counter's changed characters, with relative cursor motions: at most 16 bytes. The prompt,
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
            let screen = try #require(t.waitForScreen("\(count) digits") {
                $0.cursorLine.contains(": " + field + " ") && $0.cursorLine.hasSuffix("VISA \(count)/16")
            })
            // The counter grows a cell at ten digits, and the whole badge moves: not an ordinary digit.
            guard count != 10 else { continue }
            let written = Array(t.rawSince(mark))
            sizes.append(written.count)
            #expect(written.count <= 16, "digit \(count): \(written.count) bytes: \(String(decoding: written, as: UTF8.self).debugDescription)")
            // What is written, escape sequences left out: the digit (after a group's space) and the
            // counter's characters that changed.
            let before = Array("\(count - 1)/16"), after = Array("\(count)/16")
            let changed = before.indices.filter { before[$0] != after[$0] }
            let expected = (count % 4 == 1 ? " " : "") + String(number[count - 1]) + String(after[changed.first!...changed.last!])
            #expect(PseudoTerminal.plain(written) == expected, "digit \(count): \(PseudoTerminal.plain(written).debugDescription)")
            // Nothing left coloured: the next digit echoed is plain.
            #expect(screen.attributes.isEmpty)
            // The badge's logo in its colour with colour on; its counter plain.
            let line = screen.cells[screen.row]
            let text = String(line.map(\.character))
            let start = text.distance(from: text.startIndex, to: try #require(text.range(of: " VISA ")).lowerBound)
            #expect(line[start..<(start + 6)].allSatisfy { $0.attributes.isEmpty != colour }, "the logo coloured only with colour on")
            #expect(line[(start + 6)...].allSatisfy { $0.attributes.isEmpty }, "the counter plain")
        }
        #expect(sizes.count == 11)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// How many write(2) calls a process has made (`syscw` in `/proc/PID/io`); nil when it
    /// cannot be read (the prompt is not dumpable: only root reads it).
    static func writeCalls(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("syscw:") }) else { return nil }
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
    }

    /// The fast path is the one taken (issue 21 item 7): an ordinary digit is echoed by cardline
    /// itself, the digit and the badge counter's change in one write(2), not by libedit's
    /// dispatch and redraw and then the badge (two writes or more). The bytes are the same
    /// either way, so the test above cannot tell the paths apart; the count of write calls can.
    @Test(.enabled(if: geteuid() == 0, "/proc/PID/io of a process that is not dumpable is root's to read"),
          arguments: BadgeDrawingTests.terminals)
    func anOrdinaryDigitIsOneWrite(terminal: [String: String?]) throws {
        var calls = try EarlyEchoPathTests.perDigit(4...15, of: Self.writeCalls, terminal: terminal, home: home)
        // The counter grows a cell at ten digits and the whole badge moves: not an ordinary digit.
        calls[10] = nil
        #expect(calls.count == 11)
        #expect(calls.values.allSatisfy { $0 == 1 }, "write calls per digit: \(calls.sorted { $0.key < $1.key })")
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

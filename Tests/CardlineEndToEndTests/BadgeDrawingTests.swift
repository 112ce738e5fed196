import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension PseudoTerminal {
    /// Waits until a line of the screen shows `badge`. On the screen, not in the output:
    /// cardline brings the badge up to date by rewriting only its counter's characters that
    /// changed, so after an ordinary digit the output never holds the badge whole.
    @discardableResult
    func expectBadge(_ badge: String) -> Bool {
        waitForScreen("the badge \"\(badge)\"") { $0.lines.contains { $0.contains(badge) } } != nil
    }
}

/// The badge is drawn in one way on every terminal that takes escape sequences (issue 21,
/// items 4 and 7): by cardline, with cursor motions a VT100 has, and only the cells that change
/// are written. What a person sees must be what a full redraw draws: after many digits,
/// regrouping, backspaces and the format hint coming and going, the live line as it was built
/// key by key equals the line drawn afresh by Ctrl-L, cell by cell, colours included.
@Suite struct BadgeDrawingTests {
    let home = TemporaryHome()

    /// The terminals: xterm with and without colour, a VT100 (no column addressing, no
    /// colour) and a VT100 that says it has colour.
    static let terminals: [[String: String?]] = [
        ["TERM": "xterm"],
        ["TERM": "xterm", "NO_COLOR": "1"],
        ["TERM": "vt100"],
        ["TERM": "vt100", "COLORTERM": "truecolor"],
    ]

    func start(_ terminal: [String: String?], _ arguments: [String] = [], columns: Int = 100) throws -> PseudoTerminal {
        var environment = home.environment
        for (name, value) in terminal { environment[name] = value }
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history"] + arguments,
            environment: environment, columns: columns)
        t.waitForRawMode()
        t.expect("Card number")
        return t
    }

    /// The cursor's row as characters and their attributes.
    static func row(_ screen: ScreenModel) -> [String] {
        screen.cells[screen.row].map { "\($0.character)|\($0.attributes)" }
    }

    /// Sends `keys`, waits until the live line ends with `field` and shows `badge`, then has
    /// Ctrl-L draw it afresh: both must be the same, cell by cell.
    func checkAgainstRedraw(
        _ t: PseudoTerminal, keys: String, field: String, badge: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        t.send(keys)
        let built = t.waitForScreen("\(field) and \(badge)") { screen in
            let line = screen.cursorLine
            return line.contains(": " + field + " ") && line.hasSuffix(badge)
        }
        guard let built else { return }
        // Ctrl-L: libedit clears the screen (its `clear` capability, `ESC [ H` then a clear)
        // and draws prompt and line; the badge comes last.
        let mark = t.raw.count
        t.send("\u{0C}")
        let home = Array("\u{1B}[H".utf8)
        let redrawn = t.waitForScreen("the redraw of \(field)") { screen in
            let tail = Array(t.rawSince(mark))
            guard let clear = (0...max(0, tail.count - home.count)).last(where: { tail[$0...].starts(with: home) })
            else { return false }
            return PseudoTerminal.plain(Array(tail[clear...])).contains(badge)
                && screen.cursorLine.contains(": " + field + " ") && screen.cursorLine.hasSuffix(badge)
        }
        guard let redrawn else { return }
        #expect(
            Self.row(built) == Self.row(redrawn),
            "built key by key:\n\(built.cursorLine)\nredrawn:\n\(redrawn.cursorLine)",
            sourceLocation: sourceLocation)
    }

    /// The digit that widens the counter (`9/16` to `10/16`) keeps the layout when the row has
    /// a column to spare for it, and drops the format hint when it has none: on 73 columns the
    /// hint stays, on 72 it goes (the prompt with its hint 35, the widest number 23, the badge
    /// ` VISA 10/16 ` with its brackets' room 14, the cursor's cell 1). Either way the line
    /// is the one a full redraw draws.
    @Test(arguments: [(73, true), (72, false)])
    func theDigitThatWidensTheCounter(columns: Int, keepsHint: Bool) throws {
        let t = try start(["TERM": "xterm"], columns: columns)
        checkAgainstRedraw(t, keys: "411111111", field: "4111 1111 1", badge: "VISA 9/16")
        #expect(t.screen.cursorLine.contains("(#### #### #### ####)"))
        checkAgainstRedraw(t, keys: "1", field: "4111 1111 11", badge: "VISA 10/16")
        #expect(t.screen.cursorLine.contains("(#### #### #### ####)") == keepsHint, "\(t.screen.cursorLine)")
    }

    @Test(arguments: terminals)
    func theLineBuiltKeyByKeyIsTheLineRedrawn(terminal: [String: String?]) throws {
        let t = try start(terminal)
        // Many digits: the groups' spaces, the counter growing a cell at ten.
        checkAgainstRedraw(t, keys: "4111111111111", field: "4111 1111 1111 1", badge: "VISA 13/16")
        // Backspaces: the counter losing its cell again.
        checkAgainstRedraw(t, keys: String(repeating: "\u{7F}", count: 5), field: "4111 1111", badge: "VISA 8/16")
        // Emptied, then a network with other groups: the hint and the badge's logo change.
        checkAgainstRedraw(t, keys: "\u{15}3782", field: "3782", badge: "AMEX 4/15")
        checkAgainstRedraw(t, keys: "822463100", field: "3782 822463 100", badge: "AMEX 13/15")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)

        // At 80 columns the format hint goes when the badge needs its room, and comes back.
        let narrow = try start(terminal, columns: 80)
        checkAgainstRedraw(narrow, keys: "6221260000000", field: "6221 2600 0000 0", badge: "UNIONPAY 13/19")
        checkAgainstRedraw(narrow, keys: "0", field: "6221 2600 0000 00", badge: "UNIONPAY 14/19 (14 valid)")
        #expect(narrow.screen.cursorLine.hasPrefix("Card number: 6221"))
        checkAgainstRedraw(narrow, keys: "\u{7F}", field: "6221 2600 0000 0", badge: "UNIONPAY 13/19")
        #expect(narrow.screen.cursorLine.hasPrefix("Card number (#### #### #### ####): 6221"))
        narrow.send("\u{15}\u{04}")
        #expect(narrow.waitForExit() == 0)
    }

    /// A regrouping key: two networks share the prefix 70 until the 9th digit decides between
    /// groups 4-4-4-4 and 4-6-5, so the spaces move, the hint changes and the badge changes.
    @Test(arguments: terminals)
    func aRegroupingKeyLeavesTheLineAsRedrawn(terminal: [String: String?]) throws {
        let t = try start(terminal, ["--rules", try regroupingRules()])
        checkAgainstRedraw(t, keys: "70123456", field: "7012 3456", badge: "CARD 8")
        checkAgainstRedraw(t, keys: "7", field: "7012 34567", badge: "NARROW 9/15")
        checkAgainstRedraw(t, keys: "7", field: "7012 345677", badge: "NARROW 10/15")
        checkAgainstRedraw(t, keys: "\u{7F}\u{7F}", field: "7012 3456", badge: "CARD 8")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// The rules of the regrouping key: two networks share the prefix 70 until the 9th digit
    /// decides between groups 4-4-4-4 and 4-6-5.
    func regroupingRules() throws -> String {
        let rules = home.path + "/regroup-rules"
        try FileManager.default.createDirectory(atPath: rules, withIntermediateDirectories: true)
        try """
        {"id": "test-wide", "name": "Test Wide", "logo": "WIDE", "prefixes": ["70"], "lengths": [16], "groups": [4, 4, 4, 4], "luhn": false, "cvv": {"name": "CVV", "length": 3}}

        """.write(toFile: rules + "/wide.json", atomically: false, encoding: .utf8)
        try """
        {"id": "test-narrow", "name": "Test Narrow", "logo": "NARROW", "prefixes": ["701234567"], "lengths": [15], "groups": [4, 6, 5], "luhn": false, "cvv": {"name": "CVV", "length": 3}}

        """.write(toFile: rules + "/narrow.json", atomically: false, encoding: .utf8)
        return rules
    }

    /// A key that does more than append writes only the cells that change (issue 21, item 7):
    /// the regrouping key (the spaces move, the hint and the badge change) and backspaces. Before,
    /// libedit drew the whole line again and cardline the whole badge: 56 cells written for
    /// the regrouping key's 29 changed. Cells are counted by the screen model (characters put
    /// in a cell, and cells that differ, colours included).
    @Test(arguments: terminals)
    func aKeyThatRegroupsWritesOnlyTheCellsThatChange(terminal: [String: String?]) throws {
        let t = try start(terminal, ["--rules", try regroupingRules()])
        /// Sends `keys` and waits until the line shows `field` (the cursor after it) and `badge`;
        /// the cells written for them and the cells that changed.
        func type(_ keys: String, field: String, badge: String) throws -> (written: Int, changed: Int) {
            let before = t.screen
            t.send(keys)
            let after = try #require(
                t.waitForScreen("\(field) and \(badge)") { screen in
                    let line = screen.cursorLine
                    guard let range = line.range(of: ": " + field + " "), line.hasSuffix(badge) else { return false }
                    return screen.column == line.distance(from: line.startIndex, to: range.upperBound) - 1
                })
            let changed = zip(before.cells.joined(), after.cells.joined()).filter { $0 != $1 }.count
            return (after.written - before.written, changed)
        }
        _ = try type("70123456", field: "7012 3456", badge: "CARD 8")
        let regrouped = try type("7", field: "7012 34567", badge: "NARROW 9/15")
        #expect(regrouped.changed > 20, "the hint, the spaces and the badge change")
        #expect(
            regrouped.written == regrouped.changed,
            "the regrouping key: \(regrouped.written) cells written, \(regrouped.changed) changed")
        let erased = try type("\u{7F}", field: "7012 3456", badge: "CARD 8")
        #expect(
            erased.written <= erased.changed,
            "a backspace that regroups back: \(erased.written) written, \(erased.changed) changed")
        let backspace = try type("\u{7F}", field: "7012 345", badge: "CARD 7")
        #expect(
            backspace.written <= backspace.changed,
            "a backspace: \(backspace.written) written, \(backspace.changed) changed")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// The badge drawn by cardline, not as a right prompt that libedit redraws with the whole
    /// line: a digit is drawn the same way on every terminal; and on a VT100 nothing uses column
    /// addressing (`ESC [ n G`), which it lacks (libedit uses it on xterm, whose terminfo has it).
    @Test(arguments: terminals)
    func theBadgeIsDrawnWithVT100Motions(terminal: [String: String?]) throws {
        let t = try start(terminal)
        t.send("41111111")
        t.expectBadge("VISA 8/16")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
        let text = String(decoding: t.raw, as: UTF8.self)
        if terminal["TERM"] == "vt100" {
            #expect(text.range(of: "\u{1B}\\[[0-9]*G", options: .regularExpression) == nil, "a column address written")
        }
        // Only the first keys (before a network is known) and Ctrl-U may draw the badge whole.
        #expect(
            t.text.components(separatedBy: "VISA").count - 1 == 1,
            "the VISA badge drawn whole more than once: \(t.text.debugDescription)")
    }
}

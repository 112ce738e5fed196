import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a terminal keeps after the prompt clears or redraws holds no clear card number
/// (issue 20): tmux (like many terminals) pushes a cleared screen into its scrollback, and
/// reflows lines when it is resized. Checked in a real tmux, its history included
/// (`capture-pane -S -`), at several widths.
@Suite struct ScrollbackTests {
    let home = TemporaryHome()

    /// The number typed, one digit short of complete so that it stays in the live field.
    static let typed = String(RefusedKeyTests.number.dropLast())
    static let shown = "4539 1488 0343 646"

    /// True when a line holds the number's middle digits in one run.
    static func holdsMiddle(_ line: String) -> Bool {
        RefusedKeyTests.digitRuns(line).contains { $0.contains(RefusedKeyTests.middle) }
    }

    @Test func ctrlLPushesOnlyAMaskedFieldIntoTheScrollback() throws {
        let tmux = try Tmux(home: home, columns: 100, rows: 30)
        try tmux.waitForRawMode()
        tmux.sendLiteral(Self.typed)
        #expect(tmux.waitFor("the number typed") { $0.contains { KeySequenceTests.field($0) == Self.shown } } != nil)
        tmux.sendKey("C-l")
        // The cleared screen went into the history, and the prompt was drawn again at the top
        // with the number whole (it is still the live field).
        let history = tmux.waitFor("the cleared screen in the history, the line redrawn at the top", history: true) {
            _ in
            let visible = tmux.capture()
            return tmux.capture(onlyHistory: true).contains { $0.hasPrefix("Card number") }
                && visible.first.map { KeySequenceTests.field($0) == Self.shown } == true
        }
        #expect(history != nil)
        let kept = tmux.capture(onlyHistory: true)
        #expect(kept.contains { $0.hasPrefix("Card number") }, "the test sees what the clear pushed")
        #expect(!kept.contains(where: Self.holdsMiddle), "history: \(kept.filter { !$0.isEmpty })")
        tmux.sendKey("C-u")
        tmux.sendKey("C-d")
    }

    /// Shrinking a reflowing terminal (tmux) rewraps the live line over more rows, the cursor
    /// on its last; the prompt must clear every one of them before it draws again, or the rows
    /// above the cursor (the label and the number's first groups, up to the middle digits at
    /// 50 columns) stay on the screen and scroll into the history. Checked with the prompt on
    /// the screen's bottom row (where it is in a shell session: the rewrapped line pushes the
    /// screen up), from 120 and from 100 columns down to narrow widths and back up, each
    /// resize handled (a key after it has shown) before the next; then the card is emptied and
    /// everything the terminal holds, history included, is scanned.
    @Test(arguments: [120, 100])
    func resizingLeavesNoClearNumberBehind(startColumns: Int) throws {
        try checkResizing(atTheTop: false, startColumns: startColumns)
    }

    /// The same with the prompt on the screen's top row (after Ctrl-L). Not fixable by the
    /// prompt: tmux (3.3a) keeps the bottom of its grid, blank rows included, where it was
    /// when it reflows, so a shrink that makes the line take g more rows moves the screen's
    /// top g rows into the history at once (seen with a program that ignores SIGWINCH:
    /// `printf` the line, resize 120 to 50: history 3 rows, the line's first row
    /// `Card number (#### #### #### ####): 4539 1488 0343` among them). That row is gone
    /// from the screen before SIGWINCH reaches cardline; no escape sequence reaches the
    /// history. Only a line that starts at least g rows below the top is safe.
    @Test(
        .disabled(
            "tmux moves the line's first rows into its history itself when the line starts near the screen's top; see the comment"
        ),
        arguments: [120, 100])
    func resizingFromTheTopRowLeavesNoClearNumberBehind(startColumns: Int) throws {
        try checkResizing(atTheTop: true, startColumns: startColumns)
    }

    /// A prompt started with SIGWINCH blocked (the mask is inherited through exec, here through
    /// tmux's server) still hears of resizes and redraws.
    @Test func resizingIsSeenWhenTheParentBlocksSIGWINCH() throws {
        try checkResizing(atTheTop: false, startColumns: 120, blocking: [SIGWINCH])
    }

    private func checkResizing(atTheTop: Bool, startColumns: Int, blocking: [Int32] = []) throws {
        let rows = 10
        let tmux = try Tmux(home: home, columns: startColumns, rows: rows, blocking: blocking)
        try tmux.waitForRawMode()
        if atTheTop {
            tmux.sendKey("C-l")
            #expect(
                tmux.waitFor("the prompt on the top row", history: false) { $0.first?.hasPrefix("Card number") == true }
                    != nil)
        } else {
            // More lines of output than the screen has rows: the prompt ends on the bottom row.
            tmux.sendLiteral(":help")
            tmux.sendKey("Enter")
            #expect(
                tmux.waitFor("the prompt on the bottom row", history: false) { lines in
                    lines.count > rows - 1 && lines[rows - 1].hasPrefix("Card number")
                        && lines.filter { $0.contains(":quit") }.count == 1
                } != nil)
        }
        tmux.sendLiteral(Self.typed)
        // Drawn in full, badge included: output still on its way to tmux when it reflows would
        // land at the wrong place (the badge is written after the digit it counts).
        let done = "\(Self.typed.count)/16"
        #expect(
            tmux.waitFor("the number typed", history: false) {
                Self.liveDigits($0) == Self.typed && Self.liveLine($0)?.contains(done) == true
            } != nil)
        let widths = startColumns == 120 ? [50, 40, 80] : [30, 20, 60]
        for columns in widths {
            tmux.resize(columns: columns)
            // A key after the resize: once its effect shows, the resize has been handled.
            tmux.sendKey("BSpace")
            #expect(
                tmux.waitFor("\(columns) columns: one digit deleted", history: false) {
                    Self.liveDigits($0) == String(Self.typed.dropLast())
                } != nil)
            tmux.sendLiteral(String(Self.typed.last!))
            // Where the badge shows the count, it has moved on too: the line is drawn in full.
            let screen = tmux.waitFor("\(columns) columns: the digit typed again", history: false) {
                Self.liveDigits($0) == Self.typed && Self.liveLine($0)?.contains("\(Self.typed.count - 1)/16") == false
            }
            #expect(screen != nil)
            // Drawn from a known state: one prompt on the screen, the number in full after it.
            let prompts = (screen ?? []).filter { $0.hasPrefix("Card number") || $0.hasPrefix("Number") }
            #expect(prompts.count == 1, "\(columns) columns: \(screen ?? [])")
        }
        // The card emptied: from here on no row may hold any of its digits.
        tmux.sendKey("C-u")
        #expect(tmux.waitFor("the field emptied", history: false) { Self.liveDigits($0) == "" } != nil)
        // Everything the terminal holds, history included, wrapped rows joined.
        let kept = tmux.capture(history: true, joined: true)
        #expect(kept.contains { $0.hasPrefix("Type the card number;") }, "the test sees the history")
        #expect(!kept.contains(where: Self.holdsMiddle), "\(kept.filter { !$0.isEmpty })")
        let firstGroup = String(Self.typed.prefix(4))
        #expect(!kept.contains { $0.contains(firstGroup) }, "\(kept.filter { !$0.isEmpty })")
        tmux.sendKey("C-d")
    }

    /// The live line on a screen: the rows from the last prompt on, put together; nil without
    /// a prompt.
    static func liveLine(_ screen: [String]) -> String? {
        guard let start = screen.lastIndex(where: { $0.contains("umber") }) else { return nil }
        return screen[start...].joined()
    }

    /// The digits of the live field on a screen: the rows from the last prompt on, put
    /// together, the field's digits after the prompt's last colon (up to the badge); nil
    /// without a prompt.
    static func liveDigits(_ screen: [String]) -> String? {
        guard let line = liveLine(screen) else { return nil }
        guard let colon = line.lastIndex(of: ":") else { return nil }
        let field = line[line.index(after: colon)...].prefix { $0 == " " || $0.isASCII && $0.isNumber }
        return field.filter { $0 != " " }
    }
}

/// cardline in a tmux server of its own (its own socket, folder and environment), killed when
/// the value is dropped. Every wait polls tmux's screen with a deadline.
final class Tmux {
    let environment: [String: String]
    /// Short: the socket's path (TMUX_TMPDIR, `tmux-UID/`, this) must fit in 108 bytes.
    let socket = "cl-" + UUID().uuidString.prefix(8)
    let target = "cardline"

    /// Signals blocked in tmux's server, and so in the cardline it starts.
    let blocking: [Int32]

    init(
        home: TemporaryHome, columns: Int, rows: Int,
        arguments: [String] = ["--today", "2026-11", "--no-color", "--no-history"],
        blocking: [Int32] = []
    ) throws {
        self.blocking = blocking
        // tmux's own environment: its socket folder below the temporary home, a UTF-8 locale.
        environment = ["HOME": home.path, "TMUX_TMPDIR": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        // cardline's: the temporary home's, with the TERM tmux gives its panes.
        var child = home.environment
        child["TERM"] = "screen"
        let command =
            (["/usr/bin/env", "-i"] + child.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + [cardlineBinary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(
                separator: " ")
        // (The server it starts keeps the client's descriptors: no pipe to wait on here.)
        let started = run(
            ["new-session", "-d", "-s", target, "-x", "\(columns)", "-y", "\(rows)", command], reading: false)
        guard started.status == 0 else { throw POSIXError(.ECHILD) }
    }

    deinit { _ = run(["kill-server"]) }

    /// Runs a tmux command against this server; its status and standard output (not read
    /// when `reading` is false: the server that `new-session` starts keeps the client's
    /// descriptors, so a pipe there would never end). Spawned and reaped here, by its pid.
    @discardableResult
    func run(_ arguments: [String], reading: Bool = true) -> (status: Int32, output: String) {
        // Signals as a shell would leave them (but `blocking`): the test process blocks some
        // (SIGWINCH among them), and a mask is inherited through tmux's server by the cardline
        // it starts.
        guard
            let child = try? SpawnedProcess(
                ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments,
                environment: SpawnedProcess.environment(environment),
                descriptors: [(0, .null), (1, reading ? .pipe : .null), (2, .null)],
                closingOthers: true, signals: .asFromAShell(blocking: blocking), group: .inherited)
        else { return (-1, "") }
        let pid = child.pid
        defer { for fd in child.pipes.values { close(fd) } }
        let output = reading ? readToEnd(child.pipes[1]!) : []
        return (exitStatus(of: pid), String(decoding: output, as: UTF8.self))
    }

    func sendLiteral(_ text: String) { run(["send-keys", "-t", target, "-l", text]) }
    func sendKey(_ key: String) { run(["send-keys", "-t", target, key]) }
    /// Resizes the window, and waits until the pane's terminal has the new width: tmux applies
    /// it there (which sends SIGWINCH) a moment later, from a timer, and a key sent before would
    /// reach cardline ahead of the resize.
    func resize(columns: Int) {
        run(["resize-window", "-t", target, "-x", "\(columns)"])
        let tty = run(["display-message", "-p", "-t", target, "#{pane_tty}"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let fd = open(tty, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            Issue.record("cannot open the pane's terminal \(tty)")
            return
        }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(PseudoTerminal.timeout)
        var size = winsize()
        while ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && Int(size.ws_col) != columns {
            guard Date() < deadline else {
                Issue.record("the pane's terminal never became \(columns) columns wide (\(size.ws_col))")
                return
            }
            poll(nil, 0, 20)
        }
    }

    /// The pane's lines: the visible screen, or with `history` everything from the start of the
    /// history, or with `onlyHistory` just what scrolled off; with `joined`, lines that wrapped
    /// joined into one.
    func capture(history: Bool = false, onlyHistory: Bool = false, joined: Bool = false) -> [String] {
        var arguments = ["capture-pane", "-p", "-t", target]
        if history || onlyHistory { arguments += ["-S", "-"] }
        if onlyHistory { arguments += ["-E", "-1"] }
        if joined { arguments.append("-J") }
        let result = run(arguments)
        guard result.status == 0 else { return [] }
        return result.output.components(separatedBy: "\n")
    }

    /// Polls the pane (history included, lines joined when asked) until `condition` holds;
    /// the lines then, or nil at the deadline.
    func waitFor(_ what: String, history: Bool = true, joined: Bool = false, _ condition: ([String]) -> Bool)
        -> [String]?
    {
        let deadline = Date().addingTimeInterval(PseudoTerminal.timeout)
        var lines: [String] = []
        while Date() < deadline {
            lines = capture(history: history, joined: joined)
            if condition(lines) { return lines }
            poll(nil, 0, 20)  // between two looks at tmux's screen
        }
        let pane = lines.filter { !$0.isEmpty }.joined(separator: "\n")
        Issue.record("timed out waiting for \(what); pane:\n\(pane)")
        return nil
    }

    /// Waits until cardline has its terminal in raw mode (keys sent before could be lost).
    func waitForRawMode() throws {
        let tty = run(["display-message", "-p", "-t", target, "#{pane_tty}"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let fd = open(tty, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(.ENOTTY) }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(PseudoTerminal.timeout)
        var settings = termios()
        while tcgetattr(fd, &settings) == 0 && settings.c_lflag & tcflag_t(ICANON) != 0 {
            guard Date() < deadline else { throw POSIXError(.ETIMEDOUT) }
            poll(nil, 0, 20)
        }
    }
}

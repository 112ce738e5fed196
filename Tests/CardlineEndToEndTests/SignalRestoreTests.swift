import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every catchable signal whose default action ends the process leaves the terminal as it
/// found it (issue 20): cooked mode with echo, bracketed paste off, no card digit on the
/// screen; then the process dies of that signal. Flow control (Ctrl-S) is off while the
/// prompt runs, so XOFF cannot block a handler's write. SIGXFSZ is ignored by cardline, so a
/// file too large is a write error (exit 74), not death.
@Suite(.serialized) struct SignalRestoreTests {
    let home = TemporaryHome()

    /// One signal of each class the prompt used to die of without restoring the terminal:
    /// resource limits, timers, I/O, power, stack fault and the real-time ones.
    static let signals: [Int32] = [
        SIGXCPU, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT,
        __libc_current_sigrtmin(), __libc_current_sigrtmin() + 1,
        __libc_current_sigrtmax(),
    ]

    /// The number typed, one digit short so that it stays in the live field.
    static let typed = String(RefusedKeyTests.number.dropLast())

    func start(columns: Int = 140) throws -> PseudoTerminal { try .prompt(home: home, columns: columns) }

    @Test(arguments: signals)
    func aFatalSignalRestoresTheTerminalFirst(signal: Int32) throws {
        let t = try start()
        t.send(Self.typed)
        t.waitForScreen("15 digits") { $0.cursorLine.contains("4539 1488 0343 646") }
        kill(t.pid, signal)
        #expect(t.waitForExit() == 128 + signal, "died of signal \(signal)")
        let settings = t.currentSettings
        #expect(settings.c_lflag & tcflag_t(ICANON) != 0, "cooked again")
        #expect(settings.c_lflag & tcflag_t(ECHO) != 0, "echo on again")
        #expect(
            settings.c_iflag & tcflag_t(IXON) == t.initialSettings.c_iflag & tcflag_t(IXON), "flow control as it was")
        let raw = Array(t.rawSince(0))
        let on = Array("\u{1B}[?2004h".utf8)
        let off = Array("\u{1B}[?2004l".utf8)
        func last(_ needle: [UInt8]) -> Int? {
            guard raw.count >= needle.count else { return nil }
            return (0...(raw.count - needle.count)).last { raw[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
        #expect(last(on) != nil, "bracketed paste was on")
        #expect((last(off) ?? -1) > (last(on) ?? Int.max), "bracketed paste off at the end")
        let screen = t.screen
        #expect(!screen.bracketedPaste)
        #expect(
            !RefusedKeyTests.digitRuns(screen.lines.joined(separator: "\n")).contains {
                $0.contains(RefusedKeyTests.middle)
            },
            "\(screen.lines.filter { !$0.isEmpty })")
    }

    /// Ctrl-Z: before the handler clears the field and lets go of the terminal, the field is
    /// drawn masked, so a terminal that keeps what it showed holds no clear number.
    @Test func ctrlZDrawsTheFieldMaskedBeforeTheStop() throws {
        let t = try start()
        t.send(Self.typed)
        t.waitForScreen("15 digits") { KeySequenceTests.field($0.cursorLine) == "4539 1488 0343 646" }
        let mark = t.raw.count
        t.send("\u{1A}")
        let off = Array("\u{1B}[?2004l".utf8)
        let clear = Array("\u{1B}[J".utf8)
        func first(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
            guard bytes.count >= needle.count else { return nil }
            return (0...(bytes.count - needle.count)).first { bytes[$0...].starts(with: needle) }
        }
        _ = t.waitForScreen("the terminal let go") { _ in first(off, in: Array(t.rawSince(mark))) != nil }
        let tail = Array(t.rawSince(mark))
        let at = try #require(first(off, in: tail))
        // The screen just before the handler's clear (the last ESC [ J before paste goes off).
        let clearAt = try #require((0...at).last { tail[$0...].starts(with: clear) })
        var before = ScreenModel(columns: 140, rows: 40)
        before.feed(t.raw[..<(mark + clearAt)])
        let line = before.lines.last { $0.hasPrefix("Card number") } ?? ""
        #expect(KeySequenceTests.field(line) == "4539 14•• •••3 646", "masked before the stop: \(line)")
        #expect(!before.lines.contains(where: ScrollbackTests.holdsMiddle), "\(before.lines.filter { !$0.isEmpty })")
        #expect(
            t.waitForScreen("the field drawn again") { KeySequenceTests.field($0.cursorLine) == "4539 1488 0343 646" }
                != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// The process state letter in /proc/PID/stat (`T` stopped, `S` sleeping).
    static func state(of pid: pid_t) -> Substring? {
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?.split(
            separator: " "
        ).first
    }

    /// Issue 36: after `kill -STOP` (which no handler sees) and `fg`, the shell had put its own
    /// cooked mode with echo back, nothing put the prompt's back, and the rest of the number,
    /// the expiry and the code were echoed by the terminal into the scrollback. SIGCONT now puts
    /// the prompt's mode back and draws the line again; the card typed after it is whole.
    @Test func aCardTypedAfterStopAndContinueIsNeverEchoed() throws {
        let t = try start()
        t.send("45391488")
        t.waitForScreen("8 digits") { KeySequenceTests.field($0.cursorLine) == "4539 1488" }
        kill(t.pid, SIGSTOP)
        try #require(t.until("stopped") { Self.state(of: t.pid) == "T" })
        // What a shell does when its job stops: its own settings back (cooked, echo on).
        var cooked = t.initialSettings
        cooked.c_lflag |= tcflag_t(ECHO | ICANON)
        tcsetattr(t.master, TCSANOW, &cooked)
        let mark = t.raw.count
        kill(t.pid, SIGCONT)
        #expect(
            t.until("the prompt's mode back") { t.inRawMode && t.currentSettings.c_lflag & tcflag_t(ECHO) == 0 },
            "raw, no echo after SIGCONT")
        #expect(
            t.waitForScreen("the field drawn again") { KeySequenceTests.field($0.cursorLine) == "4539 1488" } != nil)
        t.send("0343646")
        #expect(t.waitForScreen("15 digits") { KeySequenceTests.field($0.cursorLine) == "4539 1488 0343 646" } != nil)
        // The terminal echoed nothing: the digits typed after the stop appear only grouped, in
        // the field cardline draws, never as the run a cooked terminal echoes.
        #expect(!PseudoTerminal.plain(Array(t.rawSince(mark))).contains("0343646"))
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// Issue 36: SIGTTIN and SIGTTOU (a background read or write) stopped the prompt with the
    /// field on screen and the terminal raw. Like Ctrl-Z, they clear the field and put the
    /// terminal back first, and the field comes back after the stop. (The test's prompt leads
    /// its own session, an orphaned process group, so the kernel drops the stop itself and the
    /// prompt goes on at once.)
    @Test(arguments: [SIGTTIN, SIGTTOU, SIGTSTP])
    func backgroundStopsClearTheFieldFirst(signal: Int32) throws {
        let t = try start()
        t.send(Self.typed)
        t.waitForScreen("15 digits") { KeySequenceTests.field($0.cursorLine) == "4539 1488 0343 646" }
        let mark = t.raw.count
        kill(t.pid, signal)
        let off = Array("\u{1B}[?2004l".utf8)
        let on = Array("\u{1B}[?2004h".utf8)
        #expect(
            t.until("the terminal let go and taken back") {
                let tail = Array(t.rawSince(mark))
                guard let at = (0...max(0, tail.count - off.count)).first(where: { tail[$0...].starts(with: off) })
                else { return false }
                return tail[at...].count > on.count
                    && (at...(tail.count - on.count)).contains { tail[$0...].starts(with: on) }
            })
        #expect(
            t.waitForScreen("the field drawn again") { KeySequenceTests.field($0.cursorLine) == "4539 1488 0343 646" }
                != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// The prompt ignores SIGXFSZ (cardline does, for `check` and `replay`): it goes on.
    @Test func sigxfszLeavesThePromptRunning() throws {
        let t = try start()
        t.send("4539")
        t.waitForScreen("4 digits") { KeySequenceTests.field($0.cursorLine) == "4539" }
        kill(t.pid, SIGXFSZ)
        t.send("1")
        #expect(t.waitForScreen("still typing") { KeySequenceTests.field($0.cursorLine) == "4539 1" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func flowControlIsOffWhileThePromptRunsAndRestoredAfter() throws {
        var initial = termios()
        let t = try start()
        initial = t.initialSettings
        #expect(initial.c_iflag & tcflag_t(IXON) != 0, "a terminal starts with flow control on")
        #expect(t.currentSettings.c_iflag & tcflag_t(IXON) == 0, "Ctrl-S cannot stop the prompt's output")
        // Ctrl-S is a key like any other: refused, and the prompt still draws.
        t.send("\u{13}")
        t.expect("Ctrl-S does nothing here")
        t.send("4")
        #expect(t.waitForScreen("4 typed after Ctrl-S") { KeySequenceTests.field($0.cursorLine) == "4" } != nil)
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
        #expect(t.currentSettings.c_iflag & tcflag_t(IXON) != 0, "flow control back on")
    }

    /// `ulimit -f 0; cardline check FILE > f`: the first write is too large, an error with a
    /// message and exit 74, not death by SIGXFSZ (153).
    @Test func aFileSizeLimitIsAWriteErrorNotDeath() throws {
        let input = home.path + "/cards.txt"
        try "4111111111111111\n".write(toFile: input, atomically: true, encoding: .utf8)
        let output = home.path + "/out.txt"
        try #require(FileManager.default.createFile(atPath: output, contents: nil))
        for format in ["json", "text"] {
            let run = try runWritingTo(
                .file(output), ["check", "--today", "2026-11", "--format", format, input], shell: "ulimit -f 0",
                environment: home.environment)
            #expect(run.status == 74, "\(format): \(run.errors)")
            #expect(run.errors == "cardline: error: cannot write to standard output: File too large\n")
        }
    }

    /// The threads the prompt starts besides its own (the chip reader's watcher, looked for
    /// after the first draw) block every signal that ends, stops or resumes the prompt, so the
    /// kernel hands those to the thread that drives the terminal. A SIGTERM right after a
    /// SIGCONT once went to the watcher, whose handler put the terminal back while the main
    /// thread put raw mode back: the terminal was left raw (pty-fuzz, seed 1949544955).
    @Test(.enabled(if: dlopen("libpcsclite.so.1", RTLD_LAZY) != nil, "the reader's thread needs libpcsclite"))
    func otherThreadsLeaveThePromptsSignalsToIt() throws {
        let t = try start()
        func others() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(t.pid)/task")) ?? []).filter {
                $0 != "\(t.pid)"
            }
        }
        /// Whether every other thread waits in the kernel (its mask is its own then: a thread
        /// glibc is still starting blocks every signal for a moment).
        func othersWait() -> Bool {
            let threads = others()
            return !threads.isEmpty
                && threads.allSatisfy {
                    let channel = try? String(contentsOfFile: "/proc/\(t.pid)/task/\($0)/wchan", encoding: .utf8)
                    return channel.map { !$0.isEmpty && $0 != "0" } ?? false
                }
        }
        // (libpcsclite is installed by `make test`: the watcher's thread starts.)
        try #require(ChipReaderTests.waitUntil(othersWait), "no thread besides the prompt's, or none waiting")
        for thread in others() {
            let status = try String(contentsOfFile: "/proc/\(t.pid)/task/\(thread)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
            let blocked = try #require(
                UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
            for signal in [
                SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGTSTP, SIGCONT, SIGWINCH, SIGABRT,
            ]
                + Self.signals
            {
                #expect(blocked & (1 << UInt64(signal - 1)) != 0, "thread \(thread) takes signal \(signal)")
            }
            #expect(blocked & (1 << UInt64(SIGSEGV - 1)) == 0, "a fault of its own still reaches the handler")
        }
        kill(t.pid, SIGTERM)
        #expect(t.waitForExit() == 128 + SIGTERM)
    }
}

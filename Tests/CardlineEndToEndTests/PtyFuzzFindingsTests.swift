import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the pty fuzzer (`Tests/PtyFuzz/ptyfuzz.py`, issue 36) found, made deterministic.
///
/// Every crash it found was the Swift runtime's backtracer: a Ctrl-\ typed (or a SIGQUIT sent)
/// while cardline runs without the prompt's handlers (starting up, before the prompt takes the
/// terminal; `check`), when the terminal is still in cooked mode with ISIG on, so the byte
/// raises SIGQUIT. The runtime's handler (SA_NODEFER, on cardline's alternate stack) prints
/// "Program crashed" with the registers and stack, then waits for a key ("Press space to
/// interact...", 30 s) with SIGTERM and SIGHUP blocked: random keys went to it, and a session
/// did not end on SIGTERM. A second SIGQUIT before it resets its handlers nests into it and waits
/// forever on its own lock; each further one nests 8 KiB deeper on the 64 KiB alternate stack
/// until the frames run past its end (`overflowed sigaltstack`, SIGSEGV).
///
/// `check` waiting for its input is the deterministic stand-in for the prompt's start-up: the
/// same process state (core dumps off, cardline's fault handlers, the runtime's SIGQUIT
/// handler, the terminal cooked with ISIG on), and a moment a test can wait for.
@Suite struct PtyFuzzFindingsTests {
    let home = TemporaryHome()

    /// `check` reading the terminal, with nothing left unread: it sleeps in read(2).
    func checkWaitingAtTheTerminal() throws -> PseudoTerminal {
        let t = try PseudoTerminal(arguments: ["check", "--today", "2026-11"], environment: home.environment)
        t.send("4111 1111 1111 1111 12/30 123\n")
        let waiting = t.until("check to read the card and wait for more") {
            let state = (try? String(contentsOfFile: "/proc/\(t.pid)/stat", encoding: .utf8))?.split(separator: ")")
                .last?.split(separator: " ").first
            return t.unreadInput == 0 && state == "S"
        }
        try #require(waiting)
        #expect(
            t.currentSettings.c_lflag & tcflag_t(ISIG) != 0,
            "the terminal raises signals from keys, as before the prompt starts")
        return t
    }

    /// Ctrl-\ typed before the prompt has the terminal ends cardline at once with SIGQUIT, the
    /// Swift runtime's backtracer never runs (no report of the registers and memory, no wait
    /// for a key) and the terminal is as it was. Before the fix the backtracer printed
    /// "Program crashed: Signal 3" and waited at "Press space to interact".
    @Test func ctrlBackslashBeforeThePromptEndsQuietly() throws {
        let t = try checkWaitingAtTheTerminal()
        let mark = t.raw.count
        t.send("\u{1C}")
        #expect(t.waitForExit() == 128 + SIGQUIT, "ended by SIGQUIT, at once")
        let after = String(decoding: t.rawSince(mark), as: UTF8.self)
        for report in ["Program crashed", "Backtrac", "Thread 0", "Press space"] {
            #expect(!after.contains(report), "no crash report: \(after.prefix(300))")
        }
        #expect(!after.contains("1111 1111"), "no card digits")
        #expect(t.currentSettings.c_lflag == t.initialSettings.c_lflag, "terminal settings as they were")
        #expect(after.contains("cardline: crashed (signal \(SIGQUIT))"), "one line says so: \(after.prefix(300))")
    }
}

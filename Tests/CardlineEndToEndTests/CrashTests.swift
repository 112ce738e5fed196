import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fault or abort in the middle of a card ends cardline with its signal, at once, with the
/// terminal put back and nothing about the process printed: the Swift runtime's backtracer,
/// which printed registers holding the card number, is replaced.
@Suite struct CrashTests {
    let home = TemporaryHome()

    @Test(arguments: [SIGABRT, SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGTRAP, SIGQUIT])
    func aCrashMidCardPrintsOneLineAndRestoresTheTerminal(signal: Int32) throws {
        let t = try PseudoTerminal.prompt(home: home)
        t.send("411111111111111")
        t.expectBadge("VISA 15/16")
        let mark = t.raw.count
        kill(t.pid, signal)
        #expect(t.waitForExit() == 128 + signal)
        let after = String(decoding: t.rawSince(mark), as: UTF8.self)
        #expect(!after.contains("41111111"), "no card digits after the crash: \(after)")
        #expect(
            !after.lowercased().contains("backtrac") && !after.contains("Crash") && !after.contains("Thread"),
            "no crash report: \(after)")
        #expect(after.contains("cardline: crashed (signal \(signal))"), "one line says so: \(after)")
        #expect(t.currentSettings.c_lflag == t.initialSettings.c_lflag, "terminal settings put back")
        #expect(!t.screen.bracketedPaste)
        #expect(!t.screen.lines.contains { $0.contains("4111 1111") }, "the live field is cleared")
    }

    /// Issue 36: SIGQUIT (Ctrl-\\ at a terminal, `kill -QUIT`) outside the prompt reached the
    /// Swift runtime's reporter, which printed every thread's registers and memory (the read
    /// buffer, whole card lines) and then let `check` carry on to exit 0.
    @Test(arguments: [
        (["check", "--today", "2026-11"], SIGABRT), (["check", "--today", "2026-11"], SIGSEGV),
        (["check", "--today", "2026-11"], SIGQUIT), (["check", "--format", "summary"], SIGQUIT),
    ])
    func aCrashWithOutputOnPipesEndsAtOnceWithOneLine(arguments: [String], signal: Int32) throws {
        // `check` holds card data too; its stdout and stderr are pipes, as in a script.
        let t = try PseudoTerminal(arguments: arguments, environment: home.environment, pipes: [1, 2])
        t.send("4111 1111 1111 1111 12/30 123\n")
        // The crash comes while check holds the card: it has read the line (the terminal's
        // input queue is empty: only check reads it) and sleeps waiting for the next. It
        // protects itself before it reads, so a signal now meets its handlers, not the Swift
        // runtime's backtracer (which printed registers and the memory they point at, and then
        // waited on the pipe). A signal sent any earlier could end it quietly whatever the
        // handlers did.
        let waiting = t.until("check to read the card and wait for more") {
            let state = (try? String(contentsOfFile: "/proc/\(t.pid)/stat", encoding: .utf8))?.split(separator: ")")
                .last?.split(separator: " ").first
            return t.unreadInput == 0 && state == "S"
        }
        try #require(waiting)
        kill(t.pid, signal)
        #expect(t.waitForExit() == 128 + signal, "ended by the signal, at once")
        #expect(t.pipedText(2) == "cardline: crashed (signal \(signal))\n", "one line on stderr: \(t.pipedText(2))")
        // What check had answered was in its buffer, not yet written: a crash writes none of it.
        #expect(t.pipedText(1).isEmpty, "nothing on stdout: \(t.pipedText(1))")
    }
}

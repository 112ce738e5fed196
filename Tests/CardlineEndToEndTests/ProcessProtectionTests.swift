import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ProcessProtection` seen from outside the running prompt: no core file can hold the card,
/// and no other process of the user can read its memory. The prompt is started from a shell
/// that allows core files of any size, in a folder where the kernel writes them, so that
/// only cardline's own protections stand between a crash and a core file.
@Suite struct ProcessProtectionTests {
    let home = TemporaryHome()

    /// The shell line that starts `program` in `home` with core files allowed.
    func allowingCores(_ program: String) -> [String] {
        ["-c", "cd \"$HOME\" && ulimit -c unlimited && " + program]
    }

    /// Core files written into `home`'s folder (named `core`, or `core.PID`).
    func coreFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home.path)) ?? []).filter { $0.hasPrefix("core") }
    }

    /// Whether a crash can write a core file into the crashing process's folder here: the
    /// kernel's `core_pattern` is a relative file name (not a pipe to a crash collector) and
    /// the core limit may be raised to unlimited. Otherwise the test below could not see a
    /// core, and would pass whatever cardline did.
    static let coresAreWritten: Bool = {
        let pattern = (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "|"
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        return !pattern.hasPrefix("|") && !pattern.hasPrefix("/") && limit.rlim_max == rlim_t.max
    }()

    @Test(.enabled(if: coresAreWritten, "core files are not written into the crashing process's folder here"))
    func aCrashMidCardLeavesNoCoreFile() throws {
        // The control: a shell killed the same way, in the same folder, does leave a core.
        let control = try PseudoTerminal(
            arguments: allowingCores("kill -ABRT $$"), environment: home.environment, binary: "/bin/sh")
        #expect(control.waitForExit() == 128 + SIGABRT)
        try #require(control.dumpedCore && !coreFiles().isEmpty, "a process without protection dumps core here")
        for name in coreFiles() { try FileManager.default.removeItem(atPath: home.path + "/" + name) }

        let t = try PseudoTerminal(
            arguments: allowingCores("exec \"$0\" --today 2026-11 --no-color --no-history") + [cardlineBinary],
            environment: home.environment, binary: "/bin/sh")
        t.waitForRawMode()
        t.send("411111111111111")
        t.expectBadge("VISA 15/16")
        // The limit the shell raised is 0 again, soft and hard (so nothing it starts can raise it).
        let limits = try String(contentsOfFile: "/proc/\(t.pid)/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(
            core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
        kill(t.pid, SIGABRT)
        #expect(t.waitForExit() == 128 + SIGABRT)
        #expect(!t.dumpedCore, "the kernel dumped core")
        #expect(coreFiles().isEmpty, "core files: \(coreFiles())")
    }

    /// The owner of a process's `/proc/PID/environ`: the process's user while it is dumpable;
    /// root once it is not (`PR_SET_DUMPABLE` 0), so that another process of the same user can
    /// neither read its memory nor attach to it.
    func procOwner(_ pid: pid_t) throws -> uid_t {
        var info = stat()
        try #require(stat("/proc/\(pid)/environ", &info) == 0)
        return info.st_uid
    }

    /// Run as an ordinary user (`nobody`), where being not dumpable shows: the prompt's /proc
    /// files belong to root, while the same user's ordinary program's belong to that user.
    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "starting a program as another user needs root and setpriv"))
    func thePromptIsNotDumpable() throws {
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        // The control: a shell of that user, reading its terminal.
        let control = try PseudoTerminal(
            arguments: nobody + ["/bin/sh", "-c", "echo ready; read line"], environment: home.environment,
            binary: "/usr/bin/setpriv")
        control.expect("ready")
        #expect(try procOwner(control.pid) == 65534, "an ordinary process's /proc files are its user's")
        control.send("\n")
        #expect(control.waitForExit() == 0)

        let t = try PseudoTerminal(
            arguments: nobody + [cardlineBinary, "--today", "2026-11", "--no-color", "--no-history"],
            environment: home.environment, binary: "/usr/bin/setpriv")
        t.waitForRawMode()
        t.send("411111111111111")
        t.expectBadge("VISA 15/16")
        #expect(try procOwner(t.pid) == 0, "the prompt's /proc files are root's: it is not dumpable")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

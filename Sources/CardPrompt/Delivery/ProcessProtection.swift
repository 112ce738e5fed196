import CEditLine

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps card data out of core dumps, swap and other processes' reach, as pinentry does:
/// no core file (`RLIMIT_CORE` 0), not dumpable (`PR_SET_DUMPABLE` 0: no core, no ptrace
/// attach or `/proc/PID/mem` for other users), and memory locked (`mlockall`) where the
/// system allows it without risk. A fault or abort ends the process with its signal and no
/// report, in place of the Swift runtime's backtracer (which prints registers and memory that
/// can hold card digits), after putting the terminal back when a prompt holds it.
///
/// Memory is locked only when locking cannot make later allocations fail: when the process
/// may lock without limit (`CAP_IPC_LOCK`, as root usually has) or `RLIMIT_MEMLOCK` is
/// unlimited. Otherwise nothing is locked (a limited lock would make allocations fail once
/// the limit is reached) and `memoryLocked` says so. Pages are locked as they are first
/// touched (`MCL_ONFAULT`), so start-up does not fault in every mapped library.
public enum ProcessProtection {
    /// What `apply()` managed to do.
    public struct Report: Equatable, Sendable {
        /// The core-size limit is 0 and the process is not dumpable.
        public var coreDumpsOff: Bool
        /// Current and future memory is locked in RAM (never written to swap).
        public var memoryLocked: Bool
        /// Why memory is not locked, when it is not.
        public var memoryNote: String?
    }

    /// Applies the protections to the whole process; with `lockingMemory` false, only turns
    /// core dumps off (locking costs a few milliseconds of start-up, spent only where card data
    /// is handled). Safe to call more than once.
    @discardableResult
    public static func apply(lockingMemory: Bool = true) -> Report {
        var report = Report(coreDumpsOff: cl_disable_core_dumps() == 0, memoryLocked: false, memoryNote: nil)
        // A crash ends the process quietly: the runtime's backtrace would show card digits.
        cl_fatal_signals_install()
        guard lockingMemory else {
            report.memoryNote = "not locked: not asked to"
            return report
        }
        let lockLimit = cl_memlock_limit()
        guard lockLimit < 0 || canLockWithoutLimit() else {
            report.memoryNote =
                "not locked: RLIMIT_MEMLOCK is \(lockLimit / 1024) KiB and the process lacks CAP_IPC_LOCK"
            return report
        }
        if cl_lock_memory() == 0 {
            report.memoryLocked = true
        } else {
            report.memoryNote = "not locked: mlockall failed: \(String(cString: strerror(errno)))"
        }
        return report
    }

    /// True when the effective capabilities include CAP_IPC_LOCK (bit 14), read from
    /// `/proc/self/status`.
    static func canLockWithoutLimit() -> Bool {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, 4096)
        guard count > 0 else { return false }
        // Read as bytes, not split into Strings: this runs at every start of the prompt, and
        // splitting the file cost a twentieth of the start-up work.
        let key = Array("CapEff:".utf8)
        var lineStart = 0
        while lineStart < count {
            var lineEnd = lineStart
            while lineEnd < count && buffer[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            if buffer[lineStart..<lineEnd].starts(with: key) {
                var at = lineStart + key.count
                while at < lineEnd && (buffer[at] == UInt8(ascii: "\t") || buffer[at] == UInt8(ascii: " ")) { at += 1 }
                // The rest of the line, all of it hexadecimal: the effective capability mask.
                guard let value = UInt64(String(decoding: buffer[at..<lineEnd], as: UTF8.self), radix: 16) else {
                    return false
                }
                return value & (1 << 14) != 0
            }
            lineStart = lineEnd + 1
        }
        return false
    }
}

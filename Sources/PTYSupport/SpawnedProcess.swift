// Starting a program with posix_spawn, its descriptors on files, pipes or a pty: the one
// place the end-to-end tests and `make bench` start one (`PseudoTerminal` starts its program
// here too).
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn`: its pid, and this process's ends of the pipes it was
/// given. Wait for it with `exitStatus(of: pid)` (or `waitpid`); close the pipe ends when done.
public struct SpawnedProcess {
    /// What one of the child's descriptors is, set up in the order given.
    public enum Descriptor {
        /// `/dev/null`, for reading (descriptor 0) or writing (any other).
        case null
        /// A file the child opens (`O_CREAT`: mode 0600).
        case open(String, flags: Int32)
        /// A copy (dup2) of a descriptor: this process's (one not close-on-exec in the
        /// child's copy is cleared by dup2), or one set up for the child before it.
        case copy(Int32)
        /// A pipe to this process: the child reads descriptor 0's and writes any other's;
        /// this process has the other end (`pipes`).
        case pipe
    }

    /// How the child's signals start.
    public enum Signals {
        /// As this process has them (dispositions reset only by exec; its mask).
        case inherited
        /// As from a shell: every signal at its default, only `blocking` blocked.
        case asFromAShell(blocking: [Int32] = [])
    }

    /// Where the child stands among sessions and process groups.
    public enum Group {
        /// In this process's.
        case inherited
        /// In a process group of its own (the group's id is its pid): a signal to the test's
        /// group never reaches it, and it can be killed with its own group.
        case ownGroup
        /// In a session of its own (so a terminal it opens becomes its controlling terminal).
        case ownSession
    }

    /// The child's pid.
    public let pid: pid_t
    /// This process's end of each `.pipe`, by the child's descriptor: the write end for
    /// descriptor 0, the read end for the others.
    public let pipes: [Int32: Int32]

    /// Starts `command` (the program's path, then its arguments) with `environment` and its descriptors as
    /// `descriptors` says, in that order. With `closingOthers`, no other descriptor from 3 to
    /// 255 reaches it (tests run in parallel, and a descriptor another test opened without
    /// close-on-exec must not leak into it). Throws the error posix_spawn gives.
    public init(
        _ command: [String], environment: [String], descriptors: [(Int32, Descriptor)], closingOthers: Bool = false,
        signals: Signals = .inherited, group: Group = .ownGroup
    ) throws {
        // One spawn at a time in this process: a pipe is made close-on-exec by a second call,
        // and a child spawned by another thread in between would inherit its ends (and keep
        // the pipe open, so that neither end ever sees it close).
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var mine: [Int32: Int32] = [:]
        var theirs: [Int32] = []
        defer { for fd in theirs { close(fd) } }
        func closeMine() { for fd in mine.values { close(fd) } }
        var copied: Set<Int32> = []
        for (target, descriptor) in descriptors {
            switch descriptor {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .open(let path, let flags):
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o600)
            case .copy(let source):
                copied.insert(source)
                posix_spawn_file_actions_adddup2(&actions, source, target)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                // Close-on-exec at once; no other spawn runs between the two calls (the lock
                // above), so no child started here inherits either end.
                guard pipe(&ends) == 0 else {
                    closeMine()
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE)
                }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (childs, parents) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                mine[target] = parents
                theirs.append(childs)
                copied.insert(childs)
                posix_spawn_file_actions_adddup2(&actions, childs, target)  // dup2 clears close-on-exec
            }
        }
        if closingOthers {
            // (glibc ignores closing a descriptor that is not open.) After the copies, so a
            // copy's source may be any descriptor.
            let targets = Set(descriptors.map(\.0))
            for fd in Int32(3)..<256 where !targets.contains(fd) { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags: Int32 = 0
        if case .asFromAShell(let blocking) = signals {
            var mask = sigset_t()
            sigemptyset(&mask)
            for signal in blocking { sigaddset(&mask, signal) }
            posix_spawnattr_setsigmask(&attributes, &mask)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigdefault(&attributes, &all)
            flags |= Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        }
        switch group {
        case .inherited: break
        case .ownGroup:
            posix_spawnattr_setpgroup(&attributes, 0)  // pgroup 0: the child's pid
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        case .ownSession:
            flags |= 0x80  // POSIX_SPAWN_SETSID (glibc)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = CStringArray(command)
        let envp = CStringArray(environment)
        var child: pid_t = 0
        let result = posix_spawn(&child, command[0], &actions, &attributes, argv.pointers, envp.pointers)
        guard result == 0 else {
            closeMine()
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        pid = child
        pipes = mine
    }

    /// Held from a spawn's first pipe to its `posix_spawn`.
    private static let spawning = NSLock()

    /// `environment` as `posix_spawn` takes it (`NAME=value`).
    public static func environment(_ environment: [String: String]) -> [String] {
        environment.map { "\($0.key)=\($0.value)" }
    }
}

// The end-to-end tests' side of the shared pty driver (the `PTYSupport` target, also used by
// `make bench`): a wait that times out is a recorded issue, `cardline` is the binary started
// unless a test names another, and the prompt most tests start is started in one place.
// Also the runs of the binary on pipes and files.
@_exported import PTYSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Set (to 1) by `make test-asan`: the binary under test was built with AddressSanitizer.
/// Only the checks an instrumented binary cannot meet as they are read it: the bounded-memory
/// test (ASan's shadow memory and quarantine raise resident memory) and the memory-locking
/// checks (ASan turns mlockall into a no-op that reports success).
let testingUnderASan = ProcessInfo.processInfo.environment["CARDLINE_TEST_ASAN"] == "1"

extension PseudoTerminal {
    /// `binary` (cardline unless said) with `arguments` on a pty of its own, in a session of
    /// its own; a wait that times out records an issue.
    convenience init(arguments: [String], environment: [String: String], binary: String = cardlineBinary, pipes: [Int32] = [],
                     columns: Int = 140, readOnlyInput: Bool = false) throws {
        try self.init(command: [binary] + arguments, environment: environment, pipes: pipes, columns: columns,
                      readOnlyInput: readOnlyInput, onFailure: { Issue.record(Comment(rawValue: $0)) })
    }

    /// cardline's prompt at a pty, in `home`'s environment, with `--today 2026-11 --no-color
    /// --no-history` and `extra`, once it has the terminal in raw mode (keys sent before that
    /// are lost).
    static func prompt(_ extra: [String] = [], home: TemporaryHome, pipes: [Int32] = [], columns: Int = 140,
                       readOnlyInput: Bool = false) throws -> PseudoTerminal {
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-color", "--no-history"] + extra, environment: home.environment,
                                   pipes: pipes, columns: columns, readOnlyInput: readOnlyInput)
        t.waitForRawMode()
        return t
    }
}

/// Runs the binary (or `executable`) with stdin, stdout and stderr as pipes; returns exit
/// status, stdout and stderr. A child still running after `timeout` seconds is killed and
/// reported as timed out (a history file that blocks must fail its test, not hang it). Both
/// outputs are read while the child runs, so a long output cannot block it.
func runPiped(_ arguments: [String], input: String, environment: [String: String], timeout: Double = 60,
              executable: String = cardlineBinary) throws
    -> (status: Int32, output: String, errors: String, timedOut: Bool) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    final class Collected: @unchecked Sendable { var output = Data(), errors = Data() }
    let collected = Collected()
    let readers = DispatchGroup()
    DispatchQueue.global().async(group: readers) { collected.output = stdout.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: readers) { collected.errors = stderr.fileHandleForReading.readDataToEndOfFile() }
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    // The outputs end when the child does: their end is the state waited on.
    let timedOut = readers.wait(timeout: .now() + timeout) == .timedOut
    if timedOut {
        Issue.record("\(executable) \(arguments.joined(separator: " ")) still ran after \(timeout) s; killed")
        kill(process.processIdentifier, SIGKILL)
        readers.wait()
    }
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: collected.output, as: UTF8.self),
            String(decoding: collected.errors, as: UTF8.self), timedOut)
}

/// Where `runWritingTo` puts the child's standard output.
enum OutputTarget {
    /// A file opened for writing, like `/dev/full` (every write: ENOSPC).
    case file(String)
    /// A pipe whose read end is closed before the child starts, as when `| head -1` has gone:
    /// every write gets EPIPE, and SIGPIPE unless the child ignores it.
    case closedPipe
}

/// Runs the binary with stdin from `input` (a file), stdout on `output` and stderr captured;
/// returns the exit status (128+N for signal N) and stderr. The child starts with every signal
/// at its default, as from a shell, so SIGPIPE kills it unless cardline itself ignores it.
/// With `shell`, the binary is started by `/bin/sh -c "SHELL; exec cardline ARGUMENTS"`, for
/// limits such as `ulimit -f 0`.
func runWritingTo(_ output: OutputTarget, _ arguments: [String], input: String = "/dev/null", shell: String? = nil,
                  environment: [String: String]) throws -> (status: Int32, errors: String) {
    var errorPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
    guard pipe(&errorPipe) == 0 else { throw POSIXError(.EMFILE) }
    errorPipe.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
    defer { close(errorPipe[0]) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
    switch output {
    case .file(let path):
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY, 0)
    case .closedPipe:
        guard pipe(&outputPipe) == 0 else { throw POSIXError(.EMFILE) }
        outputPipe.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        close(outputPipe[0])  // nobody will ever read it
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
    }
    posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
    // Nothing else reaches the child (tests run in parallel; see PseudoTerminal).
    for fd in Int32(3)..<256 { posix_spawn_file_actions_addclose(&actions, fd) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    // A process group of its own (pgroup 0: the child's pid), like every cardline a test starts.
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
    let program = shell == nil ? cardlineBinary : "/bin/sh"
    let argv = (shell.map { ["/bin/sh", "-c", $0 + "; exec \"$0\" \"$@\"", cardlineBinary] } ?? [cardlineBinary]) + arguments
    let cArguments = CStringArray(argv), envp = CStringArray(environment.map { "\($0.key)=\($0.value)" })
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, &attributes, cArguments.pointers, envp.pointers)
    close(errorPipe[1])
    if case .closedPipe = output { close(outputPipe[1]) }
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    let errors = readToEnd(errorPipe[0])
    return (exitStatus(of: pid), String(decoding: errors, as: UTF8.self))
}

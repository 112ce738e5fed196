import Foundation
// The end-to-end tests' side of the shared pty driver (the `PTYSupport` target, also used by
// `make bench`): a wait that times out is a recorded issue, `cardline` is the binary started
// unless a test names another, and the prompt most tests start is started in one place.
// Also the runs of the binary on pipes and files.
@_exported import PTYSupport
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
    convenience init(
        arguments: [String], environment: [String: String], binary: String = cardlineBinary, pipes: [Int32] = [],
        columns: Int = 140, readOnlyInput: Bool = false
    ) throws {
        try self.init(
            command: [binary] + arguments, environment: environment, pipes: pipes, columns: columns,
            readOnlyInput: readOnlyInput, onFailure: { Issue.record(Comment(rawValue: $0)) })
    }

    /// cardline's prompt at a pty, in `home`'s environment, with `--today 2026-11 --no-color
    /// --no-history` and `extra`, once it has the terminal in raw mode (keys sent before that
    /// are lost).
    static func prompt(
        _ extra: [String] = [], home: TemporaryHome, pipes: [Int32] = [], columns: Int = 140,
        readOnlyInput: Bool = false
    ) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--no-history"] + extra, environment: home.environment,
            pipes: pipes, columns: columns, readOnlyInput: readOnlyInput)
        t.waitForRawMode()
        return t
    }
}

/// Runs the binary (or `executable`) with stdin, stdout and stderr as pipes; returns exit
/// status, stdout and stderr. A child still running after `timeout` seconds is killed and
/// reported as timed out (a history file that blocks must fail its test, not hang it). Both
/// outputs are read while the child runs, so a long output cannot block it.
func runPiped(
    _ arguments: [String], input: String, environment: [String: String], timeout: Double = 60,
    executable: String = cardlineBinary
) throws
    -> (status: Int32, output: String, errors: String, timedOut: Bool)
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    final class Collected: @unchecked Sendable { var output = Data(), errors = Data() }
    let collected = Collected()
    let readers = DispatchGroup()
    DispatchQueue.global().async(group: readers) {
        collected.output = stdout.fileHandleForReading.readDataToEndOfFile()
    }
    DispatchQueue.global().async(group: readers) {
        collected.errors = stderr.fileHandleForReading.readDataToEndOfFile()
    }
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
    return (
        process.terminationStatus, String(decoding: collected.output, as: UTF8.self),
        String(decoding: collected.errors, as: UTF8.self), timedOut
    )
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
func runWritingTo(
    _ output: OutputTarget, _ arguments: [String], input: String = "/dev/null", shell: String? = nil,
    environment: [String: String]
) throws -> (status: Int32, errors: String) {
    let standardOutput: SpawnedProcess.Descriptor
    var closedPipe: Int32 = -1
    switch output {
    case .file(let path):
        standardOutput = .open(path, flags: O_WRONLY)
    case .closedPipe:
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        close(ends[0])  // nobody will ever read it
        closedPipe = ends[1]
        standardOutput = .copy(closedPipe)
    }
    defer { if closedPipe >= 0 { close(closedPipe) } }
    let program = shell == nil ? [cardlineBinary] : ["/bin/sh", "-c", shell! + "; exec \"$0\" \"$@\"", cardlineBinary]
    // Every signal at its default, in a process group of its own like every cardline a test
    // starts, and nothing else reaches the child (tests run in parallel; see PseudoTerminal).
    let child = try SpawnedProcess(
        program + arguments, environment: SpawnedProcess.environment(environment),
        descriptors: [(0, .open(input, flags: O_RDONLY)), (1, standardOutput), (2, .pipe)],
        closingOthers: true, signals: .asFromAShell())
    if closedPipe >= 0 {
        close(closedPipe)
        closedPipe = -1
    }
    let errorPipe = child.pipes[2]!
    let pid = child.pid
    defer { close(errorPipe) }
    let errors = readToEnd(errorPipe)
    return (exitStatus(of: pid), String(decoding: errors, as: UTF8.self))
}

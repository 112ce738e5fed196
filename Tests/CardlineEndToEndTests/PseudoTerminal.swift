import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `cardline` binary, beside the test bundle in the build folder.
let cardlineBinary = builtBinary("cardline")

/// A binary of this package, beside the test bundle in the build folder.
func builtBinary(_ name: String) -> String {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (me as NSString).deletingLastPathComponent + "/" + name
}

/// `ASAN_OPTIONS`, `LSAN_OPTIONS` and `UBSAN_OPTIONS` from the test process's environment,
/// those that are set: `make test-asan` sets them (the LeakSanitizer suppression file
/// `Tests/asan/lsan.supp`, among others), and they must reach every `cardline` a test starts.
/// They change only how a sanitizer reports, never what cardline reads or does; an ordinary
/// build ignores them.
let sanitizerOptions: [String: String] = ProcessInfo.processInfo.environment.filter {
    ["ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"].contains($0.key)
}

/// Set (to 1) by `make test-asan`: the binary under test was built with AddressSanitizer.
/// Only the checks an instrumented binary cannot meet as they are read it: the bounded-memory
/// test (ASan's shadow memory and quarantine raise resident memory) and the memory-locking
/// checks (ASan turns mlockall into a no-op that reports success).
let testingUnderASan = ProcessInfo.processInfo.environment["CARDLINE_TEST_ASAN"] == "1"

/// A temporary HOME with XDG folders, removed when the value is dropped.
final class TemporaryHome {
    let path: String
    init() {
        // The UUID's decimal digits spelled as letters (0 → g … 9 → p): a path with a run of
        // eight digits would be masked, like a card number, where cardline prints it.
        let name = UUID().uuidString.unicodeScalars.map { $0.properties.numericType != nil ? Character(Unicode.Scalar($0.value + 55)!) : Character($0) }
        path = NSTemporaryDirectory() + "cardline-test-" + String(name)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A child's whole environment: nothing is inherited from the test process, so the
    /// user's `CARDLINE_RULES`, `CARDLINE_NETWORKS` and rule folders never reach it (`make test`
    /// runs with hostile ones). Its personal rule folder is `config/cardline/rules` below `path`.
    /// The one exception is the sanitizers' options (`sanitizerOptions`), passed through so that
    /// `make test-asan`'s leak suppressions reach the binary under test.
    var environment: [String: String] {
        ["HOME": path, "XDG_STATE_HOME": path + "/state", "XDG_CONFIG_HOME": path + "/config",
         "TERM": "xterm", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
            .merging(sanitizerOptions) { $1 }
    }

    /// Every regular file below the folder, with its contents.
    func files() -> [(path: String, contents: Data)] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var result: [(String, Data)] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = path + "/" + name
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append((full, FileManager.default.contents(atPath: full) ?? Data()))
            }
        }
        return result
    }
}

/// The real binary on a pseudo-terminal. Every wait is on the terminal's state or on output
/// text, with a deadline; nothing waits a fixed time.
final class PseudoTerminal {
    let master: Int32
    private let slave: Int32
    let pid: pid_t
    /// Terminal settings before the program started.
    let initialSettings: termios
    /// Everything the program wrote, raw.
    private(set) var raw: [UInt8] = []
    /// Where the next `expect` starts looking, in `text`.
    private var searchFrom: String.Index?
    private(set) var exitStatus: Int32?
    static let timeout: Double = 15
    /// Read ends of the pipes the child's descriptors were given (`pipes`), by child descriptor.
    private var pipeReaders: [Int32: Int32] = [:]
    /// What the child wrote to each piped descriptor.
    private(set) var piped: [Int32: [UInt8]] = [:]

    /// Starts `binary` with the pty as its controlling terminal and as descriptors 0, 1 and 2,
    /// except the descriptors in `pipes`, which are the write ends of pipes read by the test
    /// (`[1]`: stdout captured, as in `card=$(cardline --print)`; `[3]`: a `--print-fd 3`).
    init(arguments: [String], environment: [String: String], binary: String = cardlineBinary, pipes: [Int32] = [],
         columns: Int = 140, readOnlyInput: Bool = false) throws {
        var m: Int32 = -1, s: Int32 = -1
        var size = winsize(ws_row: 40, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        resizes = [(0, columns)]
        guard openpty(&m, &s, nil, nil, &size) == 0 else { throw POSIXError(.EIO) }
        master = m
        slave = s
        _ = fcntl(m, F_SETFD, FD_CLOEXEC)
        _ = fcntl(s, F_SETFD, FD_CLOEXEC)
        var settings = termios()
        tcgetattr(m, &settings)
        initialSettings = settings
        var name = [CChar](repeating: 0, count: 256)
        guard ttyname_r(s, &name, name.count) == 0 else { throw POSIXError(.ENOTTY) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child starts a session (below), then opens the pty by name: it becomes the
        // controlling terminal, so Ctrl-C raises SIGINT in the child as at a real terminal.
        // With `readOnlyInput`, descriptor 0 is opened for reading only and 1 for writing
        // only, as `cardline </dev/tty` at a terminal gives it.
        posix_spawn_file_actions_addopen(&actions, 0, name, readOnlyInput ? O_RDONLY : O_RDWR, 0)
        if readOnlyInput {
            posix_spawn_file_actions_addopen(&actions, 1, name, O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
        }
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var writeEnds: [Int32] = []
        defer { writeEnds.forEach { close($0) } }
        for target in pipes {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
            pipeReaders[target] = ends[0]
            piped[target] = []
            writeEnds.append(ends[1])
        }
        // Nothing else reaches the child: tests run in parallel, and a descriptor another test
        // opened without close-on-exec (Foundation's Pipe) must not look like a --print-fd.
        // (glibc ignores closing a descriptor that is not open.)
        for fd in Int32(3)..<256 where !writeEnds.contains(fd) { posix_spawn_file_actions_addclose(&actions, fd) }
        for (target, writeEnd) in zip(pipes, writeEnds) {
            posix_spawn_file_actions_adddup2(&actions, writeEnd, target)  // dup2 clears close-on-exec
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))

        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, binary, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        pid = child
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
        close(slave)
        pipeReaders.values.forEach { close($0) }
    }

    /// Where in `raw` the terminal changed width, and to what.
    private var resizes: [(offset: Int, columns: Int)] = []

    /// The screen model fed up to `modelOffset` of `raw`, and the resizes applied to it.
    private var model: ScreenModel?
    private var modelOffset = 0
    private var resizesApplied = 1

    /// The screen as a terminal would show it after everything received so far (fed only the
    /// bytes that arrived since the last look).
    var screen: ScreenModel {
        var current = model ?? ScreenModel(columns: resizes[0].columns, rows: 40)
        while resizesApplied < resizes.count {
            let (offset, columns) = resizes[resizesApplied]
            current.feed(raw[modelOffset..<offset])
            current.resize(columns: columns)
            modelOffset = offset
            resizesApplied += 1
        }
        current.feed(raw[modelOffset...])
        modelOffset = raw.count
        model = current
        return current
    }

    /// Makes the terminal `columns` wide: the kernel sends SIGWINCH to the child.
    func resize(columns: Int) {
        while pump(milliseconds: 0) {}
        var size = winsize(ws_row: 40, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        resizes.append((raw.count, columns))
    }

    /// Waits until the screen satisfies `condition`; the screen then, or nil on timeout.
    @discardableResult
    func waitForScreen(_ what: String, _ condition: (ScreenModel) -> Bool) -> ScreenModel? {
        var last: ScreenModel?
        let ok = until(what) {
            last = screen
            return condition(last!)
        }
        if !ok, let last { Issue.record(Comment(rawValue: "screen:\n" + last.lines.joined(separator: "\n"))) }
        return ok ? last : nil
    }

    /// Output so far with escape sequences, bells and carriage returns removed.
    var text: String { Self.plain(raw) }

    static func plain(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                i += 1
                if i < bytes.count && bytes[i] == UInt8(ascii: "[") {
                    i += 1
                    while i < bytes.count && !(0x40...0x7E).contains(bytes[i]) { i += 1 }
                }
                i += 1
                continue
            }
            if b != 0x07 && b != UInt8(ascii: "\r") { out.append(b) }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    func send(_ keys: String) { send(bytes: Array(keys.utf8)) }

    /// Writes bytes as the terminal would send them (any bytes, UTF-8 or not), in one write.
    func send(bytes: [UInt8]) {
        var bytes = bytes
        _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress!, $0.count) }
    }

    /// Reads what is available on the pty and the pipes, waiting at most `milliseconds` for
    /// something to arrive; true when something was read.
    @discardableResult
    private func pump(milliseconds: Int32) -> Bool {
        let readers = pipeReaders.sorted { $0.key < $1.key }
        var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
            + readers.map { pollfd(fd: $0.value, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 8192)
        var any = false
        for (index, entry) in fds.enumerated() where entry.revents != 0 {
            let count = read(entry.fd, &buffer, buffer.count)
            guard count > 0 else {
                // End of a pipe: stop polling it.
                if index > 0 { close(entry.fd); pipeReaders[readers[index - 1].key] = nil }
                continue
            }
            any = true
            if index == 0 { raw += buffer[0..<count] } else { piped[readers[index - 1].key, default: []] += buffer[0..<count] }
        }
        return any
    }

    /// Waits until the child's piped descriptor `fd` has received `needle`.
    @discardableResult
    func waitForPiped(_ fd: Int32, containing needle: String) -> Bool {
        until("\"\(needle)\" on descriptor \(fd)") { pipedText(fd).contains(needle) }
    }

    /// Closes the test's end of the pipe on the child's descriptor `fd`: nobody reads it any more.
    func closeReader(_ fd: Int32) {
        if let reader = pipeReaders.removeValue(forKey: fd) { close(reader) }
    }

    /// Everything written to the child's piped descriptor `fd`, as text (after `waitForExit`,
    /// all of it).
    func pipedText(_ fd: Int32) -> String { String(decoding: piped[fd] ?? [], as: UTF8.self) }

    /// Waits until a line of the child's `/proc/PID/status` satisfies `condition` (the
    /// child's state, polled while its output is read); the line, or nil on timeout.
    @discardableResult
    func waitForStatusLine(_ what: String, _ condition: (Substring) -> Bool) -> Substring? {
        var found: Substring?
        _ = until(what) {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            found = status.split(separator: "\n").first(where: condition)
            return found != nil
        }
        return found
    }

    private func until(_ what: String, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Self.timeout)
        while !condition() {
            if Date() > deadline {
                Issue.record("timed out waiting for \(what); screen so far:\n\(text.suffix(1500))")
                return false
            }
            pump(milliseconds: 50)
        }
        return true
    }

    /// Waits until libedit has put the terminal in raw mode: keys sent before are lost.
    @discardableResult
    func waitForRawMode() -> Bool {
        until("raw mode (ICANON off)") {
            var settings = termios()
            tcgetattr(master, &settings)
            return settings.c_lflag & tcflag_t(ICANON) == 0
        }
    }

    /// Waits for `needle` to appear after the previous match, and moves past it.
    @discardableResult
    func expect(_ needle: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var found: Range<String.Index>?
        let ok = until("\"\(needle)\"") {
            let all = text
            let start = searchFrom.flatMap { $0 <= all.endIndex ? $0 : nil } ?? all.startIndex
            found = all.range(of: needle, range: start..<all.endIndex)
            return found != nil
        }
        if let found { searchFrom = found.upperBound }
        return ok
    }

    /// Presses Ctrl-L (libedit clears the screen and draws prompt, line and right prompt in
    /// full) and returns what was drawn, once `badge` (drawn last) has appeared.
    func redraw(expectingBadge badge: String) -> String {
        let mark = raw.count
        send("\u{0C}")
        var drawn = ""
        let clear = Array("\u{1B}[2J".utf8)
        _ = until("a redraw with badge \"\(badge)\"") {
            // What was drawn after the last clear-screen sequence.
            let tail = Array(raw[mark...])
            guard let start = (0...max(0, tail.count - clear.count)).last(where: { tail[$0...].starts(with: clear) }) else { return false }
            drawn = Self.plain(Array(tail[(start + clear.count)...]))
            return drawn.contains(badge)
        }
        searchFrom = text.endIndex
        return drawn
    }

    /// Raw bytes written since `mark` (a value of `raw.count` taken earlier).
    func rawSince(_ mark: Int) -> ArraySlice<UInt8> { raw[mark...] }

    /// Waits for the program to end and returns its exit status (128+N for signal N).
    @discardableResult
    func waitForExit() -> Int32? {
        _ = until("the program to exit") {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            return exitStatus != nil
        }
        while pump(milliseconds: 0) {}
        // The pipes' write ends are gone with the child: read them to their end.
        let drainBy = Date().addingTimeInterval(Self.timeout)
        while !pipeReaders.isEmpty && Date() < drainBy { pump(milliseconds: 50) }
        if !pipeReaders.isEmpty { Issue.record("a pipe of the child stayed open after it exited") }
        return exitStatus
    }

    var currentSettings: termios {
        var settings = termios()
        tcgetattr(master, &settings)
        return settings
    }
}

/// Runs the binary with stdin, stdout and stderr as pipes; returns exit status, stdout and
/// stderr. A child still running after `timeout` seconds is killed and reported as timed out
/// (a history file that blocks must fail its test, not hang it). Both outputs are read while
/// the child runs, so a long output cannot block it.
func runPiped(_ arguments: [String], input: String, environment: [String: String], timeout: Double = 60) throws
    -> (status: Int32, output: String, errors: String, timedOut: Bool) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: cardlineBinary)
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
        Issue.record("cardline \(arguments.joined(separator: " ")) still ran after \(timeout) s; killed")
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
    let cArguments = argv.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (cArguments + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, &attributes, cArguments, envp)
    close(errorPipe[1])
    if case .closedPipe = output { close(outputPipe[1]) }
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    var errors: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(errorPipe[0], &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        errors += buffer[0..<count]
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, String(decoding: errors, as: UTF8.self))
}

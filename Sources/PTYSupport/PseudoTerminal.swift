// The pseudo-terminal driver shared by the end-to-end tests and `make bench`: the one place a
// program is started on a pty (openpty, then posix_spawn in a session of its own), read,
// typed at and waited on. It does not import Testing: a wait that times out is handed to the
// `onFailure` the caller gives (the tests record an issue, the bench stops).
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The built `cardline` binary, beside the running program (the test bundle or the bench) in
/// the build folder.
public let cardlineBinary = builtBinary("cardline")

/// A binary of this package, beside the running program in the build folder.
public func builtBinary(_ name: String) -> String {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return (me as NSString).deletingLastPathComponent + "/" + name
}

/// `ASAN_OPTIONS`, `LSAN_OPTIONS` and `UBSAN_OPTIONS` from this process's environment, those
/// that are set: `make test-asan` sets them (the LeakSanitizer suppression file
/// `Tests/asan/lsan.supp`, among others), and they must reach every `cardline` a test starts.
/// They change only how a sanitizer reports, never what cardline reads or does; an ordinary
/// build ignores them.
public let sanitizerOptions: [String: String] = ProcessInfo.processInfo.environment.filter {
    ["ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"].contains($0.key)
}

/// Seconds on the monotonic clock.
public func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Everything `fd` gives until its end (EINTR retried): a child's output pipe.
public func readToEnd(_ fd: Int32) -> [UInt8] {
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return output }
        output += buffer[0..<count]
    }
}

/// Waits for child `pid` (EINTR retried): its exit status, or 128 + the signal that ended it.
public func exitStatus(of pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
}

/// The child's own peak resident memory so far (VmHWM, KiB). Unlike wait4's ru_maxrss it does
/// not include this (large) process's memory, which a spawned child shares until it execs.
public func peakResidentKiB(_ pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
}

/// Strings as the NUL-terminated C array `execve` and `posix_spawn` take (`argv`, `envp`),
/// freed when the value is dropped.
public final class CStringArray {
    // unsafe: posix_spawn takes argv and envp as arrays of C string pointers; strdup'd here, freed in deinit.
    public let pointers: [UnsafeMutablePointer<CChar>?]
    public init(_ strings: [String]) { pointers = strings.map { strdup($0) } + [nil] }
    deinit { for pointer in pointers { free(pointer) } }
}

/// A temporary HOME with XDG folders, removed when the value is dropped.
public final class TemporaryHome {
    public let path: String
    public init() {
        // The UUID's decimal digits spelled as letters (0 → g … 9 → p): a path with a run of
        // eight digits would be masked, like a card number, where cardline prints it.
        let name = UUID().uuidString.unicodeScalars.map {
            $0.properties.numericType != nil ? Character(Unicode.Scalar($0.value + 55)!) : Character($0)
        }
        path = NSTemporaryDirectory() + "cardline-test-" + String(name)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A child's whole environment: nothing is inherited from this process, so the user's
    /// `CARDLINE_RULES`, `CARDLINE_NETWORKS` and rule folders never reach it (`make test` runs
    /// with hostile ones). Its personal rule folder is `config/cardline/rules` below `path`.
    /// The one exception is the sanitizers' options (`sanitizerOptions`), passed through so that
    /// `make test-asan`'s leak suppressions reach the binary under test. pcsc-lite's socket is
    /// one no pcscd listens on.
    public var environment: [String: String] {
        [
            "HOME": path, "XDG_STATE_HOME": path + "/state", "XDG_CONFIG_HOME": path + "/config",
            "TERM": "xterm", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            // pcsc-lite's client socket, where no pcscd listens: the prompt finds no chip reader
            // and never reaches the machine's own pcscd (the chip tests start one of their own).
            "PCSCLITE_CSOCK_NAME": path + "/no-pcscd.comm",
        ]
        .merging(sanitizerOptions) { $1 }
    }

    /// `environment` with `changes` applied; a nil value removes the variable.
    public func environment(changing changes: [String: String?]) -> [String: String] {
        var environment = self.environment
        for (name, value) in changes { environment[name] = value }
        return environment
    }

    /// Every regular file below the folder, with its contents.
    public func files() -> [(path: String, contents: Data)] {
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

/// A program on a pseudo-terminal, as a person runs it. Every wait is on the terminal's state
/// or on output text, with a deadline; nothing waits a fixed time.
public final class PseudoTerminal {
    public let master: Int32
    private let slave: Int32
    public let pid: pid_t
    /// Terminal settings before the program started.
    public let initialSettings: termios
    /// The monotonic time (`monotonicSeconds()`) just before the program was spawned.
    public let spawnedAt: Double
    /// Everything the program wrote, raw.
    public private(set) var raw: [UInt8] = []
    /// Where the next `expect` starts looking, in `text`.
    private var searchFrom: String.Index?
    /// The exit status once the program has ended (128+N for signal N).
    public private(set) var exitStatus: Int32?
    /// Whether the signal that ended the program left a core dump (the wait status says so).
    public private(set) var dumpedCore = false
    /// How long a wait lasts before it fails, unless the wait is given its own.
    public static let timeout: Double = 15
    /// What a wait that timed out calls, with what it waited for and what was on the screen.
    private let onFailure: (String) -> Void
    /// Read ends of the pipes the child's descriptors were given (`pipes`), by child descriptor.
    private var pipeReaders: [Int32: Int32] = [:]
    /// What the child wrote to each piped descriptor.
    public private(set) var piped: [Int32: [UInt8]] = [:]

    /// Starts `command` (the program's path, then its arguments) in a session of its own, with
    /// the pty as its controlling terminal and as descriptors 0, 1 and 2, except the
    /// descriptors in `pipes`, which are the write ends of pipes read here (`[1]`: stdout
    /// captured, as in `card=$(cardline --print)`; `[3]`: a `--print-fd 3`). Every signal
    /// starts at its default and unblocked, as from a shell. No other descriptor reaches it.
    /// `onFailure` is called when a wait times out.
    public init(
        command: [String], environment: [String: String], pipes: [Int32] = [], columns: Int = 140, rows: Int = 40,
        readOnlyInput: Bool = false, onFailure: @escaping (String) -> Void
    ) throws {
        self.onFailure = onFailure
        var m: Int32 = -1
        var s: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        resizes = [(0, columns)]
        self.rows = rows
        guard openpty(&m, &s, nil, nil, &size) == 0 else { throw POSIXError(.EIO) }
        master = m
        slave = s
        _ = fcntl(m, F_SETFD, FD_CLOEXEC)
        _ = fcntl(s, F_SETFD, FD_CLOEXEC)
        var settings = termios()
        tcgetattr(m, &settings)
        initialSettings = settings
        var name = [CChar](repeating: 0, count: 256)
        guard ttyname_r(s, &name, name.count) == 0 else {
            close(m)
            close(s)
            throw POSIXError(.ENOTTY)
        }

        // The child starts a session (`.ownSession`), then opens the pty by name: it becomes
        // the controlling terminal, so Ctrl-C raises SIGINT in the child as at a real terminal.
        // With `readOnlyInput`, descriptor 0 is opened for reading only and 1 for writing
        // only, as `cardline </dev/tty` at a terminal gives it. Nothing else reaches the child
        // (`closingOthers`): tests run in parallel, and a descriptor another test opened
        // without close-on-exec (Foundation's Pipe) must not look like a --print-fd.
        let terminal = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let descriptors: [(Int32, SpawnedProcess.Descriptor)] =
            [
                (0, .open(terminal, flags: readOnlyInput ? O_RDONLY : O_RDWR)),
                (1, readOnlyInput ? .open(terminal, flags: O_WRONLY) : .copy(0)),
                (2, .copy(1)),
            ] + pipes.map { ($0, .pipe) }
        spawnedAt = monotonicSeconds()
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(
                command, environment: SpawnedProcess.environment(environment), descriptors: descriptors,
                closingOthers: true, signals: .asFromAShell(), group: .ownSession)
        } catch {
            close(m)
            close(s)
            throw error
        }
        for target in pipes {
            pipeReaders[target] = child.pipes[target]
            piped[target] = []
        }
        pid = child.pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
        close(slave)
        for fd in pipeReaders.values { close(fd) }
    }

    /// The terminal's height.
    private let rows: Int
    /// Where in `raw` the terminal changed width, and to what.
    private var resizes: [(offset: Int, columns: Int)] = []

    /// The screen model fed up to `modelOffset` of `raw`, and the resizes applied to it.
    private var model: ScreenModel?
    private var modelOffset = 0
    private var resizesApplied = 1

    /// The screen as a terminal would show it after everything received so far (fed only the
    /// bytes that arrived since the last look).
    public var screen: ScreenModel {
        var current = model ?? ScreenModel(columns: resizes[0].columns, rows: rows)
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
    public func resize(columns: Int) {
        while pump(milliseconds: 0) {}
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        resizes.append((raw.count, columns))
    }

    /// Waits until the screen satisfies `condition`; the screen then, or nil on timeout.
    @discardableResult
    public func waitForScreen(_ what: String, _ condition: (ScreenModel) -> Bool) -> ScreenModel? {
        var last: ScreenModel?
        let ok = until(what) {
            last = screen
            return condition(last!)
        }
        if !ok, let last { onFailure("screen:\n" + last.lines.joined(separator: "\n")) }
        return ok ? last : nil
    }

    /// Output so far with escape sequences, bells and carriage returns removed.
    public var text: String { Self.plain(raw) }

    public static func plain(_ bytes: [UInt8]) -> String {
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

    public func send(_ keys: String) { send(bytes: Array(keys.utf8)) }

    /// Writes bytes as the terminal would send them (any bytes, UTF-8 or not), in one write.
    public func send(bytes: [UInt8]) {
        _ = write(master, bytes, bytes.count)
    }

    /// Reads what is available on the pty and the pipes, waiting at most `milliseconds` for
    /// something to arrive; true when something was read.
    @discardableResult
    public func pump(milliseconds: Int32) -> Bool {
        let readers = pipeReaders.sorted { $0.key < $1.key }
        var fds =
            [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
            + readers.map { pollfd(fd: $0.value, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var any = false
        for (index, entry) in fds.enumerated() where entry.revents != 0 {
            let count = read(entry.fd, &buffer, buffer.count)
            guard count > 0 else {
                // End of a pipe: stop polling it.
                if index > 0 {
                    close(entry.fd)
                    pipeReaders[readers[index - 1].key] = nil
                }
                continue
            }
            any = true
            if index == 0 {
                raw += buffer[0..<count]
            } else {
                piped[readers[index - 1].key, default: []] += buffer[0..<count]
            }
        }
        return any
    }

    /// Reads until the program has written nothing for `milliseconds`; what arrived.
    @discardableResult
    public func readUntilQuiet(_ milliseconds: Int32) -> ArraySlice<UInt8> {
        let mark = raw.count
        while pump(milliseconds: milliseconds) {}
        return raw[mark...]
    }

    /// Waits until the child's piped descriptor `fd` has received `needle`.
    @discardableResult
    public func waitForPiped(_ fd: Int32, containing needle: String) -> Bool {
        until("\"\(needle)\" on descriptor \(fd)") { pipedText(fd).contains(needle) }
    }

    /// Closes this end of the pipe on the child's descriptor `fd`: nobody reads it any more.
    public func closeReader(_ fd: Int32) {
        if let reader = pipeReaders.removeValue(forKey: fd) { close(reader) }
    }

    /// Everything written to the child's piped descriptor `fd`, as text (after `waitForExit`,
    /// all of it).
    public func pipedText(_ fd: Int32) -> String { String(decoding: piped[fd] ?? [], as: UTF8.self) }

    /// Waits until a line of the child's `/proc/PID/status` satisfies `condition` (the
    /// child's state, polled while its output is read); the line, or nil on timeout.
    @discardableResult
    public func waitForStatusLine(_ what: String, _ condition: (Substring) -> Bool) -> Substring? {
        var found: Substring?
        _ = until(what) {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            found = status.split(separator: "\n").first(where: condition)
            return found != nil
        }
        return found
    }

    /// Reads output until `condition` holds or `seconds` have passed (then `onFailure`); whether
    /// it held.
    @discardableResult
    public func until(_ what: String, seconds: Double = PseudoTerminal.timeout, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline {
                onFailure("timed out waiting for \(what); screen so far:\n\(text.suffix(1500))")
                return false
            }
            pump(milliseconds: 50)
        }
        return true
    }

    /// Bytes typed (sent to the pty) that the program has not read yet: the terminal's input
    /// queue. 0 once the program has read everything sent.
    public var unreadInput: Int {
        var count: Int32 = 0
        guard ioctl(slave, UInt(FIONREAD), &count) == 0 else { return -1 }
        return Int(count)
    }

    /// Whether the program has the terminal in raw mode (ICANON off), as libedit sets it.
    public var inRawMode: Bool { currentSettings.c_lflag & tcflag_t(ICANON) == 0 }

    /// Waits until libedit has put the terminal in raw mode: keys sent before are lost.
    @discardableResult
    public func waitForRawMode(seconds: Double = PseudoTerminal.timeout) -> Bool {
        until("raw mode (ICANON off)", seconds: seconds) { inRawMode }
    }

    /// Waits for `needle` to appear after the previous match, and moves past it.
    @discardableResult
    public func expect(_ needle: String, seconds: Double = PseudoTerminal.timeout) -> Bool {
        var found: Range<String.Index>?
        let ok = until("\"\(needle)\"", seconds: seconds) {
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
    public func redraw(expectingBadge badge: String) -> String {
        let mark = raw.count
        send("\u{0C}")
        var drawn = ""
        let clear = Array("\u{1B}[2J".utf8)
        _ = until("a redraw with badge \"\(badge)\"") {
            // What was drawn after the last clear-screen sequence.
            let tail = Array(raw[mark...])
            guard let start = (0...max(0, tail.count - clear.count)).last(where: { tail[$0...].starts(with: clear) })
            else { return false }
            drawn = Self.plain(Array(tail[(start + clear.count)...]))
            return drawn.contains(badge)
        }
        searchFrom = text.endIndex
        return drawn
    }

    /// Raw bytes written since `mark` (a value of `raw.count` taken earlier).
    public func rawSince(_ mark: Int) -> ArraySlice<UInt8> { raw[mark...] }

    /// Whether the program has ended (reaped here, its status in `exitStatus`).
    public var hasExited: Bool {
        if exitStatus == nil {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
                dumpedCore = signal != 0 && status & 0x80 != 0
            }
        }
        return exitStatus != nil
    }

    /// Waits for the program to end and returns its exit status (128+N for signal N).
    @discardableResult
    public func waitForExit(seconds: Double = PseudoTerminal.timeout) -> Int32? {
        _ = until("the program to exit", seconds: seconds) { hasExited }
        while pump(milliseconds: 0) {}
        // The pipes' write ends are gone with the child: read them to their end.
        let drainBy = Date().addingTimeInterval(seconds)
        while !pipeReaders.isEmpty && Date() < drainBy { pump(milliseconds: 50) }
        if !pipeReaders.isEmpty { onFailure("a pipe of the child stayed open after it exited") }
        return exitStatus
    }

    public var currentSettings: termios {
        var settings = termios()
        tcgetattr(master, &settings)
        return settings
    }
}

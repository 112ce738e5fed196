import CardPrompt
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Process-level facts about the terminal, and writing to descriptors.
enum Terminal {
    /// Colour unless turned off by flag, or because `fd` (stdout unless said) is not a
    /// terminal, or as `Style.terminalWantsColour` decides (NO_COLOR, TERM, terminfo).
    static func wantsColour(disabled: Bool, fd: Int32 = 1) -> Bool {
        !disabled && isatty(fd) == 1 && Style.terminalWantsColour()
    }

    static func writeOut(_ text: String) { write(text, to: 1) }

    /// The width tables are fitted to: `COLUMNS` when it is a number from 20 to 1000, else 80
    /// (as `ls` and `git` read it; a pipe has no width of its own).
    static var outputColumns: Int {
        guard let value = Environment.value("COLUMNS"), let columns = Int(value), (20...1000).contains(columns) else {
            return 80
        }
        return columns
    }

    static func writeError(_ text: String) { write(text, to: 2) }

    /// `errno` of the first write to standard output that failed, 0 while none has. After one
    /// fails nothing more is written there; the command stops early when it can, and
    /// `Cardline.main` reports the failure and exits 74 (`finishOutput`). Atomic: `check`
    /// writes from whichever thread its pipeline runs on (one at a time).
    private static let outputErrorCode = Atomic<Int32>(0)
    static var outputError: Int32 { outputErrorCode.load(ordering: .relaxed) }

    /// True once a write to standard output has failed.
    static var outputFailed: Bool { outputError != 0 }

    /// Writes all of `text` (retrying short writes and EINTR). A failure on standard output is
    /// remembered (`outputError`); on other descriptors (stderr) there is nobody left to tell.
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.makeContiguousUTF8()
        write(text.utf8.span, to: fd)
    }

    /// The same for bytes.
    static func write(_ bytes: Span<UInt8>, to fd: Int32) {
        if fd == 1 && outputFailed { return }
        if !writeAll(bytes, to: fd) && fd == 1 { outputErrorCode.store(errno == 0 ? EIO : errno, ordering: .relaxed) }
    }

    /// Ignores SIGPIPE, so that writing to a reader that has gone away (`cardline check | head
    /// -1`) fails with EPIPE, reported as exit 74, instead of killing the process.
    static func reportBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Ignores SIGXFSZ, so that a write beyond the file-size limit (`ulimit -f`) fails with
    /// EFBIG, reported as exit 74 with a message, instead of killing the process (153).
    static func reportOversizedWrites() { signal(SIGXFSZ, SIG_IGN) }

    /// The exit status once the command is done with `status`: 74 when a write to standard
    /// output failed, having said why on stderr — except for EPIPE, when the reader went away
    /// on purpose (`| head -1`) and a message would only be noise.
    static func finishOutput(status: Int32) -> Int32 {
        guard outputFailed else { return status }
        if outputError != EPIPE {
            writeError("cardline: error: cannot write to standard output: \(String(cString: strerror(outputError)))\n")
        }
        return ExitStatus.ioError.rawValue
    }

    /// Writes all of `bytes`; false (errno set) when the descriptor refuses them
    /// (`Paths.writeAll`, the one writer the library's warnings use too).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool { Paths.writeAll(bytes.span, to: fd) }

    static func writeAll(_ bytes: Span<UInt8>, to fd: Int32) -> Bool { Paths.writeAll(bytes, to: fd) }

    /// One write(2) of `bytes` to `fd`: what it returns (the count written, or -1 with errno
    /// set), for a record that must reach a file in one write or not at all (the history).
    static func writeOnce(_ bytes: Span<UInt8>, to fd: Int32) -> Int {
        // unsafe: write(2) takes the bytes' address; the pointer does not outlive the call.
        bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}

extension [UInt8] {
    /// Appends the bytes of a span (arrays cannot append a span themselves).
    @inline(__always) mutating func append(_ bytes: Span<UInt8>) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }  // unsafe: copied at once, as memcpy
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CardPrompt

/// Process-level facts about the terminal, and writing to descriptors.
enum Terminal {
    /// Colour unless turned off by flag, or because `fd` (stdout unless said) is not a
    /// terminal, or as `Style.terminalWantsColour` decides (NO_COLOR, TERM, terminfo).
    static func wantsColour(disabled: Bool, fd: Int32 = 1) -> Bool {
        !disabled && isatty(fd) == 1 && Style.terminalWantsColour()
    }

    static func writeOut(_ text: String) { write(text, to: 1) }

    static func writeError(_ text: String) { write(text, to: 2) }

    /// `errno` of the first write to standard output that failed, 0 while none has. After one
    /// fails nothing more is written there; the command stops early when it can, and
    /// `Cardline.main` reports the failure and exits 74 (`finishOutput`). cardline writes from
    /// one thread only.
    nonisolated(unsafe) private(set) static var outputError: Int32 = 0

    /// True once a write to standard output has failed.
    static var outputFailed: Bool { outputError != 0 }

    /// Writes all of `text` (retrying short writes and EINTR). A failure on standard output is
    /// remembered (`outputError`); on other descriptors (stderr) there is nobody left to tell.
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { write($0, to: fd) }
    }

    /// The same for bytes.
    static func write(_ bytes: UnsafeBufferPointer<UInt8>, to fd: Int32) {
        if fd == 1 && outputFailed { return }
        if !writeAll(bytes, to: fd) && fd == 1 { outputError = errno == 0 ? EIO : errno }
    }

    /// Ignores SIGPIPE, so that writing to a reader that has gone away (`cardline check | head
    /// -1`) fails with EPIPE, reported as exit 74, instead of killing the process.
    static func reportBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

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

    /// Writes all of `bytes`; false (errno set) when the descriptor refuses them.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBufferPointer { writeAll($0, to: fd) }
    }

    static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to fd: Int32) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}

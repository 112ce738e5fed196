#if canImport(Glibc)
import Glibc
#endif
import CardPrompt

/// Process-level facts about the terminal, and writing to descriptors.
enum Terminal {
    /// Colour unless turned off by flag, by NO_COLOR (any non-empty value), by TERM=dumb, or
    /// because `fd` (stdout unless said) is not a terminal.
    static func wantsColour(disabled: Bool, fd: Int32 = 1) -> Bool {
        !disabled && isatty(fd) == 1 && Style.terminalWantsColour()
    }

    static func writeOut(_ text: String) { write(text, to: 1) }

    static func writeError(_ text: String) { write(text, to: 2) }

    /// Writes all of `text` (retrying short writes and EINTR); gives up silently on an error.
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { _ = writeAll($0, to: fd) }
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

/// Lines of standard input, read with `readLine` (invalid UTF-8 becomes U+FFFD, which the
/// engine refuses like any other non-digit).
struct StandardInputLines: Sequence, IteratorProtocol {
    mutating func next() -> String? { readLine(strippingNewline: true) }
}

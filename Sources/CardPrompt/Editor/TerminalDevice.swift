import CEditLine

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal the prompt reads keys from and draws on. When standard input and output are
/// both terminals, those; otherwise the controlling terminal, `/dev/tty` (or, failing that,
/// the terminal standard input is on), so that a caller can capture standard output
/// (`card=$(cardline --print --once)`) while the person still types at a full prompt, and the
/// terminal driver never echoes a digit.
final class TerminalDevice {
    /// Where keys come from and where the prompt is drawn.
    let input, output: UnsafeMutablePointer<FILE>  // unsafe: C stdio streams, handed to libedit
    /// True when the streams are the process's own stdin and stdout.
    let isStandard: Bool

    /// The output stream's buffer, ours (not the C library's), so that what was drawn through
    /// it — the live field, by libedit — can be wiped once written (`wipeOutputBuffer`).
    /// stdout's is allocated once and stays with it (stdout outlives any prompt).
    private let outputBuffer: UnsafeMutablePointer<CChar>  // unsafe: stdio writes into it; wiped (card data)
    private static let outputBufferSize = 4096
    // unsafe: a buffer that outlives every prompt (stdout keeps it), wiped after each key
    nonisolated(unsafe) private static let standardOutputBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: outputBufferSize)
        buffer.initialize(repeating: 0, count: outputBufferSize)
        cl_set_buffer(cl_stdout(), buffer, outputBufferSize)
        return buffer
    }()

    // unsafe: C stdio streams
    private init(input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>, isStandard: Bool) {
        self.input = input
        self.output = output
        self.isStandard = isStandard
        if isStandard {
            outputBuffer = Self.standardOutputBuffer
        } else {
            outputBuffer = .allocate(capacity: Self.outputBufferSize)
            outputBuffer.initialize(repeating: 0, count: Self.outputBufferSize)
            cl_set_buffer(output, outputBuffer, Self.outputBufferSize)
        }
    }

    deinit {
        wipeOutputBuffer()
        if !isStandard {
            fclose(input)
            fclose(output)
            outputBuffer.deallocate()
        }
    }

    /// Sends what is buffered and overwrites the whole buffer: the bytes written (the field as
    /// drawn) are not left behind in it. For every key read and the end of an entry
    /// (`wipeEntry`).
    func wipeOutputBuffer() {
        fflush(output)
        cl_wipe(outputBuffer, Self.outputBufferSize)
    }

    /// Why no terminal could be found.
    struct Unavailable: Error {
        var reason: String
    }

    /// Standard input and output when both are terminals, else a terminal opened by name.
    static func open() throws(Unavailable) -> TerminalDevice {
        if isatty(0) == 1 && isatty(1) == 1 {
            return TerminalDevice(input: cl_stdin(), output: cl_stdout(), isStandard: true)
        }
        var names = ["/dev/tty"]
        if isatty(0) == 1, let name = ttyname(0) { names.append(String(cString: name)) }
        var reasons: [String] = []
        for name in names {
            let fd = Glibc.open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else {
                reasons.append("\(name): \(String(cString: strerror(errno)))")
                continue
            }
            guard isatty(fd) == 1 else {
                close(fd)
                reasons.append("\(name): not a terminal")
                continue
            }
            // Two streams on two descriptors of the same terminal, each closed on its own.
            let second = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard second >= 0 else {
                reasons.append("\(name): \(String(cString: strerror(errno)))")
                close(fd)
                continue
            }
            guard let input = fdopen(fd, "r") else {
                reasons.append("\(name): \(String(cString: strerror(errno)))")
                close(fd)
                close(second)
                continue
            }
            guard let output = fdopen(second, "w") else {
                reasons.append("\(name): \(String(cString: strerror(errno)))")
                fclose(input)  // closes fd
                close(second)
                continue
            }
            return TerminalDevice(input: input, output: output, isStandard: false)
        }
        throw Unavailable(reason: "no terminal to ask on (" + reasons.joined(separator: "; ") + ")")
    }

    /// Writes text and flushes it.
    func write(_ text: String) { cl_write(output, text) }

    /// The output stream's descriptor, for bytes written past the stream (whose buffer must be
    /// empty then: flushed by libedit before it reads a key, or by `wipeOutputBuffer`) that
    /// hold no card digit (the badge): no stdio call, no buffer to wipe.
    var outputDescriptor: Int32 { fileno(output) }

    /// Writes bytes and flushes them.
    func write(bytes: [UInt8]) { cl_write_bytes(output, bytes, bytes.count) }
}

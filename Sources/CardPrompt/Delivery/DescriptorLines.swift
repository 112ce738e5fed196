#if canImport(Glibc)
    import Glibc
#endif

/// The lines of a file descriptor (standard input unless said), for `PlainLineReader`: each
/// line without its line break (`\n` or `\r\n`), invalid UTF-8 as U+FFFD (which the engine
/// refuses like any other non-digit). With an idle timeout the lines end once no byte has come
/// for that long, as on a pipe whose writer stays open and says nothing; `timedOut` then says
/// so. The bytes read are overwritten once a line is made of them.
public final class DescriptorLines: Sequence, IteratorProtocol {
    /// The descriptor read.
    public let fd: Int32
    /// How long the input may stay silent before the lines end; nil for no limit.
    public let idleTimeout: Duration?
    /// True once the lines ended because no input came for `idleTimeout`.
    public private(set) var timedOut = false
    private let stop: () -> Bool
    /// Bytes read and not yet made into a line.
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: DescriptorLines.chunkSize)
    private static let chunkSize = 4096
    private var ended = false

    /// Lines of `fd`; `stop` is asked before each line and ends them when true (cardline's:
    /// its standard output failed, so nobody reads the answers).
    public init(fd: Int32 = 0, idleTimeout: Duration? = nil, stop: @escaping () -> Bool = { false }) {
        self.fd = fd
        self.idleTimeout = idleTimeout
        self.stop = stop
        pending.reserveCapacity(8192)
    }

    deinit { wipe(&pending) }

    public func next() -> String? {
        if stop() || timedOut { return nil }
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let end = newline > 0 && pending[newline - 1] == 0x0D ? newline - 1 : newline
                return take(upTo: end, dropping: newline + 1)
            }
            if ended {
                return pending.isEmpty ? nil : take(upTo: pending.count, dropping: pending.count)
            }
            guard waitForInput() else {
                timedOut = true
                return nil
            }
            let count = read(fd, &chunk, Self.chunkSize)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                ended = true
                continue
            }
            if count == 0 {
                ended = true
                continue
            }
            pending.append(contentsOf: chunk[0..<count])
            explicit_bzero(&chunk, count)
        }
    }

    /// The line in `pending[..<end]`; the first `dropping` bytes are then removed, in place:
    /// the rest moved to the front and the bytes freed at the end overwritten (no copy of the
    /// rest is made, so none is left unwiped).
    private func take(upTo end: Int, dropping: Int) -> String {
        let line = String(decoding: pending[..<end], as: UTF8.self)
        let count = pending.count
        // unsafe: the rest moved in place, so that no copy of card digits is left unwiped
        pending.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            memmove(base, base + dropping, count - dropping)
            explicit_bzero(base + (count - dropping), dropping)
        }
        pending.removeLast(dropping)
        return line
    }

    /// Waits until `fd` can be read (or has ended); false when the idle timeout passed first.
    private func waitForInput() -> Bool {
        guard let idleTimeout else { return true }
        let (seconds, attoseconds) = idleTimeout.components
        var left = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: left))
            if ready > 0 { return true }
            if ready == 0 { return false }
            guard errno == EINTR else { return true }  // let read report the problem
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let elapsed = Int64(now.tv_sec - start.tv_sec) * 1000 + Int64(now.tv_nsec - start.tv_nsec) / 1_000_000
            left = Swift.max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000 - elapsed)
        }
    }

    private func wipe(_ bytes: inout [UInt8]) {
        let count = bytes.count
        explicit_bzero(&bytes, count)
        bytes.removeAll(keepingCapacity: true)
    }
}

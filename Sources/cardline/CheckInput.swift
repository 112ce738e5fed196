import CEditLine
import CardPrompt
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a file descriptor in blocks of whole lines, so memory stays constant however large
/// the input. A line of 1 MiB or more is one record: only its first 1 MiB is handed out, marked
/// truncated, and the rest of it is skipped, so the line numbers after it stay right.
struct LineReader {
    let fd: Int32
    /// How much to read before handing out the whole lines read.
    var blockSize = LineReader.chunk
    static let chunk = 64 * 1024
    static let longestLine = 1024 * 1024
    /// `errno` of a read that failed, which ended the input.
    private(set) var failure: Int32?
    /// The start of a line not finished yet, read with the block before.
    private var carry: [UInt8] = []
    /// Blocks handed back (`recycle`), to read the next ones into.
    private var spares: [[UInt8]] = []
    private var skipping = false  // inside the rest of an over-long line
    private var atEnd = false

    init(fd: Int32, blockSize: Int = LineReader.chunk) {
        self.fd = fd
        self.blockSize = blockSize
    }

    /// The next block of whole lines (each ending in a line break, except perhaps the input's
    /// last), about `blockSize` bytes; a line of 1 MiB or more may be in a block whole (its
    /// reader cuts it), or, when it does not fit, is handed out alone as its first 1 MiB with
    /// `truncated` set. Nil at the end of the input, or when a read failed (`failure`).
    /// (Never inlined: what it leaves on the stack, bytes of a carried record among them, is
    /// then below its caller's frame, where the caller's `Check.scrubStack` reaches.)
    @inline(never)
    mutating func next() -> (bytes: [UInt8], truncated: Bool)? {
        while !atEnd {
            var block = spares.popLast() ?? []
            block.removeAll(keepingCapacity: true)
            block += carry
            carry.wipeStorage()
            carry.removeAll(keepingCapacity: true)
            // Fill to a block (a pipe gives less per read), or to the end of the input.
            let goal = block.count + blockSize
            while block.count < goal {
                let count = Paths.read(fd, appendingTo: &block, limit: goal - block.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    atEnd = true
                    block.wipeStorage()
                    return nil
                }
                if count == 0 {
                    atEnd = true
                    break
                }
            }
            var start = 0
            if skipping {
                // Still inside the over-long line: drop it up to its line break.
                guard let lineBreak = block.firstIndex(of: UInt8(ascii: "\n")) else {
                    recycle(block)
                    continue
                }
                skipping = false
                start = lineBreak + 1
            }
            if atEnd {
                guard start < block.count else {
                    block.wipeStorage()
                    return nil
                }
                if start > 0 { block.removeFirst(start) }
                return (block, false)
            }
            guard let lastBreak = block.lastIndex(of: UInt8(ascii: "\n")), lastBreak >= start else {
                if block.count - start >= Self.longestLine {
                    // One line fills what is read: hand out its first 1 MiB, skip the rest.
                    skipping = true
                    defer { block.wipeStorage() }
                    return (Array(block[start..<(start + Self.longestLine)]), true)
                }
                carry += block[start...]
                recycle(block)
                continue
            }
            carry += block[(lastBreak + 1)...]
            block.removeLast(block.count - lastBreak - 1)
            if start > 0 { block.removeFirst(start) }
            return (block, false)
        }
        return nil
    }

    /// Hands back a block `next` returned, once done with it, for the next read: wiped first
    /// (all its storage: a block's room past its lines holds bytes of earlier ones), unless
    /// it is `wiped` already.
    mutating func recycle(_ block: [UInt8], wiped: Bool = false) {
        if !wiped { block.wipeStorage() }
        spares.append(block)
    }
}

extension [UInt8] {
    /// Writes zeros over all of the array's storage, up to its capacity (records' bytes lie
    /// past the count too: read before, moved by `removeFirst`, cut by `removeLast`), in
    /// place, whoever else holds it: for storage that has held records and is done with.
    /// The caller answers for it that no other copy of the array is read afterwards (a copy
    /// shares the storage until written to, and would read zeros).
    func wipeStorage() {
        let room = capacity
        // unsafe: explicit_bzero over the storage, count and spare capacity (`cl_wipe`).
        withUnsafeBufferPointer {
            if let base = $0.baseAddress { cl_wipe(UnsafeMutableRawPointer(mutating: base), room) }
        }
    }
}

/// A value handed to a task once: `take` leaves nothing behind, so the task holds the only
/// reference to its arrays.
final class Handoff<Value: Sendable>: Sendable {
    private let slot: Mutex<Value?>
    init(_ value: consuming Value) { slot = Mutex(value) }
    func take() -> Value { slot.withLock { $0.take()! } }
}

/// Runs `work` on Swift's global concurrent executor and waits here until it is done.
func runToCompletion<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
    let result = ResultSlot<Value>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await work()
        result.value.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.value.withLock { $0! }
}

private final class ResultSlot<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}

/// Collects output and writes it in 64 KiB blocks.
struct BufferedOutput {
    let fd: Int32
    /// Bytes not written yet; append to it, then call `flushIfFull`.
    var pending: [UInt8] = []
    /// Messages for stderr about the records pending, written after them, and only while
    /// stdout can still be written (a reader gone away ends the run quietly).
    var messages: [UInt8] = []
    /// Whether what is written is wiped from `pending` (`--unmasked`: full numbers).
    var wipesWritten = false

    init(fd: Int32) {
        self.fd = fd
        pending.reserveCapacity(70 * 1024)
    }

    /// Adds a block's output and its messages: written at once when nothing is pending and
    /// it is large.
    mutating func write(_ bytes: [UInt8], messages more: [UInt8]) {
        if pending.isEmpty && bytes.count >= 64 * 1024 {
            Terminal.write(bytes.span, to: fd)
        } else {
            pending += bytes
        }
        messages += more
        flushIfFull()
    }

    mutating func flushIfFull() {
        if pending.count >= 64 * 1024 || messages.count >= 64 * 1024 { flush() }
    }

    /// Writes what is pending; a failure is remembered by `Terminal` (stdout) and ends the run.
    mutating func flush() {
        Terminal.write(pending.span, to: fd)
        if wipesWritten { pending.wipeStorage() }
        pending.removeAll(keepingCapacity: true)
        if !messages.isEmpty && !Terminal.outputFailed {
            Terminal.writeError(String(decoding: messages, as: UTF8.self))
        }
        messages.removeAll()
    }
}

/// Records per second and ETA on stderr, at most every half second; only when stderr is a terminal.
final class Progress {
    private var size: Int?
    private var bytes = 0
    private var began = Progress.now()
    private var lastShown = 0.0

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    func start(size: Int?) {
        self.size = size
        bytes = 0
        recordsAtLastLook = 0
        began = Progress.now()
    }

    private var recordsAtLastLook = 0

    func advance(records: Int, bytes count: Int) {
        bytes += count
        guard records - recordsAtLastLook >= 4096 else { return }
        recordsAtLastLook = records
        let now = Progress.now()
        guard now - lastShown >= 0.5 else { return }
        lastShown = now
        let rate = Double(records) / max(now - began, 1e-9)
        var text = "\r\(records) records, \(Int(rate)) records/s"
        if let size, size > 0, bytes > 0, bytes <= size {  // (a file that reports 0 bytes or grew: no percentage)
            let remaining = Double(size - bytes) / (Double(bytes) / (now - began))
            text += ", \(Int(Double(bytes) * 100 / Double(size)))%, ETA \(Int(remaining.rounded()))s"
        }
        Terminal.writeError(text + "\u{1B}[K")
    }

    func finish() {
        if lastShown > 0 { Terminal.writeError("\r\u{1B}[K") }
    }
}

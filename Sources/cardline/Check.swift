import ArgumentParser
import CardPrompt

#if canImport(Glibc)
import Glibc
#endif

/// `cardline check`: validates card records in bulk, streaming, in constant memory.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate card records in bulk: NUMBER[,EXPIRY[,CVV]] or --print's JSON per line, JSON Lines out.",
        usage: "cardline check [<options>] [<FILE> ...]",
        discussion: """
            Reads each FILE in turn (standard input when none, or for -). A record is \
            NUMBER,EXPIRY,CVV, or on a line without a comma NUMBER EXPIRY CVV (apart by \
            whitespace); EXPIRY and CVV may be left out. The number is written unbroken or in \
            groups of at most six digits joined by one space or by dashes (4111 1111 1111 1111); \
            a space after more than six digits in a row, a tab, or a space before something that \
            is not digits ends it ('378282246310005 9876' is a number, then an expiry). EXPIRY is \
            MM/YY or MM/YYYY. A line starting with { is a JSON object as --print writes it \
            ("number", "expiry" {"month","year"} or "MM/YY", "cvv"); one that is not is a \
            record_format record, with a message naming its line. Blank lines and lines starting \
            with # are skipped. One result per record, in input order; numbers masked to first \
            six and last four; security codes never printed. A summary goes to stderr.

            errors: record_format, number_format, unknown_network, length, luhn, expiry_format, \
            expired, expiry_too_far, cvv_format, cvv_length, network_not_accepted (with \
            --networks).

            Exit status: 0 every record valid; 1 some record invalid; 65 some record in neither \
            format; 66 a file cannot be read; 74 standard output could not \
            be written (full, or a closed pipe: then it stops at once, with no message).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, text, summary
    }

    @OptionGroup var options: EntryOptions

    @Option(help: "json: one JSON object per record (JSON Lines); text: one line per record for people; summary: only the summary.")
    var format: Format = .json

    @Flag(help: ArgumentHelp("DANGEROUS: print full card numbers. Refused when stdout is a terminal; use only into a protected file or pipe."))
    var unmasked = false

    @Argument(help: ArgumentHelp("Files of records (- for standard input).", valueName: "FILE"))
    var files: [String] = []

    func validate() throws {
        if unmasked && isatty(1) == 1 {
            throw ValidationError("--unmasked prints full card numbers; it is refused when stdout is a terminal")
        }
    }

    func run() throws {
        ProcessProtection.apply(lockingMemory: true)
        let (rules, accepted) = try options.rules.loadOrExit(accepting: options.acceptedNetworksText(environment: true))
        let checker = CardCheck(rules: rules, expiryPolicy: options.expiryPolicy, accepted: accepted)
        var output = BufferedOutput(fd: 1)
        var tally = Tally()
        let progress = isatty(2) == 1 ? Progress() : nil
        // Read once: property-wrapper getters inside the loop showed up in the profile.
        let records = RecordWriter(checker: checker, format: format, unmasked: unmasked)
        // Two cores when there are two: each block of lines is cut in two at a line break and
        // the halves are checked at once, their output written in input order.
        let twoCores = availableProcessors() >= 2
        var second: [UInt8] = []
        for path in files.isEmpty ? ["-"] : files where !Terminal.outputFailed {
            let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                Terminal.writeError("cardline: error: cannot read \(path.escapingControlCharacters): \(String(cString: strerror(errno)))\n")
                tally.unreadable += 1
                continue
            }
            defer { if fd != 0 { close(fd) } }
            progress?.start(size: fileSize(fd))
            var lineNumber = 0
            let reader = LineReader(fd: fd, blockSize: twoCores ? Self.parallelBlock : LineReader.chunk)
            // Stops once stdout has failed: nobody reads the results (`… | cardline check | head -1`).
            let completed = reader.forEachBlock(stop: { Terminal.outputFailed }) { block, truncated in
                if truncated {
                    lineNumber += 1
                    records.check(line: block, truncated: true, number: lineNumber, tally: &tally, to: &output.pending)
                } else if !twoCores || block.count < Self.parallelBlock / 4 {
                    lineNumber = records.check(lines: block, after: lineNumber, tally: &tally, to: &output.pending)
                    output.flushIfFull()
                } else {
                    // The first half on another thread, the second here; line numbers in the
                    // second half start after the first half's line breaks.
                    var cut = block.count / 2
                    while cut < block.count && block[cut - 1] != UInt8(ascii: "\n") { cut += 1 }
                    let first = UnsafeBufferPointer(rebasing: block[..<cut]), rest = UnsafeBufferPointer(rebasing: block[cut...])
                    var firstTally = Tally(), restTally = Tally()
                    let start = lineNumber
                    var end = lineNumber
                    second.removeAll(keepingCapacity: true)
                    runConcurrently({
                        _ = records.check(lines: first, after: start, tally: &firstTally, to: &output.pending)
                    }, {
                        var lines = 0
                        for byte in first where byte == UInt8(ascii: "\n") { lines += 1 }
                        end = records.check(lines: rest, after: start + lines, tally: &restTally, to: &second)
                    })
                    lineNumber = end
                    tally.add(firstTally)
                    tally.add(restTally)
                    output.flushIfFull()
                    output.pending += second
                    output.flushIfFull()
                }
                if !tally.messages.isEmpty {
                    output.messages += tally.messages
                    tally.messages.removeAll()
                }
                progress?.advance(records: tally.records, bytes: block.count)
            }
            if !completed {
                Terminal.writeError("cardline: error: reading \(path.escapingControlCharacters) failed: \(String(cString: strerror(errno)))\n")
                tally.unreadable += 1
            }
        }
        output.flush()
        progress?.finish()
        // Output failed: the counts are of an interrupted run; `Cardline.main` reports it (74).
        if Terminal.outputFailed { return }
        let invalid = tally.records - tally.valid
        Terminal.writeError("\(tally.records) records, \(tally.valid) valid, \(invalid) invalid\n")
        if tally.unreadable > 0 { throw ExitStatus.unreadable }
        if tally.malformed > 0 { throw ExitStatus.badRules }
        if invalid > 0 { throw ExitStatus.rejected }
    }

    /// Bytes of input per block on the two-core path (its output stays in memory until written).
    static let parallelBlock = 512 * 1024

    /// Records counted so far.
    struct Tally {
        var records = 0, valid = 0, malformed = 0, unreadable = 0
        /// Messages for stderr about records (a JSON line that is not a card record), in input
        /// order; written with the records' output (`BufferedOutput.messages`).
        var messages: [UInt8] = []

        mutating func add(_ other: Tally) {
            records += other.records
            valid += other.valid
            malformed += other.malformed
            unreadable += other.unreadable
            messages += other.messages
        }
    }

    /// Checks records and appends their output lines in the chosen format.
    struct RecordWriter: Sendable {
        let checker: CardCheck
        let format: Format
        let unmasked: Bool

        /// Checks each line of `lines` (whole lines, each ending in a line break but perhaps the
        /// last of the input), numbered from `after + 1`; returns the last line's number. A line
        /// of 1 MiB or more is one `record_format` record, as `LineReader` hands it out.
        func check(lines: UnsafeBufferPointer<UInt8>, after: Int, tally: inout Tally, to out: inout [UInt8]) -> Int {
            var number = after
            var start = 0
            let count = lines.count
            while start < count {
                var end = start
                while end < count && lines[end] != UInt8(ascii: "\n") { end += 1 }
                number += 1
                let length = end - start
                let truncated = length >= LineReader.longestLine
                let line = UnsafeBufferPointer(rebasing: lines[start..<(start + (truncated ? LineReader.longestLine : length))])
                check(line: line, truncated: truncated, number: number, tally: &tally, to: &out)
                start = end + 1
            }
            return number
        }

        /// One line: skipped when blank or a comment, otherwise checked and counted.
        @inline(__always)
        func check(line: UnsafeBufferPointer<UInt8>, truncated: Bool, number: Int, tally: inout Tally, to out: inout [UInt8]) {
            guard let first = line.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }),
                  first != UInt8(ascii: "#") else { return }
            let result: CardCheck.Result
            if first == UInt8(ascii: "{") && !truncated {
                // A JSON record, as `cardline --print` writes it (rare: not the plain records' loop).
                let (checked, problem) = checker.checkJSON(line)
                if let problem { tally.messages += "cardline: line \(number): \(problem)\n".utf8 }
                result = checked
            } else {
                result = checker.check(line, truncated: truncated)
            }
            tally.records += 1
            if result.valid { tally.valid += 1 }
            if result.has(.recordFormat) { tally.malformed += 1 }
            switch format {
            case .json: checker.appendJSON(result, line: number, unmasked: unmasked, to: &out)
            case .text: checker.appendText(result, line: number, unmasked: unmasked, to: &out)
            case .summary: break
            }
        }
    }

    private func fileSize(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}

/// Reads a file descriptor in blocks of whole lines, so memory stays constant however large
/// the input. A line of 1 MiB or more is one record: only its first 1 MiB is handed out, marked
/// truncated, and the rest of it is skipped, so the line numbers after it stay right.
struct LineReader {
    let fd: Int32
    /// How much to read before handing out the whole lines read.
    var blockSize = LineReader.chunk
    static let chunk = 64 * 1024
    static let longestLine = 1024 * 1024

    /// Calls `body` with each line and whether it was truncated, until `stop` (asked before each
    /// read) says to stop; false when a read failed.
    func forEachLine(stop: () -> Bool = { false }, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> Void) -> Bool {
        forEachBlock(stop: stop) { block, truncated in
            if truncated { return body(block, true) }
            var start = 0
            while start < block.count {
                var end = start
                while end < block.count && block[end] != UInt8(ascii: "\n") { end += 1 }
                let long = end - start >= Self.longestLine
                body(UnsafeBufferPointer(rebasing: block[start..<(long ? start + Self.longestLine : end)]), long)
                start = end + 1
            }
        }
    }

    /// Calls `body` with blocks of whole lines (each ending in a line break, except perhaps
    /// the input's last), about `blockSize` bytes at a time; a line of 1 MiB or more may be in
    /// a block whole (its reader cuts it), or, when it does not fit, is handed out alone as its
    /// first 1 MiB with `truncated` set. Stops when `stop` (asked before each read) says so;
    /// false when a read failed.
    func forEachBlock(stop: () -> Bool = { false }, _ body: (UnsafeBufferPointer<UInt8>, _ truncated: Bool) -> Void) -> Bool {
        // Twice the block, and room for the longest line: the unfinished line stays at the front.
        var buffer = [UInt8](repeating: 0, count: max(blockSize * 2, blockSize + Self.longestLine))
        var filled = 0
        var skipping = false  // inside the rest of an over-long line
        var atEnd = false
        while !atEnd && !stop() {
            // Fill to a block (a pipe gives less per read), or to the end of the input.
            let goal = min(buffer.count, filled + blockSize)
            var end = filled
            while end < goal {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + end, goal - end) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if count == 0 {
                    atEnd = true
                    break
                }
                end += count
            }
            var start = 0
            if skipping {
                // Still inside the over-long line: drop it up to its line break.
                guard let lineBreak = buffer[filled..<end].firstIndex(of: UInt8(ascii: "\n")) else {
                    filled = 0
                    continue
                }
                skipping = false
                start = lineBreak + 1
            }
            if atEnd {
                if start < end { buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end]), false) } }
                return true
            }
            guard let lastBreak = buffer[start..<end].lastIndex(of: UInt8(ascii: "\n")) else {
                if end - start >= Self.longestLine {
                    // One line fills what is read: hand out its first 1 MiB, skip the rest.
                    buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<(start + Self.longestLine)]), true) }
                    skipping = true
                    filled = 0
                } else {
                    moveToFront(&buffer, start, end)
                    filled = end - start
                }
                continue
            }
            buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start...lastBreak]), false) }
            moveToFront(&buffer, lastBreak + 1, end)
            filled = end - lastBreak - 1
        }
        return true
    }

    private func moveToFront(_ buffer: inout [UInt8], _ start: Int, _ end: Int) {
        guard start > 0 && end > start else { return }
        buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.baseAddress!.update(from: bytes.baseAddress! + start, count: end - start)
        }
    }
}

/// How many processors this process may run on (its affinity mask, so `taskset -c 0` gives 1).
func availableProcessors() -> Int {
    var set = cpu_set_t()
    guard withUnsafeMutableBytes(of: &set, { processAffinity(0, $0.count, $0.baseAddress!) }) == 0 else { return 1 }
    return withUnsafeBytes(of: &set) { bytes in bytes.reduce(0) { $0 + $1.nonzeroBitCount } }
}

/// glibc's sched_getaffinity(2), which its headers declare only with _GNU_SOURCE.
@_silgen_name("sched_getaffinity")
private func processAffinity(_ pid: pid_t, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32

/// Runs `first` on a new thread and `second` on this one, and returns when both are done.
/// (Each must touch only what the other does not.) Falls back to running them in turn.
func runConcurrently(_ first: () -> Void, _ second: () -> Void) {
    withoutActuallyEscaping(first) { first in
        let box = Unmanaged.passRetained(ClosureBox(first))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<ClosureBox>.fromOpaque(context!).takeUnretainedValue().body()
            return nil
        }, box.toOpaque())
        if started != 0 { first() }
        second()
        if started == 0 { pthread_join(thread, nil) }
        box.release()
    }
}

private final class ClosureBox: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Collects output and writes it in 64 KiB blocks.
struct BufferedOutput {
    let fd: Int32
    /// Bytes not written yet; append to it, then call `flushIfFull`.
    var pending: [UInt8] = []
    /// Messages for stderr about the records pending, written after them, and only while
    /// stdout can still be written (a reader gone away ends the run quietly).
    var messages: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        pending.reserveCapacity(70 * 1024)
    }

    mutating func flushIfFull() {
        if pending.count >= 64 * 1024 || messages.count >= 64 * 1024 { flush() }
    }

    /// Writes what is pending; a failure is remembered by `Terminal` (stdout) and ends the run.
    mutating func flush() {
        pending.withUnsafeBufferPointer { Terminal.write($0, to: fd) }
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

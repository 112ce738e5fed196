import ArgumentParser
import CEditLine
import CProcessWide
import CardPrompt
import CardSeal
import Dispatch
import FoundationEssentials
import Synchronization

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
            --networks), expiry_missing (with --encrypt-to).

            With --encrypt-to FILE each valid record is written encrypted for that public key \
            ({"line":N, then the members enter --encrypt-to writes); invalid ones as above; a \
            record without an expiry is not encrypted: it is invalid (expiry_missing).

            A FILE may be a FIFO or a pipe (read as it is written); a device or a folder is \
            refused (66).

            Exit status: 0 every record valid; 1 some record invalid; 64 bad usage (or an \
            --encrypt-to file with no usable key); 65 some record in neither \
            format; 66 a file (or the --encrypt-to key file) cannot be read; 74 standard output could not \
            be written (full, or a closed pipe: then it stops at once, with no message).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, text, summary
    }

    @OptionGroup var options: EntryOptions

    @Option(
        help:
            "json: one JSON object per record (JSON Lines); text: one line per record for people; summary: only the summary."
    )
    var format: Format = .json

    @Flag(
        help: ArgumentHelp(
            "DANGEROUS: print full card numbers. Refused when stdout is a terminal; use only into a protected file or pipe."
        ))
    var unmasked = false

    @Option(
        help: ArgumentHelp(
            "Write each valid record encrypted for this public key instead (as enter --encrypt-to does), {\"line\":N, ...} per record; invalid records as usual, masked.",
            valueName: "FILE"))
    var encryptTo: String?

    @Option(help: ArgumentHelp("With --encrypt-to: jwe or adyen (as for enter).", valueName: "jwe|adyen"))
    var encryptFormat: CardSealer.Format?

    @Argument(help: ArgumentHelp("Files of records (- for standard input).", valueName: "FILE"), completion: .file())
    var files: [String] = []

    func validate() throws {
        if unmasked && isatty(1) == 1 {
            throw ValidationError("--unmasked prints full card numbers; it is refused when stdout is a terminal")
        }
        if let problem = sealingProblem { throw ValidationError(problem) }
    }

    func run() throws {
        ProcessProtection.apply(lockingMemory: true)
        let (rules, accepted) = try options.rules.loadOrExit(accepting: options.acceptedNetworksText(environment: true))
        // From here on every buffer freed is wiped first (records' bytes, a JSON record's
        // strings, a block grown; `cl_wipe_freed_memory`, as `enter` does): after the rules,
        // whose many small frees hold no card.
        cl_wipe_freed_memory()
        let checker = CardCheck(rules: rules, expiryPolicy: options.expiryPolicy, accepted: accepted)
        let sealer = try Sealing.sealer(keyFile: encryptTo, format: encryptFormat)
        // Read once: property-wrapper getters inside the loop showed up in the profile.
        let records = RecordWriter(checker: checker, format: format, unmasked: unmasked)
        let paths = files.isEmpty ? ["-"] : files
        // Two cores when there are two (the process's affinity: `taskset -c 0` gives one).
        let parallel = ProcessInfo.processInfo.activeProcessorCount >= 2
        // --encrypt-to: a path of its own (CheckSealing.swift).
        let tally =
            if let sealer { Self.seal(paths, with: records, sealer: sealer) } else {
                runToCompletion { await Self.check(paths, with: records, parallel: parallel) }
            }
        // Output failed: the counts are of an interrupted run; `Cardline.main` reports it (74).
        if Terminal.outputFailed { return }
        let invalid = tally.records - tally.valid
        Terminal.writeError("\(tally.records) records, \(tally.valid) valid, \(invalid) invalid\n")
        if tally.unreadable > 0 { throw ExitStatus.unreadable }
        if tally.malformed > 0 { throw ExitStatus.badRules }
        if invalid > 0 { throw ExitStatus.rejected }
    }

    /// The records of a block of whole lines, checked: their output and their counts, and the
    /// block's bytes (handed back to be read into again).
    struct Checked: Sendable {
        var output: [UInt8] = []
        var tally = Tally()
        var input: [UInt8] = []
    }

    /// The descriptor to read `path` from (standard input for `-`), or nil after saying why it
    /// cannot be read and counting it unreadable. The one opener of `check`'s inputs (plain and
    /// `--encrypt-to`). A FIFO named by its path is read as a pipe on `-` is, waited on until
    /// its writer comes (`check cards.fifo`, `check <(zcat cards.gz)`); a device (`/dev/zero`, a
    /// terminal: give `-`) or a folder is refused (`Paths.openForReading`).
    static func openInput(_ path: String, tally: inout Tally) -> Int32? {
        guard path != "-" else { return 0 }
        do throws(Paths.Unreadable) {
            return try Paths.openForReading(path, allowingFIFO: true)
        } catch {
            Complaint.unreadable(path, error.reason)
            tally.unreadable += 1
            return nil
        }
    }

    /// Says so, and counts the input unreadable, when reading `path` failed part way.
    static func reportFailure(of reader: borrowing LineReader, _ path: String, tally: inout Tally) {
        guard let failure = reader.failure else { return }
        Terminal.writeError(
            "cardline: error: reading \(path.escapingControlCharacters) failed: \(String(cString: strerror(failure)))\n"
        )
        tally.unreadable += 1
    }

    /// Checks the files in turn, writing the results in input order. In `parallel`, each block
    /// of whole lines is checked by a task of its own while the next blocks are read, up to
    /// `Self.blocksInFlight` at once (on two cores, two check while the next is read and the
    /// finished ones written); otherwise each block is checked here as it is read.
    static func check(_ paths: [String], with records: RecordWriter, parallel: Bool) async -> Tally {
        var output = BufferedOutput(fd: 1)
        var tally = Tally()
        let progress = isatty(2) == 1 ? Progress() : nil
        for path in paths where !Terminal.outputFailed {
            guard let fd = openInput(path, tally: &tally) else { continue }
            defer { if fd != 0 { close(fd) } }
            progress?.start(size: fileSize(fd))
            var lineNumber = 0
            var spareOutputs: [[UInt8]] = []
            var reader = LineReader(fd: fd, blockSize: parallel ? Self.parallelBlock : LineReader.chunk)
            output.wipesWritten = records.unmasked
            var inFlight: [(task: Task<Checked, Never>, bytes: Int)] = []
            /// Adds a checked block's results, in input order; its arrays are used again (fresh
            /// ones for every block left the process's memory growing with the input).
            func finish(_ checked: Checked, bytes: Int) {
                tally.add(checked.tally)
                output.write(checked.output, messages: checked.tally.messages)
                progress?.advance(records: tally.records, bytes: bytes)
                reader.recycle(checked.input, wiped: true)  // (by its task, once checked)
                if records.unmasked { checked.output.wipeStorage() }  // (full numbers)
                spareOutputs.append(checked.output)
            }
            // Stops once stdout has failed: nobody reads the results (`… | cardline check | head -1`).
            while !Terminal.outputFailed, let next = reader.next() {
                let (block, truncated) = next
                if truncated {
                    lineNumber += 1
                    var checked = Checked()
                    records.check(
                        line: block.span, truncated: true, number: lineNumber, tally: &checked.tally,
                        to: &checked.output)
                    Self.scrubStack()
                    reader.recycle(block)
                    let done = checked
                    if inFlight.isEmpty {
                        finish(done, bytes: block.count)
                    } else {
                        inFlight.append((Task { done }, block.count))
                    }
                } else if !parallel {
                    var counts = Tally()
                    lineNumber = records.check(
                        lines: block.span, after: lineNumber, tally: &counts, to: &output.pending)
                    tally.add(counts)
                    output.messages += counts.messages
                    output.flushIfFull()
                    progress?.advance(records: tally.records, bytes: block.count)
                    Self.scrubStack()
                    reader.recycle(block)
                } else {
                    // The block's first line number: those before it, counted here (a
                    // vectorised loop), so that its task need not wait for the ones before.
                    let start = lineNumber
                    lineNumber += Self.lineCount(block)
                    // What reading and counting the block left on this stack (a record carried
                    // from the block before, the words counted), wiped.
                    Self.scrubStack()
                    // Handed over whole, so that the task's arrays are its own (no copy).
                    let handoff = Handoff(Checked(output: spareOutputs.popLast() ?? [], input: block))
                    let size = block.count
                    inFlight.append(
                        (
                            Task.detached {
                                var checked = handoff.take()
                                var output = checked.output
                                var tally = Tally()
                                checked.output = []
                                output.removeAll(keepingCapacity: true)
                                // JSON Lines are about 4 times the records' size; reserved once (a
                                // summary writes none: an array of five blocks' size, filled when
                                // made and wiped when freed, for nothing).
                                if records.format != .summary { output.reserveCapacity(size * 5) }
                                _ = records.check(lines: checked.input.span, after: start, tally: &tally, to: &output)
                                // The records are done with: wiped here, on this task's core, and so
                                // are the copies of their digits the checking left on this stack.
                                checked.input.wipeStorage()
                                Self.scrubStack()
                                checked.output = output
                                checked.tally = tally
                                return checked
                            }, size
                        ))
                    if inFlight.count >= Self.blocksInFlight {
                        let (task, bytes) = inFlight.removeFirst()
                        finish(await task.value, bytes: bytes)
                    }
                }
            }
            for (task, bytes) in inFlight { finish(await task.value, bytes: bytes) }
            reportFailure(of: reader, path, tally: &tally)
        }
        output.flush()
        progress?.finish()
        return tally
    }

    /// How many lines `block` holds (the last may lack its line break).
    static func lineCount(_ block: [UInt8]) -> Int {
        var lines = block.last == UInt8(ascii: "\n") || block.isEmpty ? 0 : 1
        // unsafe: glibc's memchr finds each line break many bytes at a time (measured with
        // callgrind: 125 instructions a record as a Swift loop over the bytes, 30 this way).
        block.withUnsafeBytes { bytes in
            guard var next = bytes.baseAddress else { return }
            let end = next + bytes.count
            while let found = memchr(next, Int32(UInt8(ascii: "\n")), end - next) {
                lines += 1
                next = UnsafeRawPointer(found) + 1
            }
        }
        return lines
    }

    /// Writes zeros over the stack below the caller's frame, where checking records left
    /// copies of their digits (`CardCheck.check`'s digits, spilled words of a line): called
    /// after a block, from the frame that checked it. 16 KiB is several times the deepest the
    /// checking goes.
    @inline(never)
    static func scrubStack() {
        // (In C: Swift's temporary allocation of this size may come from the heap.)
        cl_wipe_stack(16 * 1024)
    }

    /// Bytes of input per block on the two-core path (each block's output stays in memory
    /// until written).
    static let parallelBlock = 128 * 1024
    /// Blocks checked or waiting to be written at once on the two-core path.
    static let blocksInFlight = 3

    /// Records counted so far.
    struct Tally {
        var records = 0, valid = 0, malformed = 0, unreadable = 0
        /// Messages for stderr about records (a JSON line that is not a card record), in input
        /// order; written with the records' output (`BufferedOutput.messages`).
        var messages: [UInt8] = []

        /// Adds `other`'s counts (not its messages: they go to `BufferedOutput.messages`).
        mutating func add(_ other: Tally) {
            records += other.records
            valid += other.valid
            malformed += other.malformed
            unreadable += other.unreadable
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
        func check(lines: Span<UInt8>, after: Int, tally: inout Tally, to out: inout [UInt8]) -> Int {
            // JSON Lines are gathered a batch at a time (one `append` per record cost more than
            // writing the record). Not an optional: unwrapping it copied it on every record.
            let json = format == .json
            var batch = CardCheck.JSONLinesBatch(checker, unmasked: unmasked, room: json)
            // unsafe: the per-record loop finds the line breaks with memchr (measured: a loop
            // over the span's bytes cost 125 instructions a record, memchr 30).
            let number = lines.withUnsafeBufferPointer { lines in
                var number = after
                var start = 0
                let count = lines.count
                guard let base = lines.baseAddress else { return number }
                while start < count {
                    var end = count
                    if let found = memchr(base + start, Int32(UInt8(ascii: "\n")), count - start) {
                        end = Int(bitPattern: found) - Int(bitPattern: base)
                    }
                    number += 1
                    let length = end - start
                    let truncated = length >= LineReader.longestLine
                    let line = UnsafeBufferPointer(
                        start: base + start, count: truncated ? LineReader.longestLine : length)
                    if let result = check(line: line.span, truncated: truncated, number: number, tally: &tally) {
                        if json {
                            batch.append(result, line: number)
                            if batch.isFull { batch.flush(to: &out) }
                        } else {
                            write(result, line: number, to: &out)
                        }
                    }
                    start = end + 1
                }
                return number
            }
            batch.flush(to: &out)
            return number
        }

        /// One line (`check(line:truncated:number:tally:)`), its result appended to `out`.
        func check(line: Span<UInt8>, truncated: Bool, number: Int, tally: inout Tally, to out: inout [UInt8]) {
            if let result = check(line: line, truncated: truncated, number: number, tally: &tally) {
                write(result, line: number, to: &out)
            }
        }

        /// Appends a result's output in the chosen format.
        @inline(__always)
        func write(_ result: CardCheck.Result, line number: Int, to out: inout [UInt8]) {
            switch format {
            case .json: checker.appendJSON(result, line: number, unmasked: unmasked, to: &out)
            case .text: checker.appendText(result, line: number, unmasked: unmasked, to: &out)
            case .summary: break
            }
        }

        /// One line: nil when blank or a comment, otherwise its result (counted).
        @inline(__always)
        func check(line: Span<UInt8>, truncated: Bool, number: Int, tally: inout Tally) -> CardCheck.Result? {
            var index = 0
            while index < line.count
                && (line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t")
                    || line[index] == UInt8(ascii: "\r"))
            { index += 1 }
            guard index < line.count, line[index] != UInt8(ascii: "#") else { return nil }
            let first = line[index]
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
            return result
        }
    }

    private static func fileSize(_ fd: Int32) -> Int? {
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

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
        let records = RecordWriter(checker: checker, format: format, unmasked: unmasked, sealer: sealer)
        let paths = files.isEmpty ? ["-"] : files
        // Two cores when there are two (the process's affinity: `taskset -c 0` gives one).
        let parallel = ProcessInfo.processInfo.activeProcessorCount >= 2
        // One loop for every format, --encrypt-to included (its valid records sealed as they are
        // written: `RecordWriter.seal`), on two cores where there are two.
        let tally = runToCompletion { await Self.check(paths, with: records, parallel: parallel) }
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
        /// With `--encrypt-to`: each valid record written sealed (`seal`, CheckSealing.swift).
        var sealer: CardSealer?

        /// Checks each line of `lines` (whole lines, each ending in a line break but perhaps the
        /// last of the input), numbered from `after + 1`; returns the last line's number. A line
        /// of 1 MiB or more is one `record_format` record, as `LineReader` hands it out.
        func check(lines: Span<UInt8>, after: Int, tally: inout Tally, to out: inout [UInt8]) -> Int {
            var number = after
            var start = 0
            while start < lines.count {
                var end = start
                while end < lines.count && lines[end] != UInt8(ascii: "\n") { end += 1 }
                number += 1
                let truncated = end - start >= LineReader.longestLine
                let line = lines.extracting(start..<(truncated ? start + LineReader.longestLine : end))
                check(line: line, truncated: truncated, number: number, tally: &tally, to: &out)
                start = end + 1
            }
            return number
        }

        /// One line (`check(line:truncated:number:tally:)`), its result appended to `out`.
        @inline(__always)
        func check(line: Span<UInt8>, truncated: Bool, number: Int, tally: inout Tally, to out: inout [UInt8]) {
            guard let result = check(line: line, truncated: truncated, number: number, tally: &tally) else { return }
            if let sealer {
                seal(result, line: line, number: number, sealer: sealer, tally: &tally, to: &out)
            } else {
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

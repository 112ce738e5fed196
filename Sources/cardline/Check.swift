import ArgumentParser
import CardPrompt

#if canImport(Glibc)
import Glibc
#endif

/// `cardline check`: validates card records in bulk, streaming, in constant memory.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate card records in bulk: NUMBER[,EXPIRY[,CVV]] per line, JSON Lines out.",
        usage: "cardline check [<options>] [<FILE> ...]",
        discussion: """
            Reads each FILE in turn (standard input when none, or for -). Spaces and dashes may \
            stand inside the number; EXPIRY is MM/YY or MM/YYYY. Blank lines and lines starting \
            with # are skipped. One result per record, in input order; numbers masked to first \
            six and last four; security codes never printed. A summary goes to stderr.

            errors: record_format, number_format, unknown_network, length, luhn, expiry_format, \
            expired, expiry_too_far, cvv_format, cvv_length, network_not_accepted (with \
            --networks).

            Exit status: 0 every record valid; 1 some record invalid; 65 some record not in the \
            NUMBER[,EXPIRY[,CVV]] format; 66 a file cannot be read; 74 standard output could not \
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
        var tally = (records: 0, valid: 0, malformed: 0, unreadable: 0)
        let progress = isatty(2) == 1 ? Progress() : nil
        // Read once: property-wrapper getters inside the loop showed up in the profile.
        let format = self.format, unmasked = self.unmasked
        for path in files.isEmpty ? ["-"] : files where !Terminal.outputFailed {
            let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                Terminal.writeError("cardline: error: cannot read \(path): \(String(cString: strerror(errno)))\n")
                tally.unreadable += 1
                continue
            }
            defer { if fd != 0 { close(fd) } }
            progress?.start(size: fileSize(fd))
            var lineNumber = 0
            // Stops once stdout has failed: nobody reads the results (`… | cardline check | head -1`).
            let completed = LineReader(fd: fd).forEachLine(stop: { Terminal.outputFailed }) { line, truncated in
                lineNumber += 1
                guard let first = line.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }),
                      first != UInt8(ascii: "#") else { return }
                let result = checker.check(line, truncated: truncated)
                tally.records += 1
                if result.valid { tally.valid += 1 }
                if result.has(.recordFormat) { tally.malformed += 1 }
                switch format {
                case .json: checker.appendJSON(result, line: lineNumber, unmasked: unmasked, to: &output.pending)
                case .text: checker.appendText(result, line: lineNumber, unmasked: unmasked, to: &output.pending)
                case .summary: break
                }
                output.flushIfFull()
                progress?.advance(records: tally.records, bytes: line.count + 1)
            }
            if !completed {
                Terminal.writeError("cardline: error: reading \(path) failed: \(String(cString: strerror(errno)))\n")
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

    private func fileSize(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}

/// Reads a file descriptor in 64 KiB chunks and hands out lines without their line break,
/// so memory stays constant however large the input. A line longer than 1 MiB is handed out
/// once, as its first 1 MiB marked truncated; the rest of it is skipped, so it is still one
/// record and the line numbers after it stay right.
struct LineReader {
    let fd: Int32
    static let chunk = 64 * 1024
    static let longestLine = 1024 * 1024

    /// Calls `body` with each line and whether it was truncated, until `stop` (asked before each
    /// read of a chunk) says to stop; false when a read failed.
    func forEachLine(stop: () -> Bool = { false }, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> Void) -> Bool {
        var buffer = [UInt8](repeating: 0, count: Self.chunk * 2)
        var filled = 0
        var skipping = false  // inside the rest of an over-long line
        while !stop() {
            if filled == buffer.count {
                if buffer.count >= Self.longestLine {
                    buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<filled]), true) }
                    filled = 0
                    skipping = true
                } else {
                    buffer.append(contentsOf: repeatElement(0, count: buffer.count))
                }
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            if count == 0 {
                if filled > 0 && !skipping { buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<filled]), false) } }
                return true
            }
            let end = filled + count
            var start = 0
            buffer.withUnsafeBufferPointer { bytes in
                for i in filled..<end where bytes[i] == UInt8(ascii: "\n") {
                    if skipping {
                        skipping = false  // the over-long line ends here
                    } else {
                        body(UnsafeBufferPointer(rebasing: bytes[start..<i]), false)
                    }
                    start = i + 1
                }
            }
            if skipping {
                filled = 0  // still inside the over-long line: drop what was read
                continue
            }
            // Keep the unfinished line at the front.
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { bytes in
                    bytes.baseAddress!.update(from: bytes.baseAddress! + start, count: end - start)
                }
            }
            filled = end - start
        }
        return true
    }
}

/// Collects output and writes it in 64 KiB blocks.
struct BufferedOutput {
    let fd: Int32
    /// Bytes not written yet; append to it, then call `flushIfFull`.
    var pending: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        pending.reserveCapacity(70 * 1024)
    }

    mutating func flushIfFull() {
        if pending.count >= 64 * 1024 { flush() }
    }

    /// Writes what is pending; a failure is remembered by `Terminal` (stdout) and ends the run.
    mutating func flush() {
        pending.withUnsafeBufferPointer { Terminal.write($0, to: fd) }
        pending.removeAll(keepingCapacity: true)
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
        began = Progress.now()
    }

    func advance(records: Int, bytes count: Int) {
        bytes += count
        guard records % 4096 == 0 else { return }
        let now = Progress.now()
        guard now - lastShown >= 0.5 else { return }
        lastShown = now
        let rate = Double(records) / max(now - began, 1e-9)
        var text = "\r\(records) records, \(Int(rate)) records/s"
        if let size, bytes > 0 {
            let remaining = Double(size - bytes) / (Double(bytes) / (now - began))
            text += ", \(Int(Double(bytes) * 100 / Double(size)))%, ETA \(Int(remaining.rounded()))s"
        }
        Terminal.writeError(text + "\u{1B}[K")
    }

    func finish() {
        if lastShown > 0 { Terminal.writeError("\r\u{1B}[K") }
    }
}

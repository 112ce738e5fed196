import CardPrompt
import CardSeal

#if canImport(Glibc)
    import Glibc
#endif

/// `check --encrypt-to`: each valid record sealed for the recipient's key, streaming, so that a
/// legacy card file can go to a processor without a clear copy on the way. A path of its own
/// beside `check`'s JSON Lines loop, which stays as it is: every record is checked and counted
/// by the same `RecordWriter`; a valid one is then written as
/// `{"line":N,` followed by the sealed card's members (`CardSealer`), an invalid one as
/// `check` writes it (masked). A record with no expiry cannot be sealed: it is invalid, its
/// `check` line says so (`"valid":false`, `"errors":["expiry_missing"]`), and stderr says why.
extension Check {
    /// What is wrong with `--encrypt-to` and `--encrypt-format` beside the other options.
    var sealingProblem: String? {
        guard encryptTo != nil else { return encryptFormat == nil ? nil : Sealing.formatWithoutKey }
        if unmasked { return "--encrypt-to and --unmasked: give one (with --encrypt-to no card is written in clear)" }
        if format != .json {
            return "--encrypt-to writes JSON Lines; it cannot be used with --format \(format.rawValue)"
        }
        return nil
    }

    /// Checks and seals the records of the files in turn, one at a time, in input order.
    static func seal(_ paths: [String], with records: RecordWriter, sealer: CardSealer) -> Tally {
        var output = BufferedOutput(fd: 1)
        var tally = Tally()
        for path in paths where !Terminal.outputFailed {
            guard let fd = Check.openInput(path, tally: &tally) else { continue }
            defer { if fd != 0 { close(fd) } }
            var reader = LineReader(fd: fd)
            var lineNumber = 0
            while !Terminal.outputFailed, let (block, truncated) = reader.next() {
                var start = 0
                while start < block.count && !Terminal.outputFailed {
                    var end = start
                    while end < block.count && block[end] != UInt8(ascii: "\n") { end += 1 }
                    lineNumber += 1
                    let cut = truncated || end - start >= LineReader.longestLine
                    let line = block.span.extracting(start..<min(end, start + LineReader.longestLine))
                    seal(
                        line, truncated: cut, number: lineNumber, records: records, sealer: sealer,
                        tally: &tally, output: &output)
                    start = end + 1
                }
                Check.scrubStack()  // (the records' digits left on the stack by checking them)
                reader.recycle(block)
            }
            Check.reportFailure(of: reader, path, tally: &tally)
        }
        output.flush()
        return tally
    }

    /// One line: checked and counted once by `records` (`RecordWriter.check`), then sealed when
    /// valid, else written as `check` writes it.
    private static func seal(
        _ line: Span<UInt8>, truncated: Bool, number: Int, records: RecordWriter, sealer: CardSealer,
        tally: inout Tally, output: inout BufferedOutput
    ) {
        var counts = Tally()
        let checked = records.check(line: line, truncated: truncated, number: number, tally: &counts)
        output.messages += counts.messages
        defer {
            tally.add(counts)
            output.flushIfFull()
        }
        guard let result = checked else { return }  // (a blank or comment line)
        guard result.valid else {
            records.write(result, line: number, to: &output.pending)
            return
        }
        let checker = records.checker
        guard var card = checker.card(of: result, line: line) else {
            // (Valid with no expiry: the one way `card(of:)` gives none.)
            counts.valid = 0
            output.messages += "cardline: line \(number): not encrypted: the record has no expiry\n".utf8
            checker.appendJSON(result.requiringExpiry(), line: number, unmasked: false, to: &output.pending)
            return
        }
        defer { card.wipe() }
        var sealed: [UInt8] = []
        do {
            try sealer.appendSealed(card, to: &sealed)
        } catch {
            counts.valid = 0
            output.messages += "cardline: line \(number): not encrypted: the encryption failed\n".utf8
            records.write(result, line: number, to: &output.pending)
            return
        }
        output.pending += #"{"line":"#.utf8
        output.pending += String(number).utf8
        output.pending += ",".utf8
        output.pending += sealed.dropFirst()
        output.pending.append(UInt8(ascii: "\n"))
    }
}

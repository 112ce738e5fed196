import CardPrompt
import CardSeal

#if canImport(Glibc)
    import Glibc
#endif

/// `check --encrypt-to`: each valid record sealed for the recipient's key, streaming, so that a
/// legacy card file can go to a processor without a clear copy on the way. The same loop as
/// every `check` (on two cores where there are two): the `RecordWriter` seals a valid record as
/// it writes it (`seal`).
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
}

extension Check.RecordWriter {
    /// A record checked with `--encrypt-to` (`check(lines:…)`, the one loop of every format): a
    /// valid one written as `{"line":N,` followed by the sealed card's members (`CardSealer`),
    /// an invalid one as `check` writes it (masked). A valid record with no expiry cannot be
    /// sealed: it is counted invalid, its line says so (`"valid":false`,
    /// `"errors":["expiry_missing"]`), and stderr says why; so is one whose sealing fails.
    func seal(
        _ result: CardCheck.Result, line: Span<UInt8>, number: Int, sealer: CardSealer, tally: inout Check.Tally,
        to out: inout [UInt8]
    ) {
        guard result.valid else { return write(result, line: number, to: &out) }
        guard var card = checker.card(of: result, line: line) else {
            // (Valid with no expiry: the one way `card(of:)` gives none.)
            tally.valid -= 1
            tally.messages += (notePrefix(line: number) + "not encrypted: the record has no expiry\n").utf8
            checker.appendJSON(result.requiringExpiry(), line: number, file: file?.json, unmasked: false, to: &out)
            return
        }
        defer { card.wipe() }
        var sealed: [UInt8] = []
        do {
            try sealer.appendSealed(card, to: &sealed)
        } catch {
            tally.valid -= 1
            tally.messages += (notePrefix(line: number) + "not encrypted: the encryption failed\n").utf8
            write(result, line: number, to: &out)
            return
        }
        out += #"{"line":"#.utf8
        out += String(number).utf8
        if let file {
            out += #","file":"#.utf8
            out += file.json
        }
        out += ",".utf8
        out += sealed.dropFirst()
        out.append(UInt8(ascii: "\n"))
    }
}

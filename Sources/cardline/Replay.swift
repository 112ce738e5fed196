import ArgumentParser
import CardPrompt
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `cardline replay`: runs `.session` scripts through the entry engine and checks them.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay .session scripts through the entry engine and check their @expect lines.",
        usage: "cardline replay [<options>] <FILE|DIR> ...",
        discussion: """
            A folder stands for every *.session file below it, sorted. For each script: the \
            transcript (numbers masked), then PASS or FAIL with each failed expectation as \
            file:line: expected ..., got .... When x.expected sits beside x.session the transcript \
            must equal it. Ends with "N passed, M failed" (on standard error with --json, so \
            standard output holds only JSON Lines).

            Rules: the bundled ones (unless @no-default-rules), --rules and the script's @rules \
            lines only; the personal folder ($XDG_CONFIG_HOME/cardline/rules), CARDLINE_RULES \
            and CARDLINE_NETWORKS are not read, so a script replays the same on every machine.

            Exit status: 0 all passed; 1 an expectation or golden failed (or --update rewrote a \
            golden); 65 a script or rule file is malformed; 66 a file or folder (a script, a \
            golden) cannot be read; 74 --update could not rewrite a golden, or standard output \
            could not be written (full, or a closed pipe: then it stops at once, with no \
            message).
            """)

    @Argument(
        help: ArgumentHelp("Scripts, or folders of *.session scripts.", valueName: "FILE|DIR"),
        completion: Completions.sessionFiles)
    var paths: [String]

    @OptionGroup var options: EntryOptions

    @Flag(
        help: "Print one JSON object per script (JSON Lines on stdout; the summary on stderr) instead of transcripts.")
    var json = false

    @Flag(help: "Rewrite each existing .expected file whose transcript changed, atomically (the run still fails).")
    var update = false

    func run() throws {
        ProcessProtection.apply(lockingMemory: true)
        var tally = Tally()
        let scripts = findScripts(&tally)
        // A script replays the same on every machine: the bundled rules, --rules and its own
        // @rules lines only, never the user's folder, CARDLINE_RULES or CARDLINE_NETWORKS.
        let baseFolders = options.rules.folders(personal: false)
        // Broken rules: refuse to start, rather than replay with a network missing.
        let (baseRules, baseAccepted) = try options.rules.loadOrExit(
            accepting: options.acceptedNetworksText(environment: false), personal: false)
        let today = options.expiryPolicy.today
        // Read once: a flag's getter costs hundreds of instructions, and the transcript
        // closures below run for every line.
        let json = self.json
        let update = self.update
        // Once stdout has failed nobody reads the results (`… | head -1`): stop.
        for path in scripts where !Terminal.outputFailed {
            // A first pass reads the whole script: its header, whether it is well formed (a
            // malformed one prints no transcript) and which stretches `@expect message` asks
            // about. The replay then reads it again, line by line, never holding it whole.
            var parser = SessionScript.LineParser()
            parser.keepingKeys = false
            var messageChecks = Replayer.MessageChecks()
            var syntaxError: SessionScript.SyntaxError?
            do throws(Files.Failure) {
                guard
                    try ScriptReader.forEachLine(
                        of: path,
                        { line in
                            guard syntaxError == nil else { return }
                            do throws(SessionScript.SyntaxError) {
                                if let step = try parser.next(bytes: line) {
                                    messageChecks.note(step.kind)
                                }
                            } catch {
                                syntaxError = error
                            }
                        })
                else { throw Files.Failure(errno: ENOENT) }
            } catch {
                Complaint.unreadable(path, error.reason)
                tally.unreadable += 1
                continue
            }
            if let error = syntaxError {
                reportMalformed(
                    path,
                    "\(path.escapingControlCharacters):\(error.line):\(error.column): error: \(error.message.escapingControlCharacters)"
                )
                tally.malformed += 1
                continue
            }
            let script = parser.header
            let rules: RuleSet
            let directory = Paths.directory(of: path)
            let scriptFolders = script.ruleFolders.map {
                $0.hasPrefix("/") ? $0 : (directory.isEmpty ? $0 : directory + "/" + $0)
            }
            // `@no-default-rules` leaves the bundled folder out; `@retired` matches retired networks.
            let folders =
                (script.bundledRules
                    ? baseFolders
                    : RuleSources.folders(bundled: false, extra: options.rules.ruleFolders, personal: false))
                + scriptFolders
            let retired = options.rules.retired || script.retiredNetworks
            guard !folders.isEmpty else {
                reportMalformed(
                    path,
                    "\(path.escapingControlCharacters):\(script.noDefaultRulesLine):1: error: @no-default-rules leaves no rule folder to read; add @rules DIR, or pass --rules DIR"
                )
                tally.malformed += 1
                continue
            }
            do {
                rules =
                    try folders == baseFolders && retired == options.rules.retired
                    ? baseRules : RuleSources.load(folders: folders, includeRetired: retired)
            } catch {
                Terminal.writeError("\(error)".escapingControlCharacters(keepingLineBreaks: true) + "\n")
                // Name the @rules line whose folder is at fault, when one is.
                let said = "\(error)"
                let culprit = zip(
                    zip(script.ruleFolders, scriptFolders), zip(script.ruleFolderLines, script.ruleFolderColumns)
                )
                .first { said.contains($0.0.1.escapingControlCharacters) }
                let failure =
                    culprit.map {
                        "\(path.escapingControlCharacters):\($0.1.0):\($0.1.1): error: @rules \($0.0.0.escapingControlCharacters): the folder cannot be read or its rule files are broken (above)"
                    }
                    ?? "\(path.escapingControlCharacters): error: the rule files it uses are broken"
                reportMalformed(path, failure)
                tally.malformed += 1
                continue
            }
            var accepted = baseAccepted
            if let (list, line) = script.acceptedNetworks {
                do throws(AcceptedNetworks.UnknownNetwork) {
                    accepted = try AcceptedNetworks.parse(list, in: rules)
                } catch {
                    let column = Self.column(ofUnknownNetworkIn: list, startingAt: script.networksColumn, rules: rules)
                    reportMalformed(
                        path, "\(path.escapingControlCharacters):\(line):\(column): error: @networks: \(error.message)")
                    tally.malformed += 1
                    continue
                }
            }
            var securityCodeOnly: CardNetwork?
            if let name = script.securityCodeOnlyNetwork {
                do throws(AcceptedNetworks.UnknownNetwork) {
                    securityCodeOnly = try AcceptedNetworks.network(named: name, in: rules)
                } catch {
                    reportMalformed(
                        path,
                        "\(path.escapingControlCharacters):\(script.securityCodeOnlyLine):\(script.securityCodeOnlyColumn): error: @cvv-only: \(error.message)"
                    )
                    tally.malformed += 1
                    continue
                }
            }
            let loader = RuleSources.loader(folders: folders, includeRetired: retired)
            /// One replay of the script, each transcript line handed to `transcript`.
            /// `complete`: the whole script ran (not stopped by a read or syntax problem or failed output).
            func replay(_ transcript: (Span<UInt8>) -> Void) -> (failures: [String], cards: [UInt8], complete: Bool) {
                var replayer = Replayer(
                    script: script, rules: rules, today: today, accepted: accepted,
                    reloadingWith: loader, messageChecks: messageChecks, securityCodeOnly: securityCodeOnly)
                // The accepted cards' records, kept only for --json.
                if json { replayer.cardRecords = [] }
                var parser = SessionScript.LineParser()
                parser.knownAIDs = rules.knownAIDs
                var problem: String?
                do throws(Files.Failure) {
                    // Once stdout has failed nobody reads the transcript: stop.
                    let stopped = { Terminal.outputFailed || problem != nil }
                    _ = try ScriptReader.forEachLine(of: path, stop: stopped) { line in
                        do throws(SessionScript.SyntaxError) {
                            if let step = try parser.next(bytes: line) {
                                replayer.perform(step, transcript: transcript)
                            }
                        } catch {
                            problem =
                                "\(path.escapingControlCharacters):\(error.line):\(error.column): error: \(error.message.escapingControlCharacters)"
                        }
                    }
                } catch {
                    problem = "\(path.escapingControlCharacters): error: cannot read the file: \(error.reason)"
                }
                replayer.finish(transcript: transcript)
                // (A problem here means the file changed since the first pass.)
                return (
                    replayer.failures.map { "\(path.escapingControlCharacters):\($0.line): \($0.message)" }
                        + (problem.map { [$0] } ?? []), replayer.cardRecords ?? [],
                    problem == nil && !Terminal.outputFailed
                )
            }
            // Streamed in blocks: a generated script's transcript runs to millions of lines.
            var printer = TranscriptPrinter(path: path)
            let golden = (path.hasSuffix(".session") ? String(path.dropLast(".session".count)) : path) + ".expected"
            var result: (failures: [String], cards: [UInt8], complete: Bool)?
            var goldenFailures: [String] = []
            // A golden that cannot be read or rewritten: said on standard error (`Complaint`).
            var goldenErrors: [String] = []
            do throws(Files.Failure) {
                if var comparison = try GoldenComparison(golden, keepingDifference: !update) {
                    // Streamed beside the golden, line by line, as it is made.
                    result = replay { line in
                        comparison.compare(line)
                        if !json && !update { printer.write(line) }
                    }
                    let difference = try comparison.finish()
                    if update {
                        if difference != nil {
                            goldenErrors = rewrite(golden, with: replay, tally: &tally)
                            if !json { result = replay { printer.write($0) } }
                        } else if !json {
                            result = replay { printer.write($0) }
                        }
                    } else if let difference {
                        goldenFailures = [
                            "\(golden.escapingControlCharacters): the transcript differs (- expected, + actual):\n"
                                + difference
                        ]
                    }
                } else {
                    result = replay { line in if !json { printer.write(line) } }
                }
            } catch {
                let message = Complaint.errorPrefix + "cannot read \(golden.escapingControlCharacters): \(error.reason)"
                Terminal.writeError(message + "\n")
                tally.unreadableGoldens += 1
                goldenErrors = [message]
                // Replayed again only if the transcript has not been printed yet.
                if result == nil || (update && !json) { result = replay { line in if !json { printer.write(line) } } }
            }
            printer.flush()
            guard let result else { continue }  // (every path above has replayed)
            let failures = result.failures + goldenFailures
            report(path, failures: failures, errors: goldenErrors, cards: result.cards)
            if failures.isEmpty && goldenErrors.isEmpty { tally.passed += 1 } else { tally.failed += 1 }
        }
        // Output failed: the run was cut short; `Cardline.main` reports it (74).
        if Terminal.outputFailed { return }
        let failed = tally.failed + tally.malformed + tally.unreadable
        // With --json, stdout holds JSON Lines only: the summary is for people, on stderr.
        if json {
            Terminal.writeError("\(tally.passed) passed, \(failed) failed\n")
        } else {
            Terminal.writeOut("\n\(tally.passed) passed, \(failed) failed\n")
        }
        if tally.unwritableGoldens > 0 { throw ExitStatus.ioError }
        if tally.unreadable > 0 || tally.unreadableGoldens > 0 { throw ExitStatus.unreadable }
        if tally.malformed > 0 { throw ExitStatus.badRules }
        if tally.failed > 0 || tally.updated > 0 { throw ExitStatus.rejected }
    }

    /// Scripts by outcome (`passed`, `failed`, `malformed`, `unreadable` add up to the scripts),
    /// and goldens rewritten, unreadable or not rewritten (their scripts count as failed).
    struct Tally {
        var passed = 0, failed = 0, malformed = 0, unreadable = 0, updated = 0
        var unreadableGoldens = 0, unwritableGoldens = 0
    }

    /// The scripts named, folders expanded to their *.session files (sorted). A folder with
    /// none is an error, not a pass.
    func findScripts(_ tally: inout Tally) -> [String] {
        var scripts: [String] = []
        for path in paths {
            guard let isDirectory = Paths.isDirectory(path) else {
                Complaint.unreadable(path, "no such file or folder")
                tally.unreadable += 1
                continue
            }
            guard isDirectory else {
                scripts.append(path)
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            let found = ((try? FileManager.default.subpathsOfDirectory(atPath: base)) ?? [])
                .filter { $0.hasSuffix(".session") }.sorted().map { base + "/" + $0 }
            if found.isEmpty {
                Complaint.write("no .session files in the folder \(path.escapingControlCharacters)")
                tally.unreadable += 1
            }
            scripts += found
        }
        return scripts
    }

    /// Rewrites a golden (atomically) with a fresh replay's transcript; says so, or why not (on
    /// standard error, the reason returned for the script's result).
    /// A golden --update cannot rewrite fails the script and the run (74).
    func rewrite(
        _ golden: String, with replay: ((Span<UInt8>) -> Void) -> (failures: [String], cards: [UInt8], complete: Bool),
        tally: inout Tally
    ) -> [String] {
        let lineBreak: [UInt8] = [UInt8(ascii: "\n")]
        do throws(Files.Failure) {
            var replacement = try Files.Replacement(golden)
            let replayed = replay { line in
                replacement.write(line)
                replacement.write(lineBreak.span)
            }
            // A replay cut short would leave a golden cut short: the old one stays (dropping
            // the replacement removes its temporary file).
            guard replayed.complete else {
                let message =
                    Complaint.errorPrefix
                    + "\(golden.escapingControlCharacters) not updated: the replay did not run to the end"
                Terminal.writeError(message + "\n")
                return [message]
            }
            try replacement.commit()
            Terminal.write("updated \(golden.escapingControlCharacters)\n", to: json ? 2 : 1)
            tally.updated += 1
            return []
        } catch {
            let message = Complaint.errorPrefix + "cannot rewrite \(golden.escapingControlCharacters): \(error.reason)"
            Terminal.writeError(message + "\n")
            tally.unwritableGoldens += 1
            return [message]
        }
    }

    /// A script that cannot be replayed (malformed, or its rules or networks are): its located
    /// error is said once, on standard error, then its FAIL line (with --json, its object, which
    /// lists the error too).
    func reportMalformed(_ path: String, _ failure: String) {
        Terminal.writeError(failure + "\n")
        report(path, failures: [], errors: [failure], cards: [])
    }

    /// The column of the first entry of `@networks`' `list` that `rules` do not know (the list
    /// starts at `start`), for the located error: the list's own column when no single entry
    /// is at fault (it names no network at all).
    static func column(ofUnknownNetworkIn list: String, startingAt start: Int, rules: RuleSet) -> Int {
        var column = start
        for entry in list.split(separator: ",", omittingEmptySubsequences: false) {
            let blanks = entry.unicodeScalars.prefix { $0 == " " || $0 == "\t" }.count
            if blanks < entry.unicodeScalars.count, (try? AcceptedNetworks.parse(String(entry), in: rules)) == nil {
                return column + blanks
            }
            column += entry.unicodeScalars.count + 1
        }
        return start
    }

    /// Prints a script's result: with --json one object (its cards the card records the
    /// replayer kept, `Replayer.cardRecords`: masked with `*`, no number or code), otherwise
    /// each failure and PASS or FAIL. `errors` (said already on standard error) fail the script
    /// too, and are listed in its object.
    func report(_ path: String, failures: [String], errors: [String] = [], cards: [UInt8]) {
        if json {
            var output = BufferedOutput(fd: 1)
            let failureObjects = (errors + failures).map { "{\"message\":\($0.jsonQuoted)}" }.joined(separator: ",")
            output.pending +=
                "{\"file\":\(path.jsonQuoted),\"passed\":\(failures.isEmpty && errors.isEmpty),\"failures\":[\(failureObjects)],\"cards\":["
                .utf8
            output.write(cards, messages: [])
            output.pending += "]}\n".utf8
            output.flush()
        } else {
            Terminal.writeOut(
                failures.map { $0 + "\n" }.joined() + (failures.isEmpty && errors.isEmpty ? "PASS " : "FAIL ")
                    + path.escapingControlCharacters + "\n")
        }
    }
}

/// Prints a script's transcript to stdout, indented, after an `== path` line, in 64 KiB
/// blocks. (Its capacity reserved once: this runs for every transcript line.) A value, written
/// from the closures the replay is handed, which do not escape: its accesses are checked when
/// compiled, where a class's stored properties are checked at run time on every line.
struct TranscriptPrinter {
    private let path: String
    private var buffer: [UInt8] = []
    private let capacity = 64 * 1024
    private var headed = false

    init(path: String) {
        self.path = path
        buffer.reserveCapacity(capacity)
    }

    /// One line, without its "\n".
    mutating func write(_ line: Span<UInt8>) {
        if !headed {
            headed = true
            buffer += "== \(path.escapingControlCharacters)\n".utf8
        }
        if buffer.count + line.count + 3 > capacity { flush() }
        guard buffer.count + line.count + 3 <= capacity else {
            // A line longer than the buffer: written as it is.
            let indent: [UInt8] = [0x20, 0x20]
            let lineBreak: [UInt8] = [0x0A]
            Terminal.write(indent.span, to: 1)
            Terminal.write(line, to: 1)
            Terminal.write(lineBreak.span, to: 1)
            return
        }
        buffer.append(0x20)
        buffer.append(0x20)
        buffer.append(line)
        buffer.append(0x0A)
    }

    /// Writes what is buffered.
    mutating func flush() {
        Terminal.write(buffer.span, to: 1)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads a script line by line (each without its "\n", the last one too, even when empty),
/// in 64 KiB chunks: a line may be of any length, the file of any size.
enum ScriptReader {
    /// Calls `body` with each line of the file at `path`, until `stop` says to stop; false
    /// when there is nothing there at all; throws when it cannot be read (`Files.open`).
    static func forEachLine(of path: String, stop: () -> Bool = { false }, _ body: (Span<UInt8>) -> Void) throws(Files
        .Failure) -> Bool
    {
        guard let fd = try Files.open(path) else { return false }
        defer { close(fd) }
        var partial: [UInt8] = []
        var stopped = false
        try Files.forEachChunk(of: fd) { chunk in
            guard !stopped else { return }
            var start = 0
            for end in 0..<chunk.count where chunk[end] == UInt8(ascii: "\n") {
                if stopped { break }
                let piece = chunk.extracting(start..<end)
                if partial.isEmpty {
                    body(piece)
                } else {
                    partial.append(piece)
                    body(partial.span)
                    partial.removeAll(keepingCapacity: true)
                }
                start = end + 1
                stopped = stop()
            }
            if !stopped { partial.append(chunk.extracting(start...)) }
        }
        if !stopped { body(partial.span) }
        return true
    }
}

/// A golden transcript compared with the transcript as it is made, line by line, read as it is
/// needed. Lines are equal as text (as Swift compares strings), so the verdict is the same as
/// comparing the whole texts. From the first line that differs on, the rest of both is kept,
/// to show the difference: the lines between the common head and tail, as - and + lines.
struct GoldenComparison {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var exhausted = false  // every golden line has been handed out
    private let keepingDifference: Bool
    /// The index of the first line that differs, once one does.
    private var firstDifference: Int?
    private var lineIndex = 0
    private var expectedRest: [String] = []
    private var actualRest: [String] = []
    private var readFailure: Files.Failure?

    /// The golden at `path`, open; nil when there is none.
    init?(_ path: String, keepingDifference: Bool) throws(Files.Failure) {
        guard let fd = try Files.open(path) else { return nil }
        self.fd = fd
        self.keepingDifference = keepingDifference
    }

    /// The next line of the golden (the piece after its last "\n" is a line too, even empty);
    /// nil after that.
    private mutating func nextExpected() -> [UInt8]? {
        guard !exhausted else { return nil }
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return Array(buffer[start..<newline])
            }
            if atEnd {
                exhausted = true
                defer { start = buffer.count }
                return Array(buffer[start...])
            }
            buffer.removeSubrange(0..<start)
            start = 0
            let count = Paths.read(fd, appendingTo: &buffer, limit: 64 * 1024)
            if count < 0 {
                if errno == EINTR { continue }
                readFailure = Files.Failure()
                atEnd = true
            } else if count == 0 {
                atEnd = true
            }
        }
    }

    /// Compares the next line of the transcript.
    mutating func compare(_ line: Span<UInt8>) {
        compare(piece: line)
    }

    private mutating func compare(piece line: Span<UInt8>) {
        defer { lineIndex += 1 }
        if firstDifference != nil {
            if keepingDifference { actualRest.append(Self.text(line)) }
            return
        }
        guard let expected = nextExpected() else {
            firstDifference = lineIndex
            if keepingDifference { actualRest.append(Self.text(line)) }
            return
        }
        if expected.count == line.count && expected.indices.allSatisfy({ expected[$0] == line[$0] }) { return }
        let actual = Self.text(line)
        let wanted = String(decoding: expected, as: UTF8.self)
        if actual == wanted { return }
        firstDifference = lineIndex
        if keepingDifference {
            actualRest.append(actual)
            expectedRest.append(wanted)
        }
    }

    /// A transcript line as text.
    private static func text(_ line: Span<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.append(line)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Ends the comparison (the transcript ends with "\n": an empty last piece); nil when the
    /// texts are equal, else the difference (empty without `keepingDifference`).
    /// Throws when reading the golden failed part way (it cannot be compared, nor rewritten).
    consuming func finish() throws(Files.Failure) -> String? {
        defer { close(fd) }
        let nothing: [UInt8] = []
        compare(piece: nothing.span)
        if firstDifference == nil, nextExpected() != nil { firstDifference = lineIndex }
        if let readFailure { throw readFailure }
        guard let head = firstDifference else { return nil }
        guard keepingDifference else { return "" }
        while let line = nextExpected() { expectedRest.append(String(decoding: line, as: UTF8.self)) }
        if let readFailure { throw readFailure }
        var tail = 0
        let a = expectedRest
        let b = actualRest
        while tail < min(a.count, b.count) && a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
        let removed = a[..<(a.count - tail)].map { "  -" + $0.escapingControlCharacters }
        let added = b[..<(b.count - tail)].map { "  +" + $0.escapingControlCharacters }
        return "  @@ line \(head + 1)\n" + (removed + added).joined(separator: "\n")
    }
}

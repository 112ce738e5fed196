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

            Rules: the bundled ones, --rules and the script's @rules lines only; the personal \
            folder ($XDG_CONFIG_HOME/cardline/rules), CARDLINE_RULES and CARDLINE_NETWORKS are \
            not read, so a script replays the same on every machine.

            Exit status: 0 all passed; 1 an expectation or golden failed (or --update rewrote a \
            golden); 65 a script or rule file is malformed; 66 a file or folder (a script, a \
            golden) cannot be read; 74 --update could not rewrite a golden, or standard output \
            could not be written (full, or a closed pipe: then it stops at once, with no \
            message).
            """)

    @Argument(help: ArgumentHelp("Scripts, or folders of *.session scripts.", valueName: "FILE|DIR"))
    var paths: [String]

    @OptionGroup var options: EntryOptions

    @Flag(help: "Print one JSON object per script (JSON Lines on stdout; the summary on stderr) instead of transcripts.")
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
        let (baseRules, baseAccepted) = try options.rules.loadOrExit(accepting: options.acceptedNetworksText(environment: false), personal: false)
        let today = options.expiryPolicy.today
        // Once stdout has failed nobody reads the results (`… | head -1`): stop.
        for path in scripts where !Terminal.outputFailed {
            let data: [UInt8]
            do throws(Files.Failure) {
                guard let contents = try Files.read(path) else { throw Files.Failure(errno: ENOENT) }
                data = contents
            } catch {
                Terminal.writeError("\(path): error: cannot read the file: \(error.reason)\n")
                tally.unreadable += 1
                continue
            }
            let script: SessionScript
            do {
                script = try SessionScript.parse(String(decoding: data, as: UTF8.self))
            } catch {
                Terminal.writeError("\(path):\(error.line):\(error.column): error: \(error.message)\n")
                report(path, failures: ["\(path):\(error.line):\(error.column): error: \(error.message)"], cards: [])
                tally.malformed += 1
                continue
            }
            let rules: RuleSet
            let directory = Paths.directory(of: path)
            let scriptFolders = script.ruleFolders.map { $0.hasPrefix("/") ? $0 : (directory.isEmpty ? $0 : directory + "/" + $0) }
            let folders = baseFolders + scriptFolders
            do {
                rules = try folders == baseFolders ? baseRules : RuleSources.load(folders: folders, includeRetired: options.rules.retired)
            } catch {
                Terminal.writeError("\(error)\n")
                // Name the @rules line whose folder is at fault, when one is.
                let said = "\(error)"
                let culprit = zip(zip(script.ruleFolders, scriptFolders), script.ruleFolderLines)
                    .first { said.contains($0.0.1.escapingControlCharacters) }
                let failure = culprit.map { "\(path):\($0.1):8: error: @rules \($0.0.0.escapingControlCharacters): the folder cannot be read or its rule files are broken (above)" }
                    ?? "\(path): error: the rule files it uses are broken"
                if culprit != nil { Terminal.writeError(failure + "\n") }
                report(path, failures: [failure], cards: [])
                tally.malformed += 1
                continue
            }
            var accepted = baseAccepted
            if let (list, line) = script.acceptedNetworks {
                do throws(AcceptedNetworks.UnknownNetwork) {
                    accepted = try AcceptedNetworks.parse(list, in: rules)
                } catch {
                    Terminal.writeError("\(path):\(line):11: error: @networks: \(error.message)\n")
                    report(path, failures: ["\(path):\(line):11: error: @networks: \(error.message)"], cards: [])
                    tally.malformed += 1
                    continue
                }
            }
            let result = CardKit.Replay.run(script, rules: rules, today: today, accepted: accepted,
                                            reloadingWith: RuleSources.loader(folders: folders, includeRetired: options.rules.retired))
            var failures = result.failures.map { "\(path):\($0.line): \($0.message)" }
            failures += checkGolden(for: path, transcript: result.transcriptText, tally: &tally)
            if !json {
                // Streamed in blocks: a generated script's transcript runs to hundreds of thousands of lines.
                var output = BufferedOutput(fd: 1)
                output.pending += "== \(path)\n".utf8
                result.transcriptText.withUnsafeBufferPointer { text in
                    var start = 0
                    for end in 0..<text.count where text[end] == UInt8(ascii: "\n") {
                        output.pending += "  ".utf8
                        output.pending += UnsafeBufferPointer(rebasing: text[start...end])
                        output.flushIfFull()
                        start = end + 1
                    }
                }
                output.flush()
            }
            report(path, failures: failures, cards: result.cards)
            if failures.isEmpty { tally.passed += 1 } else { tally.failed += 1 }
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
                Terminal.writeError("\(path): error: no such file or folder\n")
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
                Terminal.writeError("\(path): error: no .session files in this folder\n")
                tally.unreadable += 1
            }
            scripts += found
        }
        return scripts
    }

    /// Compares the transcript with `x.expected` beside `x.session`, if there is one; with
    /// --update, rewrites it (atomically) instead. A golden that is there but cannot be read
    /// (no permission, a dangling link, a folder) fails the script and the run (66), as does
    /// one --update cannot rewrite (74); each is also said on stderr.
    func checkGolden(for path: String, transcript: [UInt8], tally: inout Tally) -> [String] {
        let golden = (path.hasSuffix(".session") ? String(path.dropLast(".session".count)) : path) + ".expected"
        let data: [UInt8]
        do throws(Files.Failure) {
            guard let contents = try Files.read(golden) else { return [] }
            data = contents
        } catch {
            let message = "\(golden): error: cannot read it: \(error.reason)"
            Terminal.writeError(message + "\n")
            tally.unreadableGoldens += 1
            return [message]
        }
        let actual = String(decoding: transcript, as: UTF8.self)
        let expected = String(decoding: data, as: UTF8.self)
        guard actual != expected else { return [] }
        if update {
            do throws(Files.Failure) {
                try Files.replace(golden, with: transcript)
                Terminal.write("updated \(golden)\n", to: json ? 2 : 1)
                tally.updated += 1
                return []
            } catch {
                let message = "\(golden): error: cannot rewrite it: \(error.reason)"
                Terminal.writeError(message + "\n")
                tally.unwritableGoldens += 1
                return [message]
            }
        }
        return ["\(golden): the transcript differs (- expected, + actual):\n" + lineDiff(expected, actual)]
    }

    func report(_ path: String, failures: [String], cards: [CardTray.Card]) {
        if json {
            // Numbers masked with `•`, not check's `*`: the failures quote transcript lines and
            // the cards are the tray's, screen text both (README, "Security: what is kept, and where").
            let failureObjects = failures.map { "{\"message\":\($0.jsonQuoted)}" }.joined(separator: ",")
            let cardObjects = cards.map {
                "{\"network\":\($0.networkID.jsonQuoted),\"number\":\($0.maskedNumber.jsonQuoted),\"expiry\":\($0.expiry.cardText.jsonQuoted)}"
            }.joined(separator: ",")
            Terminal.writeOut("{\"file\":\(path.jsonQuoted),\"passed\":\(failures.isEmpty),\"failures\":[\(failureObjects)],\"cards\":[\(cardObjects)]}\n")
        } else {
            Terminal.writeOut(failures.map { $0 + "\n" }.joined() + (failures.isEmpty ? "PASS " : "FAIL ") + path + "\n")
        }
    }
}

/// The lines between the common head and tail of two texts, as - and + lines.
func lineDiff(_ old: String, _ new: String) -> String {
    let a = old.split(separator: "\n", omittingEmptySubsequences: false)
    let b = new.split(separator: "\n", omittingEmptySubsequences: false)
    var head = 0
    while head < min(a.count, b.count) && a[head] == b[head] { head += 1 }
    var tail = 0
    while tail < min(a.count, b.count) - head && a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
    let removed = a[head..<(a.count - tail)].map { "  -" + $0 }
    let added = b[head..<(b.count - tail)].map { "  +" + $0 }
    return "  @@ line \(head + 1)\n" + (removed + added).joined(separator: "\n")
}

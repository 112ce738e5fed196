import ArgumentParser
import CardChip
import CardPrompt
import FoundationEssentials

/// `cardline rules …`: what a rule author needs to add, check and try a network.
struct Rules: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List, show, test, lint and sample card-network rules.",
        subcommands: [List.self, Show.self, Test.self, Lint.self, Sample.self, Diff.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the loaded networks and the folder (and file) each came from.",
            usage: "cardline rules list [<options>]")
        @OptionGroup var rules: RuleOptions
        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        func run() throws {
            let set = try rules.loadOrExit()
            // Retired networks (not matched unless --retired) are listed too, after the others,
            // under a line of their own.
            let all = set.networks + set.retired
            let networks = all.filter { $0.status != .retired } + all.filter { $0.status == .retired }
            if json {
                Terminal.writeOut("[\n" + networks.map { "  " + $0.json }.joined(separator: ",\n") + "\n]\n")
                return
            }
            // FROM: the number of the folder a file was read from (the folders are named once,
            // under the table), and the file inside it when it is not named after the id.
            let folders = rules.folders()
            let rows =
                [["ID", "NAME", "PATTERNS", "LENGTHS", "CODE", "FROM"]]
                + networks.map { network in
                    [
                        network.id,
                        network.name.escapingControlCharacters,
                        network.patternSummary,
                        network.lengthSummary, network.securityCodeSummary,
                        RuleFolderPaths.shown(network.file, id: network.id, folders: folders).escapingControlCharacters,
                    ]
                }
            // The patterns and the lengths give way; the id, which people type, the name and
            // where the file is, never.
            var table = TextTable(rows: rows, shrinking: [2, 3])
            table.narrowest = [2: 6, 3: 5]
            let used = Set(networks.compactMap { RuleFolderPaths.folderIndex(of: $0.file, folders: folders) })
            let footer = folders.indices.filter(used.contains).map {
                "FROM \($0 + 1): \(RuleFolderPaths.shownFolder(folders[$0]).escapingControlCharacters)\n"
            }
            var lines = table.lines(fitting: Terminal.outputColumns)
            if let first = networks.firstIndex(where: { $0.status == .retired }) {
                lines.insert("retired (matched only with --retired):", at: first + 1)
            }
            Terminal.writeOut(lines.map { $0 + "\n" }.joined() + footer.joined())
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one network in full.", usage: "cardline rules show [<options>] <id>",
            discussion: "Exit status: 0, or 1 when no network has that id.")
        @OptionGroup var rules: RuleOptions
        @Argument(help: "The network's id, like american-express.", completion: Completions.networkID)
        var id: String

        func run() throws {
            let set = try rules.loadOrExit()
            // By id, or by logo name ("amex" finds american-express).
            guard let network = set.anyNetwork(named: id) else {
                let guess = NetworkNames.suggestion(for: id, among: set.networks + set.retired)
                Complaint.write(
                    "no network has the id `\(id.escapingControlCharacters)`",
                    hint: guess.map { "did you mean `\($0)`?" })
                throw ExitStatus.rejected
            }
            // A number moves on by itself only at its pattern's longest length (LengthSet.completeness).
            let advance = network.lengths.last.map(String.init) ?? "-"
            Terminal.writeOut(
                """
                \(network.id) — \(network.name)
                  file:         \(network.file.escapingControlCharacters)
                  logo:         \(network.logo)\(network.hasFamily ? "\n  family:       \(network.family) (--networks \(network.family) takes it)" : "")
                  status:       \(network.status.rawValue)\(network.status == .retired && set.network(id: network.id) == nil ? " (not matched; --retired matches it)" : "")
                  patterns:     \(network.patterns.enumerated().filter { network.patternLengths[$0.offset] == network.lengths }.map(\.element.description).joined(separator: ", "))
                  lengths:      \(network.lengths.map(String.init).joined(separator: ", ")) (moves on by itself at \(advance))\(network.lengthsForLines.map { "\n  lengths for:  \($0)" }.joined())
                  groups:       \(zip(network.groupings, network.formatHints).map { "\($0.0.map(String.init).joined(separator: " "))  (\($0.1))" }.joined(separator: "; "))
                  code:         \(CardPolicy.securityCode(for: network).name), \(CardPolicy.securityCode(for: network).lengthWords) digits, on the \(network.cvv.side)
                  luhn:         \(network.luhn ? "checked" : "not checked")\(network.luhnExceptions.map { " (\(network.luhn ? "not checked" : "checked") for \($0))" } ?? "")\(network.coBadgedLines.map { "\n  co-badged:    \($0)" }.joined())\(network.aids.isEmpty ? "" : "\n  chip AIDs:    \(network.aids.map(Hex.string).joined(separator: ", "))")

                """)
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Say which network each number matches, which pattern decided it, and whether it is valid.",
            usage: "cardline rules test [<options>] [<numbers> ...]",
            discussion:
                "Spaces and dashes are allowed in numbers. Numbers are printed masked to first six and last four. With no number, makes one number for every pattern of every network (as `rules sample`) and checks that it is a valid number of that network. Exit status: 0 when every number is a complete, valid number (with none given: every pattern is reachable); 1 otherwise."
        )
        @OptionGroup var rules: RuleOptions
        @Argument(help: "Card numbers, whole or partial.")
        var numbers: [String] = []

        func run() throws {
            let set = try rules.loadOrExit()
            if numbers.isEmpty { return try proveReachable(set) }
            var allValid = true
            for text in numbers {
                let report = set.explain(text)
                allValid = allValid && report.valid
                Terminal.writeOut(report.lines.joined(separator: "\n") + "\n")
            }
            if !allValid { throw ExitStatus.rejected }
        }

        /// Every pattern of every network yields a number that the rules attribute to that
        /// network, complete and valid; the unreachable ones are listed.
        func proveReachable(_ set: RuleSet) throws {
            let unreachable = set.unreachablePatterns(includingHiddenNetworks: true)
            let patterns = set.networks.map(\.patterns.count).reduce(0, +)
            var failures = unreachable.map(\.description)
            for network in set.networks {
                var random = SeededRandom(seed: 1)
                for index in network.patterns.indices {
                    guard let number = set.sampleNumber(of: network, pattern: index, round: 0, &random) else {
                        continue
                    }
                    let report = set.explain(CardNumber.string(number))
                    if !report.valid || set.detect(number).network !== network {
                        failures.append(
                            "pattern \(network.patterns[index]) of `\(network.id)`: \(CardNumber.masked(number)) is not a valid \(network.name) number"
                        )
                    }
                }
            }
            Terminal.writeOut(
                failures.map { $0 + "\n" }.joined()
                    + "\(patterns - failures.count) of \(patterns) patterns of \(set.networks.count) networks yield a valid number of their network\n"
            )
            if !failures.isEmpty { throw ExitStatus.rejected }
        }
    }

    struct Sample: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sample",
            abstract: "Print made-up numbers of one network, one per line, for tests and .session scripts.",
            usage: "cardline rules sample [<options>] <id>",
            discussion:
                "Each number lies in one of the network's patterns (each pattern in turn, so --count at least the number of patterns covers all of them), has a length valid for that pattern, passes Luhn when the network checks it, and is detected as that network. The same seed gives the same numbers. A retired network is sampled as if --retired were given. Exit status: 0; 1 when no network has that id or none of its patterns can be reached."
        )
        @OptionGroup var rules: RuleOptions
        @Argument(help: "The network's id (or badge name), like american-express.", completion: Completions.networkID)
        var id: String
        // (unconditional: `--count -1` is a count to refuse, not a missing value)
        @Option(parsing: .unconditional, help: "How many numbers.")
        var count = 10
        @Option(parsing: .unconditional, help: "Seed: the same seed gives the same numbers.")
        var seed: UInt64 = 1

        func validate() throws {
            guard count >= 1 && count <= 1_000_000 else {
                throw ValidationError("--count takes a number from 1 to 1000000; got \(count)")
            }
        }

        func run() throws {
            var set = try rules.loadOrExit()
            guard let found = set.anyNetwork(named: id) else {
                let guess = NetworkNames.suggestion(for: id, among: set.networks + set.retired)
                Complaint.write(
                    "no network has the id `\(id.escapingControlCharacters)`",
                    hint: guess.map { "did you mean `\($0)`?" })
                throw ExitStatus.rejected
            }
            if set.network(id: found.id) == nil {
                do throws(RuleErrors) {
                    set = try set.includingRetired()
                } catch {
                    Terminal.writeError(error.description + "\n")
                    throw ExitStatus.badRules
                }
            }
            let network = set.network(id: found.id)!
            let numbers = set.sampleNumbers(of: network, count: count, seed: seed)
            guard !numbers.isEmpty else {
                Terminal.writeError(
                    "cardline: error: no number can be made for `\(network.id)`: more specific patterns of other networks cover all of its own\n"
                )
                throw ExitStatus.rejected
            }
            Terminal.writeOut(numbers.map { CardNumber.string($0) + "\n" }.joined())
        }
    }

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check rule files: every error and warning with its file, line and column.",
            usage: "cardline rules lint [<options>] [<DIR> ...]",
            discussion:
                "With no folder, checks everything cardline would load. With folders, checks what would be loaded with them added (as --rules), so ties with other networks show. Warns where a pattern overlaps another network's (the more specific one decides those numbers) and neither file's note names the other network. Exit status: 0 when there is no error (warnings allowed), 65 on any error, 66 when a folder cannot be read."
        )
        @OptionGroup var rules: RuleOptions
        @Argument(help: ArgumentHelp("Rule folders to check.", valueName: "DIR"), completion: Completions.ruleFolders)
        var folders: [String] = []

        func run() throws {
            let all = RuleSources.folders(bundled: !rules.noDefaultRules, extra: rules.ruleFolders + folders)
            let read = all.compactMap { try? RuleSources.read(folder: $0) }.flatMap { $0 }
            let files = read.count
            let problems: [RuleError]
            do throws(RuleSources.LoadError) {
                let set = try RuleSources.load(folders: all, includeRetired: rules.retired)
                // Each file's note, by path: an overlap of two networks is explained by either note.
                let notes = Dictionary(read.map { ($0.path, RuleSet.note(ofRuleFile: $0.bytes) ?? "") }) { $1 }
                problems = set.warnings + set.unreachablePatterns() + set.unexplainedOverlaps(notes: notes)
            } catch {
                if case .unreadable = error {
                    Terminal.writeError(error.description + "\n")
                    throw ExitStatus.unreadable
                }
                problems = error.ruleErrors.errors
            }
            let errors = problems.filter { $0.severity == .error }.count
            let warnings = problems.count - errors
            Terminal.writeOut(
                problems.map { $0.description + "\n" }.joined()
                    + "checked \(files) file\(files == 1 ? "" : "s") in \(all.count) folder\(all.count == 1 ? "" : "s"): "
                    + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n")
            if errors > 0 { throw ExitStatus.badRules }
        }
    }
}

extension CardNetwork {
    /// "34, 37" or "401178, 401179, 431274, … (25)".
    var patternSummary: String {
        let shown = patterns.prefix(3).map(\.description).joined(separator: ", ")
        return patterns.count > 3 ? shown + ", … (\(patterns.count))" : shown
    }

    /// The patterns with lengths of their own (`lengthsFor`), grouped by those lengths.
    var lengthsForEntries: [(lengths: [Int], patterns: [IINPattern])] {
        var entries: [(lengths: [Int], patterns: [IINPattern])] = []
        for (pattern, own) in zip(patterns, patternLengths) where own != lengths {
            if let index = entries.firstIndex(where: { $0.lengths == own }) {
                entries[index].patterns.append(pattern)
            } else {
                entries.append((own, [pattern]))
            }
        }
        return entries
    }

    /// "with visa: 4571, 457200-457299", one per `coBadged` entry.
    var coBadgedLines: [String] {
        coBadges.indices.map { entry in
            let patterns = patternTerms.filter { $0.coBadge == entry }.map { self.patterns[$0.pattern].description }
            return "with \(coBadges[entry].with.joined(separator: ", ")): \(patterns.joined(separator: ", "))"
        }
    }

    /// The patterns whose Luhn check is not the network's (an entry's own `luhn`), or nil.
    var luhnExceptions: String? {
        let patterns = patternTerms.filter { $0.luhn != luhn }.map { self.patterns[$0.pattern].description }
        return patterns.isEmpty ? nil : patterns.joined(separator: ", ")
    }

    /// "13, 16, 19: 4026, 417500, 450800-450899", one per `lengthsFor` group.
    var lengthsForLines: [String] {
        lengthsForEntries.map {
            "\($0.lengths.map(String.init).joined(separator: ", ")): \($0.patterns.map(\.description).joined(separator: ", "))"
        }
    }

    /// "13,16,19" or "12-19", every length any pattern allows; "16,19 (+13 for some)" when
    /// some patterns allow lengths the others do not.
    var lengthSummary: String {
        let extra = allLengths.filter { !lengths.contains($0) }
        return Self.runs(lengths) + (extra.isEmpty ? "" : " (+\(Self.runs(extra)) for some)")
    }

    private static func runs(_ lengths: [Int]) -> String {
        var runs: [ClosedRange<Int>] = []
        for length in lengths {
            if let last = runs.last, last.upperBound + 1 == length {
                runs[runs.count - 1] = last.lowerBound...length
            } else {
                runs.append(length...length)
            }
        }
        return runs.map {
            $0.count > 2 ? "\($0.lowerBound)-\($0.upperBound)" : $0.map(String.init).joined(separator: ",")
        }.joined(separator: ",")
    }

    var json: String {
        let patternList = patterns.map { $0.description.jsonQuoted }.joined(separator: ", ")
        func numbers(_ values: [Int]) -> String { "[" + values.map(String.init).joined(separator: ", ") + "]" }
        return
            "{\"id\": \(id.jsonQuoted), \"name\": \(name.jsonQuoted), \"logo\": \(logo.jsonQuoted), \"patterns\": [\(patternList)], "
            + "\"lengths\": \(numbers(lengths)), \"family\": \(family.jsonQuoted), \"groups\": \(groupings.count == 1 ? numbers(groups) : "[" + groupings.map(numbers).joined(separator: ", ") + "]"), "
            + "\"cvv\": {\"name\": \(cvv.name.jsonQuoted), \"length\": \(cvv.length), \"side\": \(cvv.side.jsonQuoted)}, "
            + "\"lengthsFor\": ["
            + lengthsForEntries.map {
                "{\"patterns\": [" + $0.patterns.map { $0.description.jsonQuoted }.joined(separator: ", ")
                    + "], \"lengths\": \(numbers($0.lengths))}"
            }.joined(separator: ", ") + "], "
            + "\"luhn\": \(luhn), \"status\": \(status.rawValue.jsonQuoted), \"file\": \(file.jsonQuoted)}"
    }
}

extension RuleSet {
    /// A network matched or retired, by id or logo name ("amex" finds american-express).
    func anyNetwork(named name: String) -> CardNetwork? {
        let all = networks + retired
        return all.first { $0.id == name } ?? all.first { $0.logo.lowercased() == name.lowercased() }
    }

    /// What `rules test` says about one number.
    func explain(_ text: String) -> (lines: [String], valid: Bool) {
        let allowed = text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == " " || $0 == "-") }
        let digits = text.compactMap { $0.isASCII ? $0.wholeNumberValue.map(UInt8.init) : nil }
        guard allowed, !digits.isEmpty else {
            return (
                [
                    "\(text.escapingControlCharacters)",
                    "  error:     not a card number: only digits, spaces and dashes",
                ], false
            )
        }
        var lines = [CardNumber.masked(digits)]
        let (detection, verdict) = self.verdict(for: digits)
        guard verdict != .noNetwork else {
            // Named by as many first digits as the masked number shows.
            let first = CardPolicy.shownDigits(count: digits.count).first
            let start = first == 0 ? "these digits" : CardNumber.string(digits.prefix(first))
            return (lines + ["  network:   none — no network starts with \(start)", "  verdict:   invalid"], false)
        }
        guard let network = detection.network, let completeness = verdict.completeness else {
            let candidates = self.candidates(digits)
            return (
                lines + [
                    "  network:   not decided yet; could still be \(candidates.map(\.id).joined(separator: ", "))",
                    "  verdict:   incomplete",
                ], false
            )
        }
        let pattern = decidingPattern(detection, digits).map(\.description) ?? "?"
        lines.append(
            "  network:   \(network.id) (\(network.name)), decided by pattern \(pattern) in \(network.file.escapingControlCharacters)"
        )
        if detection.isCoBadged {
            // The card is also the `with` networks' (reported as the first: the prompt, `check`).
            lines.append(
                "  co-badged: also \(detection.coBadged.map(\.id).joined(separator: ", ")); reported as \(detection.networks[0].id)"
            )
        }
        // The deciding pattern's lengths (a `lengthsFor` pattern has its own).
        let lengths = detection.lengths
        let allowedLengths = lengths.lengths.map(String.init).joined(separator: ", ")
        // "for 4026" when the lengths are the deciding pattern's own and not the network's.
        let own = decidingPatternIndex(detection, digits).map { network.patternLengths[$0] }
        let patternNote = own == lengths.lengths && own != network.lengths ? " for \(pattern)" : ""
        let lengthWord: String
        switch completeness {
        case .final: lengthWord = "valid"
        case .completeCanGrow: lengthWord = "valid, could grow to \(lengths.max)"
        case .incomplete: lengthWord = "incomplete"
        case .notALength: lengthWord = "invalid"
        }
        lines.append(
            "  length:    \(digits.count) — \(lengthWord) (\(network.name) allows \(allowedLengths)\(patternNote))")
        let luhnWord: String
        switch verdict {
        case _ where !network.requiresLuhn(digits, decidingLength: detection.decidingLength):
            luhnWord = network.luhn ? "not checked for \(pattern)" : "not checked for \(network.name)"
        case .wrongLength: luhnWord = "not checked until the length is valid"
        case .failsLuhn: luhnWord = "fails"
        default: luhnWord = "passes"
        }
        lines.append("  luhn:      " + luhnWord)
        lines.append(
            "  verdict:   " + (verdict.isValid ? "valid" : completeness == .incomplete ? "incomplete" : "invalid"))
        return (lines, verdict.isValid)
    }
}

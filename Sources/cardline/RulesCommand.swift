import ArgumentParser
import CardPrompt
import FoundationEssentials

/// `cardline rules …`: what a rule author needs to add, check and try a network.
struct Rules: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List, show, test and lint card-network rules.",
        subcommands: [List.self, Show.self, Test.self, Lint.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the loaded networks and the file each came from.")
        @OptionGroup var rules: RuleOptions
        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        func run() throws {
            let set = try rules.loadOrExit()
            if json {
                Terminal.writeOut("[\n" + set.networks.map { "  " + $0.json }.joined(separator: ",\n") + "\n]\n")
                return
            }
            let rows = [["ID", "NAME", "PATTERNS", "LENGTHS", "CODE", "FILE"]] + set.networks.map { network in
                [network.id, network.name, network.patternSummary, network.lengthSummary,
                 "\(network.cvv.name) \(network.cvv.length)", network.file]
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max()! }
            Terminal.writeOut(rows.map { row in
                row.enumerated().map { $0 < 5 ? $1 + String(repeating: " ", count: widths[$0] + 2 - $1.count) : $1 }.joined() + "\n"
            }.joined())
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one network in full.", discussion: "Exit status: 0, or 1 when no network has that id.")
        @OptionGroup var rules: RuleOptions
        @Argument(help: "The network's id, like american-express.")
        var id: String

        func run() throws {
            let set = try rules.loadOrExit()
            // By id, or by logo name ("amex" finds american-express).
            guard let network = set.network(id: id) ?? set.networks.first(where: { $0.logo.lowercased() == id.lowercased() }) else {
                let guess = closest(to: id, in: set.networks.map(\.id))
                Terminal.writeError("cardline: error: no network has the id `\(id)`" + (guess.map { "; did you mean `\($0)`?" } ?? "") + "\n")
                throw ExitStatus.rejected
            }
            let advance = network.autoAdvanceLengths.map(String.init).joined(separator: ", ")
            Terminal.writeOut("""
                \(network.id) — \(network.name)
                  file:         \(network.file)
                  logo:         \(network.logo)
                  patterns:     \(network.patterns.map(\.description).joined(separator: ", "))
                  lengths:      \(network.lengths.map(String.init).joined(separator: ", ")) (moves on by itself at \(advance))
                  groups:       \(network.groups.map(String.init).joined(separator: " "))  (\(network.formatHint))
                  code:         \(network.cvv.name), \(network.cvv.length) digits, on the \(network.cvv.side)
                  luhn:         \(network.luhn ? "checked" : "not checked")

                """)
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Say which network each number matches, which pattern decided it, and whether it is valid.",
            usage: "cardline rules test [<options>] <numbers> ...",
            discussion: "Spaces and dashes are allowed in numbers. Numbers are printed masked to first six and last four. Exit status: 0 when every number is a complete, valid number; 1 otherwise.")
        @OptionGroup var rules: RuleOptions
        @Argument(help: "Card numbers, whole or partial.")
        var numbers: [String]

        func run() throws {
            let set = try rules.loadOrExit()
            var allValid = true
            for text in numbers {
                let report = set.explain(text)
                allValid = allValid && report.valid
                Terminal.writeOut(report.lines.joined(separator: "\n") + "\n")
            }
            if !allValid { throw ExitStatus.rejected }
        }
    }

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check rule files: every error and warning with its file, line and column.",
            discussion: "With no folder, checks everything cardline would load. With folders, checks what would be loaded with them added (as --rules), so ties with other networks show. Exit status: 0 when there is no error (warnings allowed), 65 on any error, 66 when a folder cannot be read.")
        @OptionGroup var rules: RuleOptions
        @Argument(help: ArgumentHelp("Rule folders to check.", valueName: "DIR"))
        var folders: [String] = []

        func run() throws {
            let all = RuleSources.folders(bundled: !rules.noDefaultRules, extra: rules.ruleFolders + folders)
            let files = all.compactMap { try? RuleSources.read(folder: $0) }.map(\.count).reduce(0, +)
            let problems: [RuleError]
            do throws(RuleSources.LoadError) {
                problems = try RuleSources.load(folders: all).warnings
            } catch {
                if case .unreadable = error {
                    Terminal.writeError(error.description + "\n")
                    throw ExitStatus.unreadable
                }
                problems = error.ruleErrors.errors
            }
            let errors = problems.filter { $0.severity == .error }.count
            let warnings = problems.count - errors
            Terminal.writeOut(problems.map { $0.description + "\n" }.joined()
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

    /// "13,16,19" or "12-19".
    var lengthSummary: String {
        var runs: [ClosedRange<Int>] = []
        for length in lengths {
            if let last = runs.last, last.upperBound + 1 == length { runs[runs.count - 1] = last.lowerBound...length } else { runs.append(length...length) }
        }
        return runs.map { $0.count > 2 ? "\($0.lowerBound)-\($0.upperBound)" : $0.map(String.init).joined(separator: ",") }.joined(separator: ",")
    }

    var json: String {
        let patternList = patterns.map { $0.description.jsonQuoted }.joined(separator: ", ")
        func numbers(_ values: [Int]) -> String { "[" + values.map(String.init).joined(separator: ", ") + "]" }
        return "{\"id\": \(id.jsonQuoted), \"name\": \(name.jsonQuoted), \"logo\": \(logo.jsonQuoted), \"patterns\": [\(patternList)], "
            + "\"lengths\": \(numbers(lengths)), \"autoAdvance\": \(numbers(autoAdvanceLengths)), \"groups\": \(numbers(groups)), "
            + "\"cvv\": {\"name\": \(cvv.name.jsonQuoted), \"length\": \(cvv.length), \"side\": \(cvv.side.jsonQuoted)}, "
            + "\"luhn\": \(luhn), \"file\": \(file.jsonQuoted)}"
    }
}

extension RuleSet {
    /// What `rules test` says about one number.
    func explain(_ text: String) -> (lines: [String], valid: Bool) {
        let allowed = text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == " " || $0 == "-") }
        let digits = text.compactMap { $0.isASCII ? $0.wholeNumberValue.map(UInt8.init) : nil }
        guard allowed, !digits.isEmpty else {
            return (["\(CardNumber.maskingDigits(in: text))", "  error:     not a card number: only digits, spaces and dashes"], false)
        }
        var lines = [CardNumber.masked(digits)]
        let detection = detect(digits)
        guard detection.hasCandidates else {
            return (lines + ["  network:   none — no network starts with \(CardNumber.string(digits.prefix(6)))", "  verdict:   invalid"], false)
        }
        guard let network = detection.network else {
            let candidates = self.candidates(digits)
            return (lines + ["  network:   not decided yet; could still be \(candidates.map(\.id).joined(separator: ", "))",
                             "  verdict:   incomplete"], false)
        }
        let pattern = decidingPattern(detection, digits).map(\.description) ?? "?"
        lines.append("  network:   \(network.id) (\(network.name)), decided by pattern \(pattern) in \(network.file)")
        let lengthOK = network.lengths.contains(digits.count)
        let allowedLengths = network.lengths.map(String.init).joined(separator: ", ")
        lines.append("  length:    \(digits.count) — \(lengthOK ? "valid" : digits.count < network.maxLength ? "incomplete" : "invalid") (\(network.name) allows \(allowedLengths))")
        let luhnOK = !network.luhn || CardNumber.passesLuhn(digits)
        lines.append("  luhn:      " + (!network.luhn ? "not checked for \(network.name)" : !lengthOK ? "not checked until the length is valid" : luhnOK ? "passes" : "fails"))
        let valid = lengthOK && luhnOK
        lines.append("  verdict:   " + (valid ? "valid" : !lengthOK && digits.count < network.maxLength ? "incomplete" : "invalid"))
        return (lines, valid)
    }
}

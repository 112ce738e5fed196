import ArgumentParser
import CardPrompt

extension Rules {
    /// `cardline rules diff`: which numbers a change of rule folders moves, and how.
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract:
                "Show every stretch of card numbers whose network, lengths, Luhn, code, co-badging or grouping a rule change moves.",
            usage:
                "cardline rules diff [<options>] (BEFORE AFTER | --bundled AFTER)",
            discussion: """
                Each side is the bundled networks, then the --rules folders, then that side's \
                folder (a file overrides another by id), so a folder holding one edited copy of \
                a bundled file shows just that edit; with --bundled, BEFORE is the bundled \
                networks (and --rules) alone. Your own folder and CARDLINE_RULES are never read. \
                Every stretch of prefixes whose outcome differs is printed once, merged with its \
                neighbours, with what it was and what it is and how many numbers of each length \
                that is; networks added or removed are listed with their patterns. Found by \
                walking both sets' patterns side by side, not by sampling.

                Exit status: 0 no difference; 1 differences (as diff(1)); 64 wrong arguments; \
                65 a rule file is malformed; 66 a folder cannot be read.
                """)

        @OptionGroup var rules: RuleOptions
        @Flag(help: "Compare the bundled networks (with --rules) against AFTER.")
        var bundled = false
        @Flag(help: "Print one JSON object per difference (JSON Lines) instead of lines for people.")
        var json = false
        @Argument(
            help: ArgumentHelp("The rule folders before and after.", valueName: "DIR"),
            completion: Completions.ruleFolders)
        var sides: [String] = []

        func validate() throws {
            let wanted = bundled ? 1 : 2
            guard sides.count == wanted else {
                throw ValidationError(
                    bundled ? "with --bundled, give one folder: AFTER" : "give two rule folders: BEFORE and AFTER")
            }
        }

        func run() throws {
            let base = RuleSources.folders(bundled: !rules.noDefaultRules, extra: rules.ruleFolders, personal: false)
            let before = try load(bundled ? base : base + [sides[0]])
            let after = try load(base + [sides[bundled ? 0 : 1]])
            let diff = RuleDiff(before, after)
            Terminal.writeOut(json ? Self.jsonLines(diff) : Self.lines(diff))
            if !diff.isEmpty { throw ExitStatus.rejected }
        }

        private func load(_ folders: [String]) throws -> RuleSet {
            do throws(RuleSources.LoadError) {
                return try RuleSources.load(folders: folders, includeRetired: rules.retired)
            } catch {
                Terminal.writeError(error.description + "\n")
                throw error.exitCode
            }
        }

        /// The stretch's bounds as short as they can be written: `2221 00–2720 99`, `4`.
        static func range(_ difference: RuleDiff.Difference) -> String {
            var low = difference.low
            var high = difference.high
            while low.count > 1 && low.last == "0" && high.last == "9" {
                low.removeLast()
                high.removeLast()
            }
            return low == high ? low : "\(low)–\(high)"
        }

        static func lines(_ diff: RuleDiff) -> String {
            var out = ""
            for network in diff.removed {
                out += "removed: \(network.id.escapingControlCharacters) (\(network.patternSummary))\n"
            }
            for network in diff.added {
                out += "added: \(network.id.escapingControlCharacters) (\(network.patternSummary))\n"
            }
            for difference in diff.differences {
                let was = difference.before?.description ?? "no network"
                let now = difference.after?.description ?? "no network"
                let counts = difference.numbers.map { "\($0.length) digits: ≈ \(scientific($0.count))" }
                let only = difference.length.map { ", \($0)-digit numbers" } ?? ""
                out +=
                    "\(range(difference))\(only): \(was.escapingControlCharacters) → \(now.escapingControlCharacters)"
                    + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")) numbers)") + "\n"
            }
            if diff.isEmpty { out += "no difference\n" }
            return out
        }

        static func jsonLines(_ diff: RuleDiff) -> String {
            func outcome(_ outcome: RuleDiff.Outcome?) -> String {
                guard let outcome else { return "null" }
                return """
                    {"network":\(outcome.network.jsonQuoted),"lengths":[\(outcome.lengths.map(String.init).joined(separator: ","))],\
                    "luhn":\(outcome.luhn),"code":\(outcome.code.jsonQuoted),\
                    "code_lengths":[\(outcome.codeLengths.map(String.init).joined(separator: ","))],\
                    "co_badged":[\(outcome.coBadged.map(\.jsonQuoted).joined(separator: ","))],\
                    "groups":[\(outcome.groups.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: ","))],"retired":\(outcome.retired)}
                    """
            }
            var out = ""
            for (kind, networks) in [("removed", diff.removed), ("added", diff.added)] {
                for network in networks {
                    let patterns = network.patterns.map { $0.description.jsonQuoted }.joined(separator: ",")
                    out += "{\"\(kind)\":\(network.id.jsonQuoted),\"patterns\":[\(patterns)]}\n"
                }
            }
            for difference in diff.differences {
                let numbers = difference.numbers.map { "\"\($0.length)\":\($0.count)" }
                out +=
                    "{\"low\":\"\(difference.low)\",\"high\":\"\(difference.high)\","
                    + (difference.length.map { "\"length\":\($0)," } ?? "")
                    + "\"before\":\(outcome(difference.before)),"
                    + "\"after\":\(outcome(difference.after)),\"numbers\":{\(numbers.joined(separator: ","))}}\n"
            }
            return out
        }

        /// `5.0 × 10¹³`; small counts as they are.
        static func scientific(_ value: Double) -> String {
            guard value >= 10_000 else { return String(Int(value)) }
            var exponent = 0
            var mantissa = value
            while mantissa >= 10 {
                mantissa /= 10
                exponent += 1
            }
            var tenths = Int((mantissa * 10).rounded())
            if tenths == 100 {
                tenths = 10
                exponent += 1
            }
            let superscripts: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
            let power = String(String(exponent).map { superscripts[Int(String($0))!] })
            return "\(tenths / 10).\(tenths % 10) × 10" + power
        }
    }
}

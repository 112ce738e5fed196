import ArgumentParser
import CardKit

/// Where rules come from: shared by every command that loads them.
struct RuleOptions: ParsableArguments {
    @Option(name: .customLong("rules"), help: ArgumentHelp("Also load the rule files in DIR (repeatable; later folders override earlier ones by id).", valueName: "DIR"))
    var ruleFolders: [String] = []

    @Flag(help: "Do not load the bundled networks (only your own rule folders).")
    var noDefaultRules = false

    /// The folders to read, in priority order.
    var folders: [String] { RuleSources.folders(bundled: !noDefaultRules, extra: ruleFolders) }

    /// Loads the rules, printing any warnings; prints located errors and exits 65 (66 for an
    /// unreadable folder) when they cannot be used.
    func loadOrExit() throws -> RuleSet {
        do {
            let rules = try RuleSources.load(folders: folders)
            if !rules.warnings.isEmpty { Terminal.writeError(rules.warnings.map { $0.description + "\n" }.joined()) }
            return rules
        } catch {
            Terminal.writeError(error.description + "\n")
            throw error.exitCode
        }
    }

    /// Reads the same folders again, for `:reload`.
    var loader: EntryEngine.RuleLoader { RuleSources.loader(folders: folders) }
}

/// Options shared by every command that runs the entry engine.
struct EntryOptions: ParsableArguments {
    @OptionGroup var rules: RuleOptions

    @Option(help: ArgumentHelp("Pin today's date for expiry checks.", valueName: "YYYY-MM"))
    var today: String?

    @Flag(help: "Never use colour (also off with NO_COLOR, TERM=dumb, or when stdout is not a terminal).")
    var noColor = false

    func validate() throws {
        if let today, YearMonth(iso: today) == nil {
            throw ValidationError("--today takes a year and month as YYYY-MM, like 2026-11; got '\(today)'")
        }
    }

    var expiryPolicy: ExpiryPolicy {
        ExpiryPolicy(today: today.flatMap(YearMonth.init(iso:)) ?? SystemClock.currentMonth())
    }
}

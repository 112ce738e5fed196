import ArgumentParser
import CardPrompt

#if canImport(Glibc)
    import Glibc
#endif

/// Where rules come from: shared by every command that loads them.
struct RuleOptions: ParsableArguments {
    @Option(
        name: .customLong("rules"),
        help: ArgumentHelp(
            "Also load the rule files in DIR (repeatable; later folders override earlier ones by id).", valueName: "DIR"
        ), completion: Completions.ruleFolders)
    var ruleFolders: [String] = []

    @Flag(help: "Do not load the bundled networks (only your own rule folders).")
    var noDefaultRules = false

    @Flag(
        help:
            "Also match retired networks (\"status\": \"retired\", like Switch or Laser), whose numbers now belong to others."
    )
    var retired = false

    /// The folders to read, in priority order; without the user's folder and `CARDLINE_RULES`
    /// unless `personal` (`replay` reads only the bundled rules and `--rules`).
    func folders(personal: Bool = true) -> [String] {
        RuleSources.folders(bundled: !noDefaultRules, extra: ruleFolders, personal: personal)
    }

    /// Loads the rules, printing any warnings; prints located errors and exits 65 (66 for an
    /// unreadable folder) when they cannot be used.
    func loadOrExit(personal: Bool = true) throws -> RuleSet {
        do {
            let rules = try RuleSources.load(folders: folders(personal: personal), includeRetired: retired)
            if !rules.warnings.isEmpty { Terminal.writeError(rules.warnings.map { $0.description + "\n" }.joined()) }
            return rules
        } catch {
            Terminal.writeError(error.description + "\n")
            throw error.exitCode
        }
    }

    /// Loads the rules, then the accepted networks from `list` (nil when none given); an
    /// unknown network is a usage error (exit 64) with a did-you-mean.
    func loadOrExit(accepting list: (text: String, source: String)?, personal: Bool = true) throws -> (
        RuleSet, AcceptedNetworks?
    ) {
        let rules = try loadOrExit(personal: personal)
        guard let list else { return (rules, nil) }
        do throws(AcceptedNetworks.UnknownNetwork) {
            return (rules, try AcceptedNetworks.parse(list.text, in: rules))
        } catch {
            Complaint.write("\(list.source): \(error.message)")
            throw ExitStatus.usage
        }
    }

    /// Reads the same folders again, for `:reload`.
    var loader: EntryEngine.RuleLoader { RuleSources.loader(folders: folders(), includeRetired: retired) }
}

/// Options shared by every command that runs the entry engine.
struct EntryOptions: ParsableArguments {
    @OptionGroup var rules: RuleOptions

    @Option(help: ArgumentHelp("Pin today's date for expiry checks.", valueName: "YYYY-MM"))
    var today: String?

    @Flag(
        help:
            "Never use colour (also off with NO_COLOR, on a terminal without colours by terminfo, TERM=dumb or unset, or when the output is not a terminal)."
    )
    var noColor = false

    @Option(
        name: .customLong("networks"),
        help: ArgumentHelp(
            "Accept only these networks (ids or badge names, comma-separated, like visa,mastercard,amex; an id takes its family too: visa takes Visa Electron); numbers of others are refused. Also CARDLINE_NETWORKS for the prompt and check.",
            valueName: "LIST"), completion: Completions.networkList)
    var networks: String?

    /// `--networks`, or for the prompt and `check` (`environment`) `CARDLINE_NETWORKS` when set
    /// and not empty; with where it came from, for messages.
    func acceptedNetworksText(environment: Bool) -> (text: String, source: String)? {
        if let networks { return (networks, "--networks") }
        guard environment, let value = Environment.value("CARDLINE_NETWORKS") else { return nil }
        return (value, "CARDLINE_NETWORKS")
    }

    func validate() throws {
        if let today, YearMonth(iso: today) == nil {
            throw ValidationError("--today takes a year and month as YYYY-MM, like 2026-11; got `\(today)`")
        }
    }

    /// `--today`, when given.
    var todayMonth: YearMonth? { today.flatMap(YearMonth.init(iso:)) }

    var expiryPolicy: ExpiryPolicy {
        ExpiryPolicy(today: todayMonth ?? YearMonth.current())
    }
}

extension RuleSources.LoadError {
    /// 66 for an unreadable folder, 65 for broken rule files.
    var exitCode: ExitCode {
        if case .unreadable = self { return ExitStatus.unreadable }
        return ExitStatus.badRules
    }
}

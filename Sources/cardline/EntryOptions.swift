import ArgumentParser
import CardKit

/// Options shared by every command that runs the entry engine.
struct EntryOptions: ParsableArguments {
    @Option(name: .customLong("rules"), help: ArgumentHelp("Also load the rule files in DIR (repeatable; later folders override earlier ones).", valueName: "DIR"))
    var ruleFolders: [String] = []

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

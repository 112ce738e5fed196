import ArgumentParser
import CardPrompt

@main
struct Cardline: ParsableCommand {
    /// `cardline --version` alone is answered before argument-parser builds its command tree
    /// (most of the start-up time, measured with callgrind); anything else goes through it.
    static func main() {
        // Before anything reads card data: no core dumps. Memory is locked by the commands
        // that handle card data (`enter`, `check`, `replay`), so `--version`, `--help` and
        // `rules` do not pay for it.
        ProcessProtection.apply(lockingMemory: false)
        if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "--version" {
            print(configuration.version)
            return
        }
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "cardline",
        abstract: "Enter payment cards at a terminal, every keystroke checked against card-network rules.",
        discussion: """
            With no subcommand, opens the card-entry prompt. With --print (or --print-fd N) each accepted card is written whole, as one line of JSON, for the calling script; the prompt is then drawn on the terminal (/dev/tty). When stdin is not a terminal, each input line is typed into the same engine.

            Exit status: 0 success (with --print, --print-fd or --once: a card was delivered); 1 the person gave up with no card delivered, or a card was rejected or input ended mid-card (piped input); 64 bad usage; 65 a rule file is wrong; 66 a rule folder cannot be read; 74 a card could not be delivered.
            """,
        version: "0.1.0",
        subcommands: [Enter.self, Replay.self, Rules.self, Check.self],
        defaultSubcommand: Enter.self
    )
}

/// The exit codes cardline uses, as documented in the README.
enum ExitStatus {
    static let rejected = ExitCode(1)
    static let usage = ExitCode(64)
    static let badRules = ExitCode(65)
    static let unreadable = ExitCode(66)
    /// A card could not be written to the caller, or there is no terminal to ask on.
    static let ioError = ExitCode(74)
}

import ArgumentParser
import CardKit
import LineEditor

#if canImport(Glibc)
import Glibc
#endif

/// The default command: the card-entry prompt (or the plain-line path on a pipe).
struct Enter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enter",  // named, not derived from the type: deriving costs start-up time
        abstract: "Open the card-entry prompt (the default command).")

    @OptionGroup var options: EntryOptions

    @Flag(help: "Do not read or write the command history file.")
    var noHistory = false

    func run() throws {
        let rules = try options.rules.loadOrExit()
        let interactive = isatty(0) == 1 && isatty(1) == 1
        let style = Style(colour: Terminal.wantsColour(disabled: options.noColor))
        let history = noHistory ? nil : CommandHistoryFile.standard()
        let engine = EntryEngine(rules: rules, expiryPolicy: options.expiryPolicy,
                                 commandHistory: history?.load() ?? [])
        let record: (String) -> Void = { line in history?.append(line) }

        if interactive {
            let editor = InteractiveEditor(engine: engine, style: style, onCommand: record, reloadingWith: options.rules.loader)
            editor.run()
            return
        }
        var reader = PlainLineReader(engine: engine, style: style, write: Terminal.writeOut, onCommand: record,
                                     reloadingWith: options.rules.loader)
        let result = reader.run(lines: StandardInputLines())
        if case .someRejected = result { throw ExitStatus.rejected }
    }
}

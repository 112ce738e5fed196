import ArgumentParser
import CardPrompt
import FoundationEssentials

/// `cardline messages`: the prompt's message catalogs.
struct Messages: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Check the prompt's message catalogs (its words in each language).",
        subcommands: [Lint.self])

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check message catalogs: every error and warning with its file, line and column.",
            usage: "cardline messages lint [<FILE> ...]",
            discussion:
                "With no file, checks every catalog cardline would read: the user's folder ($XDG_CONFIG_HOME/cardline/messages), CARDLINE_MESSAGES and an installed share/cardline/messages. A catalog is {\"language\": \"de\", \"messages\": {\"label.number\": \"Kartennummer\", ...}}; an id it leaves out is shown in English. Exit status: 0 when there is no error (warnings allowed), 65 on any error, 66 when a file cannot be read."
        )
        @Argument(help: ArgumentHelp("Catalog files to check.", valueName: "FILE"))
        var files: [String] = []

        func run() throws {
            var paths = files
            if paths.isEmpty {
                for folder in MessageSources.folders(extra: []) {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                    paths += names.filter { $0.hasSuffix(".json") }.sorted().map {
                        (folder.hasSuffix("/") ? folder : folder + "/") + $0
                    }
                }
            }
            var problems: [RuleError] = []
            for path in paths {
                let bytes: [UInt8]
                do throws(Paths.Unreadable) {
                    bytes = try Paths.contents(of: path, limit: MessageSources.largestFile)
                } catch {
                    Complaint.write(MessageSources.unreadable(path, error))
                    throw ExitStatus.unreadable
                }
                problems += MessageCatalog.read(bytes, file: path).problems
            }
            let errors = problems.filter { $0.severity == .error }.count
            let warnings = problems.count - errors
            Terminal.writeOut(
                problems.map { $0.description + "\n" }.joined()
                    + "checked \(paths.count) catalog\(paths.count == 1 ? "" : "s"): "
                    + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n")
            if errors > 0 { throw ExitStatus.badRules }
        }
    }
}

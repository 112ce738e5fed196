import ArgumentParser
import CardPrompt

/// The one style of cardline's errors about how it was called: every command-line mistake and
/// every file or folder that cannot be read is one `cardline: error: …` line on standard
/// error, then, when there is a fix to suggest, one `cardline: hint: …` line. Errors inside a
/// file keep their located form (`file:line:col: error: …`, from `RuleError` and the session
/// parser) and refused piped lines theirs (`✗ line N: …`, `PlainLineReader`).
enum Complaint {
    static let errorPrefix = "cardline: error: "
    static let hintPrefix = "cardline: hint: "

    /// The lines for `message` and its `hint`. A message that ends in "; did you mean …?"
    /// (CardKit's messages do) has that part moved to the hint line, unless a hint is given;
    /// an unknown network's that ends in " (known: …)" (every id) has the hint of where they are
    /// listed; shorter lists (a postal code's countries) stay on the line.
    static func text(_ message: String, hint: String? = nil) -> String {
        // Masked and escaped whole, before anything cuts it into rows: a number cut across
        // rows is no longer seen as one.
        var message = message.escapingControlCharacters(keepingLineBreaks: true)
        var hint = hint?.escapingControlCharacters(keepingLineBreaks: true)
        if hint == nil, message.hasSuffix("?"), let range = message.ranges(of: "; did you mean ").last {
            hint = "did you mean " + message[range.upperBound...]
            message = String(message[..<range.lowerBound])
        }
        // An unknown network with nothing close: the list of every id (AcceptedNetworks) is
        // too long for a line; the command that lists them is the hint.
        if hint == nil, message.hasPrefix("unknown network") || message.contains(": unknown network"),
            message.hasSuffix(")"),
            let range = message.ranges(of: " (known: ").last
        {
            hint = "`cardline rules list` lists the networks"
            message = String(message[..<range.lowerBound])
        }
        // At a terminal, each line is wrapped to its width.
        let columns = Style.terminalColumns(of: 2)
        return ([errorPrefix + message] + (hint.map { [hintPrefix + $0] } ?? []))
            .flatMap { line in columns.map { Style.wrapped(line, columns: $0) } ?? [line] }
            .map { $0 + "\n" }.joined()
    }

    /// Writes `message` (and its hint) to standard error.
    static func write(_ message: String, hint: String? = nil) {
        Terminal.writeError(text(message, hint: hint))
    }

    /// A file or folder named on the command line (or by an option) that cannot be read.
    static func unreadable(_ path: String, _ reason: String) {
        write("cannot read \(path.escapingControlCharacters): \(reason)")
    }

    // MARK: argument-parser's errors

    /// argument-parser's error `message` in cardline's style, with a hint: its own
    /// did-you-mean for an option, a subcommand close to an unexpected word (`chek` → `check`),
    /// else where the options are listed. `help` is the command whose `--help` lists them
    /// (`cardline rules`), from argument-parser's full message. Messages thrown by cardline's
    /// own `validate()` (`--today takes …`) say what to do already: no hint.
    /// `first`: the first argument given, which names a command when it is a word.
    static func argumentProblem(_ message: String, help: String?, first: String? = nil) -> (
        message: String, hint: String?
    ) {
        var message = message
        var hint: String?
        if let range = message.firstRange(of: ". Did you mean ") {
            hint = "did you mean " + message[range.upperBound...]
            message = String(message[..<range.lowerBound])
        }
        if let range = message.firstRange(of: ". Please provide one of ") {
            hint = "give one of " + message[range.upperBound...].dropLast(message.hasSuffix(".") ? 1 : 0)
            message = String(message[..<range.lowerBound])
        }
        let parserMessage = parserMessagePrefixes.contains { message.hasPrefix($0) }
        guard parserMessage else { return (message, hint) }
        // Names in cardline's style, `--prnt`, not argument-parser's '--prnt'.
        message = (message.prefix(1).lowercased() + message.dropFirst()).replacing(/'([^']*)'/) { "`\($0.1)`" }
        hint = hint?.replacing(/'([^']*)'/) { "`\($0.1)`" }
        let command = help.flatMap(Self.command(named:))
        if hint == nil, let word = unexpectedWord(in: message), let command {
            // A word where a subcommand goes: `cardline chek`, `cardline rules lst`.
            let choices = Self.subcommands(at: command)
            if !choices.isEmpty {
                if let guess = closest(to: word, in: choices) {
                    return ("unknown command `\(word)`", "did you mean `\(guess)`?")
                }
                if command == Cardline.self || command == Enter.self {
                    // `cardline zzz`: a command that does not exist (not `cardline 4111…`).
                    let named = word == first && word.contains { $0.isLetter } ? "unknown command `\(word)`" : message
                    return (
                        named,
                        "the commands are \(listing(choices.map { "`\($0)`" }, joinedBy: "and")); `cardline --help` says more"
                    )
                }
                return (
                    "unknown command `\(word)`",
                    "its commands are \(listing(choices.map { "`\($0)`" }, joinedBy: "and"))"
                )
            }
        }
        if hint == nil, let help { hint = "`\(help) --help` lists the options" }
        return (message, hint)
    }

    /// How argument-parser's own parsing errors begin (`ValidationError`s thrown by cardline
    /// do not).
    private static let parserMessagePrefixes =
        [
            "Unknown option", "Unexpected argument", "Missing value for", "Missing expected argument",
            "The value '", "The option '", "Value to be set with", "Error parsing", "Unexpected value",
        ] + (2...9).map { "\($0) unexpected arguments" }

    /// `chek` in "unexpected argument `chek`".
    private static func unexpectedWord(in message: String) -> String? {
        guard message.hasPrefix("unexpected argument `"), message.hasSuffix("`") else { return nil }
        return String(message.dropFirst("unexpected argument `".count).dropLast())
    }

    /// The command `cardline rules` names (the names as argument-parser's "See '… --help'"
    /// line gives them).
    private static func command(named path: String) -> ParsableCommand.Type? {
        var command: ParsableCommand.Type = Cardline.self
        for name in path.split(separator: " ").dropFirst() {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == name }) else {
                return nil
            }
            command = next
        }
        return command
    }

    /// The subcommands a word may name at `command`: the root's for the default command
    /// (`cardline chek` is parsed as `enter` with a stray word).
    private static func subcommands(at command: ParsableCommand.Type) -> [String] {
        let parent: ParsableCommand.Type = command == Enter.self ? Cardline.self : command
        return parent.configuration.subcommands.map { $0._commandName }
    }

    /// "cardline enter" from argument-parser's "  See 'cardline enter --help' for more
    /// information." line of `fullMessage`.
    static func helpCommand(inFullMessage text: String) -> String? {
        guard let start = text.firstRange(of: "See '"), let end = text[start.upperBound...].firstRange(of: " --help'")
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }
}

/// "a", "a and b", "a, b and c".
private func listing(_ items: [String], joinedBy word: String) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(word) " + items.last!
}

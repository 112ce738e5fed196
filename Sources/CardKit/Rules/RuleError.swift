/// A problem in a rule file, located at a line and column: printed as
/// `rules/visa.json:12:5: error: …` like a compiler diagnostic.
public struct RuleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `error` stops the rule set from loading; a `warning` is reported and the set still loads.
    public enum Severity: String, Sendable { case error, warning }

    /// The rule file's path, as given.
    public var file: String
    /// Where in the file; line 0 when the problem has no place in it.
    public var location: SourceLocation
    /// Whether the problem stops the rule set from loading.
    public var severity: Severity
    /// The problem in words.
    public var message: String

    /// A problem in `file` at `location`; an error unless `severity` says otherwise.
    public init(file: String, location: SourceLocation, severity: Severity = .error, message: String) {
        self.file = file
        self.location = location
        self.severity = severity
        self.message = message
    }

    /// `file:line:column: error: message`; a problem with no place in a file (line 0) prints
    /// as `file: error: message`. Control characters in the file's name are escaped (text
    /// from inside the file already is, where the message is worded).
    public var description: String {
        let file = file.escapingControlCharacters
        return location.line > 0
            ? "\(file):\(location): \(severity.rawValue): \(message)" : "\(file): \(severity.rawValue): \(message)"
    }
}

/// Every problem found in a set of rule files; the set is refused if any is an error.
public struct RuleErrors: Error, Equatable, Sendable, CustomStringConvertible {
    /// The errors, and any warnings found alongside them.
    public var errors: [RuleError]
    /// The problems found, errors and warnings alike.
    public init(errors: [RuleError]) { self.errors = errors }
    /// Each problem's `description`, one per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// A problem in a rule file, located at a line and column: printed as
/// `rules/visa.json:12:5: error: …` like a compiler diagnostic.
public struct RuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public var file: String
    public var location: SourceLocation
    public var severity: Severity
    public var message: String

    public init(file: String, location: SourceLocation, severity: Severity = .error, message: String) {
        self.file = file
        self.location = location
        self.severity = severity
        self.message = message
    }

    /// `file:line:column: error: message`; a problem with no place in a file (line 0) prints
    /// as `file: error: message`.
    public var description: String {
        location.line > 0 ? "\(file):\(location): \(severity.rawValue): \(message)" : "\(file): \(severity.rawValue): \(message)"
    }
}

/// Every problem found in a set of rule files; the set is refused if any is an error.
public struct RuleErrors: Error, Equatable, Sendable, CustomStringConvertible {
    /// The errors, and any warnings found alongside them.
    public var errors: [RuleError]
    public init(errors: [RuleError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

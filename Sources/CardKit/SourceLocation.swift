/// A place in a text file, 1-based, counted in lines and in characters within the line.
public struct SourceLocation: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The line, 1-based (0 for a problem with no place in a file).
    public var line: Int
    /// The column, 1-based, counted in characters, not bytes.
    public var column: Int

    /// A location from its line and column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`, as in compiler diagnostics.
    public var description: String { "\(line):\(column)" }
}

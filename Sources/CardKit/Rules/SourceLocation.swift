/// A place in a text file, 1-based, counted in lines and in characters within the line.
public struct SourceLocation: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The line, 1-based (0 for a problem with no place in a file).
    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = UInt32(clamping: newValue) }
    }
    /// The column, 1-based, counted in characters, not bytes.
    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = UInt32(clamping: newValue) }
    }
    /// Held in 32 bits each (8 bytes, not 16: a rule file of 100,000 ranges keeps a location
    /// for each); a text of more than four thousand million lines or columns is not read
    /// whole into memory, so none is cut.
    private var storedLine: UInt32
    private var storedColumn: UInt32

    /// A location from its line and column.
    public init(line: Int, column: Int) {
        storedLine = UInt32(clamping: line)
        storedColumn = UInt32(clamping: column)
    }

    /// `line:column`, as in compiler diagnostics.
    public var description: String { "\(line):\(column)" }
}

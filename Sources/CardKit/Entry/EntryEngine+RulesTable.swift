extension EntryEngine {
    /// `:rules`' rows (id, name, lengths and code, whether accepted) as aligned lines that fit
    /// the terminal's `columns`, and 80 at most as every message line (one column spare: a
    /// line that fills the last one wraps on some terminals); the name and the lengths give
    /// way (the wider first), never the id (`:network ID`, `--networks`).
    static func rulesTable(_ rows: [[String]], columns: Int) -> [String] {
        TextTable(rows: rows, shrinking: [1, 2]).lines(fitting: max(20, min(columns, 80) - 1))
    }
}

/// A table of text made to fit a width: `cardline rules list` and the prompt's `:rules`.
/// Columns are as wide as their widest cell, two spaces apart; when the whole is wider than
/// the width, the columns named in `shrinking` give up characters, the widest first (the
/// earlier named on a tie), each down to its narrowest (`narrowest`, else 6; if that is not
/// enough, to two characters), and a cell cut short ends in `…`. Columns not named keep their width (an id a person types is never cut).
/// Widths count Unicode scalars.
public struct TextTable {
    public var rows: [[String]]
    /// The columns that may be cut, the first cut first.
    public var shrinking: [Int]
    /// Columns cut at their start (`…/rules/visa.json`: a path's end says most).
    public var cutAtStart: Set<Int> = []
    /// How narrow a shrinking column may become, by column (6 when not said).
    public var narrowest: [Int: Int] = [:]
    public static let gap = 2

    public init(rows: [[String]], shrinking: [Int]) {
        self.rows = rows
        self.shrinking = shrinking
    }

    /// The width of each column once the table is fitted into `width` characters.
    public func columnWidths(fitting width: Int) -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        var widths = (0..<count).map { column in
            rows.map { column < $0.count ? $0[column].unicodeScalars.count : 0 }.max() ?? 0
        }
        var excess = widths.reduce(0, +) + Self.gap * max(0, count - 1) - width
        let columns = shrinking.filter { $0 < count }
        // Down to each column's narrowest; then, on a very narrow terminal, further (to a
        // character and its `…`).
        for floor in [{ (column: Int) in narrowest[column] ?? 6 }, { _ in 2 }] {
            while excess > 0 {
                // The widest column that may still give up a character.
                var widest: Int?
                for column in columns where widths[column] > floor(column) {
                    if widest == nil || widths[column] > widths[widest!] { widest = column }
                }
                guard let widest else { break }
                widths[widest] -= 1
                excess -= 1
            }
        }
        return widths
    }

    /// The table's lines (without line breaks), fitted into `width` characters where the
    /// columns that may be cut allow it; no trailing spaces.
    public func lines(fitting width: Int) -> [String] {
        let widths = columnWidths(fitting: width)
        return rows.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                let fitted = Self.cut(cell, to: widths[column], atStart: cutAtStart.contains(column))
                line += fitted
                if column < row.count - 1 {
                    line += String(repeating: " ", count: widths[column] - fitted.unicodeScalars.count + Self.gap)
                }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// `text` cut to `width` characters, ending in `…` when cut (starting with it, `atStart`).
    static func cut(_ text: String, to width: Int, atStart: Bool = false) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > width else { return text }
        guard width > 0 else { return "" }
        if atStart { return "…" + String(String.UnicodeScalarView(scalars.suffix(width - 1))) }
        var result = String.UnicodeScalarView(scalars.prefix(width - 1))
        result.append("…")
        return String(result)
    }
}

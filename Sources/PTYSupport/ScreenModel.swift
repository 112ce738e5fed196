/// A small model of what a terminal shows after receiving bytes: enough of xterm's control
/// sequences for what libedit and cardline send (cursor movement, erasing, inserting and
/// deleting characters, autowrap with a pending wrap, scrolling), with the SGR state of every
/// cell. Tests compare the screen with what the engine holds, and check colours are reset.
public struct ScreenModel {
    public struct Cell: Equatable, Sendable {
        public var character: Character = " "
        /// The SGR parameters in force when the character was written ("" when none).
        public var attributes: String = ""

        public init(character: Character = " ", attributes: String = "") {
            self.character = character
            self.attributes = attributes
        }
    }

    public private(set) var columns: Int
    public let rows: Int
    public private(set) var cells: [[Cell]]
    public private(set) var row = 0
    public private(set) var column = 0
    private var pendingWrap = false
    /// The SGR parameters in force now, as written since the last reset ("" when none).
    public private(set) var attributes = ""
    /// Characters written (put in a cell) since this was last set to 0: with the cells that
    /// changed, how much of a redraw was needed (the bench's regrouping key).
    public var written = 0
    /// Whether bracketed paste is on (`ESC [ ? 2004 h`).
    public private(set) var bracketedPaste = false
    private var utf8: [UInt8] = []

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: Cell(), count: columns), count: rows)
    }

    /// The terminal was made `newColumns` wide: like xterm, rows are cut or padded, not reflowed.
    public mutating func resize(columns newColumns: Int) {
        for r in 0..<rows {
            if newColumns < columns {
                cells[r].removeLast(columns - newColumns)
            } else {
                cells[r].append(contentsOf: Array(repeating: Cell(), count: newColumns - columns))
            }
        }
        columns = newColumns
        column = min(column, columns - 1)
        pendingWrap = false
    }

    /// The text of a row, trailing blanks removed.
    public func line(_ index: Int) -> String {
        var text = String(cells[index].map(\.character))
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The row the cursor is on.
    public var cursorLine: String { line(row) }

    /// Every row, trailing blank rows removed.
    public var lines: [String] {
        var all = (0..<rows).map(line)
        while all.last == "" { all.removeLast() }
        return all
    }

    /// Bytes of an escape sequence cut off at the end of the last `feed`.
    private var pending: [UInt8] = []

    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        let data = pending + Array(bytes)
        pending = []
        var index = 0
        while index < data.count {
            let byte = data[index]
            if byte == 0x1B {
                guard let end = Self.escapeEnd(data, from: index) else {
                    pending = Array(data[index...])
                    return
                }
                escape(Array(data[(index + 1)..<end]))
                index = end
                continue
            }
            index += 1
            if byte < 0x20 || byte == 0x7F {
                control(byte)
            } else {
                utf8.append(byte)
                let lead = utf8[0]
                let needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
                if utf8.count >= needed {
                    let text = String(decoding: utf8, as: UTF8.self)
                    utf8.removeAll()
                    for character in text { put(character) }
                }
            }
        }
    }

    /// Where the escape sequence starting at `start` ends, or nil when it is not complete yet.
    private static func escapeEnd(_ data: [UInt8], from start: Int) -> Int? {
        guard start + 1 < data.count else { return nil }
        guard data[start + 1] == UInt8(ascii: "[") else { return start + 2 }
        var index = start + 2
        while index < data.count {
            if data[index] >= 0x40 && data[index] <= 0x7E { return index + 1 }
            index += 1
        }
        return nil
    }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            pendingWrap = false
            column = 0
            lineFeed()
        }
        cells[row][column] = Cell(character: character, attributes: attributes)
        written += 1
        if column == columns - 1 { pendingWrap = true } else { column += 1 }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            cells.removeFirst()
            cells.append(Array(repeating: Cell(), count: columns))
        } else {
            row += 1
        }
    }

    private mutating func control(_ byte: UInt8) {
        switch byte {
        case 0x0D:
            column = 0
            pendingWrap = false
        case 0x0A:
            lineFeed()
            pendingWrap = false
        case 0x08:
            if column > 0 { column -= 1 }
            pendingWrap = false
        case 0x09: column = min(columns - 1, (column / 8 + 1) * 8)
        default: break  // bell and others draw nothing
        }
    }

    /// An escape sequence, without its ESC.
    private mutating func escape(_ sequence: [UInt8]) {
        guard let first = sequence.first else { return }
        switch first {
        case UInt8(ascii: "["):
            csi(String(decoding: sequence.dropFirst().dropLast(), as: UTF8.self), sequence.last ?? 0)
        case UInt8(ascii: "M"):
            if row > 0 { row -= 1 }
        default:
            break  // ESC 7, ESC 8, ESC =, ESC > and the like: nothing cardline relies on
        }
    }

    private mutating func csi(_ parameters: String, _ final: UInt8) {
        if parameters.hasPrefix("?") {
            if parameters == "?2004" { bracketedPaste = final == UInt8(ascii: "h") }
            return
        }
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        let first = numbers.first.flatMap { $0 } ?? 0
        let count = max(1, first)
        pendingWrap = false
        switch Character(UnicodeScalar(final)) {
        case "A": row = max(0, row - count)
        case "B": row = min(rows - 1, row + count)
        case "C": column = min(columns - 1, column + count)
        case "D": column = max(0, column - count)
        case "G": column = min(columns - 1, count - 1)
        case "H", "f":
            row = min(rows - 1, max(1, first) - 1)
            column = min(columns - 1, max(1, numbers.count > 1 ? (numbers[1] ?? 1) : 1) - 1)
        case "J":
            if first == 0 {
                erase(row: row, from: column, to: columns)
                for r in (row + 1)..<rows { erase(row: r, from: 0, to: columns) }
            } else if first == 2 || first == 3 {
                for r in 0..<rows { erase(row: r, from: 0, to: columns) }
            }
        case "K":
            switch first {
            case 1: erase(row: row, from: 0, to: column + 1)
            case 2: erase(row: row, from: 0, to: columns)
            default: erase(row: row, from: column, to: columns)
            }
        case "P":
            let n = min(count, columns - column)
            cells[row].removeSubrange(column..<(column + n))
            cells[row].append(contentsOf: Array(repeating: Cell(), count: n))
        case "@":
            let n = min(count, columns - column)
            cells[row].insert(contentsOf: Array(repeating: Cell(), count: n), at: column)
            cells[row].removeLast(n)
        case "X": erase(row: row, from: column, to: min(columns, column + count))
        case "m": sgr(parameters)
        default: break
        }
    }

    private mutating func erase(row: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        for c in start..<end { cells[row][c] = Cell() }
    }

    private mutating func sgr(_ parameters: String) {
        for part in parameters.split(separator: ";", omittingEmptySubsequences: false) {
            if part.isEmpty || part == "0" {
                attributes = ""
            } else {
                attributes += attributes.isEmpty ? String(part) : ";" + part
            }
        }
    }
}

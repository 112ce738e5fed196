import CEditLine

/// The cells of the live line when it takes one row (issue 21, item 7): the prompt (with the
/// colours of its escape sequences), the field's text, and the badge at the right (`BadgePainter`),
/// blank between and after. `InteractiveEditor` builds the row as it is on screen and as it must
/// be after a key that does more than append (a regrouping digit that moves the spaces and
/// changes the hint and badge, a backspace), and `bytes(from:)` writes only the cells that
/// differ, with VT100 cursor motions along the row; libedit is then told the screen's new state
/// without drawing (`cl_refresh_silently`).
struct LineCells: Equatable {
    struct Cell: Equatable {
        var scalar: Unicode.Scalar = " "
        /// The SGR parameters in force for the cell ("" for none), as the escape sequences
        /// before it in the prompt set them: `1` for the label, `2` for the hint.
        var sgr = ""
    }

    private(set) var cells: [Cell]
    /// The column after the field's text, where the cursor stays.
    private(set) var end = 0

    init(columns: Int) {
        cells = Array(repeating: Cell(), count: columns)
    }

    /// The prompt `prompt` (with its SGR escape sequences) and the field's `text` from the
    /// first column; false when they do not fit before `limit`, or hold a character that does not take
    /// exactly one cell (the row is then left to libedit).
    mutating func put(prompt: String, text: String, before limit: Int) -> Bool {
        var column = 0
        var sgr = ""
        var scalars = prompt.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                // `ESC [ parameters m`: each parameter adds to the attributes, 0 or none resets.
                guard scalars.next() == "[" else { return false }
                var parameters = ""
                while let next = scalars.next(), next != "m" { parameters.unicodeScalars.append(next) }
                for part in parameters.split(separator: ";", omittingEmptySubsequences: false) {
                    if part.isEmpty || part == "0" { sgr = "" } else { sgr += sgr.isEmpty ? String(part) : ";" + part }
                }
                continue
            }
            guard put(scalar, sgr: sgr, at: column, before: limit) else { return false }
            column += 1
        }
        for scalar in text.unicodeScalars {
            guard put(scalar, sgr: "", at: column, before: limit) else { return false }
            column += 1
        }
        end = column
        return true
    }

    /// The badge's bytes (`BadgePainter`) from column `start`: the first `logoBytes` in the
    /// colour `colour` (`ESC [ … m`, empty for none), the rest plain.
    mutating func put(badge: ArraySlice<UInt8>, logoBytes: Int, colour: [UInt8], at start: Int) -> Bool {
        var sgr = ""
        if colour.count > 3 { sgr = String(decoding: colour.dropFirst(2).dropLast(), as: UTF8.self) }
        var column = start
        let logoEnd = badge.startIndex + logoBytes
        for (part, attributes) in [(badge[..<logoEnd], sgr), (badge[logoEnd...], "")] {
            for scalar in String(decoding: part, as: UTF8.self).unicodeScalars {
                guard put(scalar, sgr: attributes, at: column, before: cells.count - 1) else { return false }
                column += 1
            }
        }
        return true
    }

    private mutating func put(_ scalar: Unicode.Scalar, sgr: String, at column: Int, before limit: Int) -> Bool {
        guard column < limit, scalar.value >= 0x20, scalar.value != 0x7F,
            scalar.isASCII || cl_wcwidth(Int32(bitPattern: scalar.value)) == 1
        else { return false }
        cells[column] = Cell(scalar: scalar, sgr: sgr)
        return true
    }

    /// The bytes that turn `old` (on screen, the cursor at its `end`) into this row: only the
    /// cells that differ, each in its attributes, the cursor left at this row's `end` and the
    /// attributes reset.
    func bytes(from old: LineCells) -> [UInt8] {
        var bytes: [UInt8] = []
        var cursor = old.end
        var sgr = ""
        for column in cells.indices where cells[column] != old.cells[column] {
            BadgePainter.appendMove(from: cursor, to: column, into: &bytes)
            let cell = cells[column]
            if cell.sgr != sgr {
                if !sgr.isEmpty { bytes += [0x1B, 0x5B, 0x30, 0x6D] }  // ESC [ 0 m
                if !cell.sgr.isEmpty { bytes += [0x1B, 0x5B] + Array(cell.sgr.utf8) + [0x6D] }
                sgr = cell.sgr
            }
            bytes += Array(String(cell.scalar).utf8)
            cursor = column + 1
        }
        if !sgr.isEmpty { bytes += [0x1B, 0x5B, 0x30, 0x6D] }
        BadgePainter.appendMove(from: cursor, to: end, into: &bytes)
        return bytes
    }
}

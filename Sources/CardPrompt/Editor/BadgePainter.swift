import CardKit

/// Drawing for `InteractiveEditor`: the logo badge at the right of the prompt's first row
/// (` VISA 12/16`), drawn by cardline on every terminal that takes escape sequences, with
/// cursor motions a VT100 has (forward `ESC [ n C`, back `ESC [ n D`, clear to the line's end
/// `ESC [ K`), never a column address. The logo is in the badge's colour, the counter after
/// it plain, so that a digit changes only the counter's cells and they are written without a
/// colour. On a line that takes one row the badge is drawn with the row, cell by cell
/// (`LineCells`: an ordinary digit writes the digit, a move to the counter's changed
/// characters, those characters and a move back: 12 bytes on a 100-column line); `draw`
/// draws it whole after libedit has drawn the line itself.
///
/// The cursor is where libedit keeps it, at the end of the text (`end`, the column after the
/// prompt and the field), whenever `draw` is called, and is left there.
struct BadgePainter {
    /// The badge wanted now, UTF-8: the logo part (` VISA `, in colour) and the counter
    /// (`12/16 `, plain); empty for no badge.
    private var wanted: [UInt8] = []
    /// The cells `wanted` takes.
    private var wantedCells = 0
    /// The bytes and cells of the logo part at the head of `wanted` (` VISA `); 0 bytes when
    /// `wanted` does not hold it.
    private var logoBytes = 0
    private var logoCells = 0
    /// The logo `wanted` was built for.
    private var logo = ""
    /// `ESC [ colour m` for the logo part, ready to write; empty without colour.
    private var colour: [UInt8] = []
    /// The logo part was built again since the badge was last drawn.
    private var logoRebuilt = true
    /// Where the badge as last drawn starts and the cells it takes (an empty badge: none); nil
    /// when unknown, after libedit redrew the line.
    private var onScreen: (start: Int, cells: Int)?
    /// The badge as last drawn (kept apart from `wanted`, so that neither array is shared and
    /// each key refills them in place), and its logo part's bytes.
    private var textOnScreen: [UInt8] = []
    private var logoBytesOnScreen = 0
    private var colourOnScreen: [UInt8] = []
    /// What the last `draw` found to write: the whole badge.
    private var bytes: [UInt8] = []

    /// Sets the badge wanted: `logo` and `progress` (nil: no badge; "": the logo alone).
    mutating func want(logo: String, progress: String?, style: Style, securityCode: Bool = false) {
        guard let progress else {
            wanted.removeAll(keepingCapacity: true)
            wantedCells = 0
            logoBytes = 0
            return
        }
        if logo != self.logo || logoBytes == 0 {
            // The logo part is kept while the logo stays; the counter after it is written afresh.
            wanted.removeAll(keepingCapacity: true)
            logoCells = Style.appendBadgeLogo(style.drawn(logo), to: &wanted)
            logoBytes = wanted.count
            colour = style.colour ? Array("\u{1B}[\(Style.badgeColour(logo, securityCode: securityCode))m".utf8) : []
            self.logo = logo
            logoRebuilt = true
        } else {
            while wanted.count > logoBytes { wanted.removeLast() }
        }
        wantedCells = logoCells + Style.appendBadgeCounter(progress: progress, to: &wanted)
    }

    /// libedit drew the line afresh: what it left of the badge is unknown.
    mutating func forget() {
        onScreen = nil
    }

    /// The bytes that bring the badge on the screen up to date on a line whose text ends at
    /// column `end` of a terminal `columns` wide, the cursor being there: nothing when the
    /// badge on screen is the one wanted, else cleared from the end of the text and drawn
    /// whole. (A line that takes one row is drawn cell by cell, badge included, by
    /// `LineCells`; this draws the badge after libedit has drawn the line itself.) `resetColour`: libedit's redraw may have left a colour on
    /// (it redraws only the changed cells of the prompt), turned off before anything is drawn.
    /// False when nothing changed; else the bytes are in `bytes`.
    mutating func draw(end: Int, columns: Int, resetColour: Bool) -> Bool {
        guard end < columns else {
            // A wrapped line: the first row is all text, and a badge is left out (`layoutChoice`).
            onScreen = (columns, 0)
            textOnScreen.removeAll(keepingCapacity: true)
            return false
        }
        let start = wanted.isEmpty ? columns : columns - wantedCells - 2
        if !logoRebuilt, let shown = onScreen, shown.start == start, shown.cells == wantedCells, textOnScreen == wanted,
            colourOnScreen == colour
        {
            return false
        }
        do {
            bytes.removeAll(keepingCapacity: true)
            if onScreen == nil && resetColour { bytes += [0x1B, 0x5B, 0x6D] }  // ESC [ m
            let clearFrom = max(end, min(onScreen?.start ?? end, start))
            Self.appendMove(from: end, to: clearFrom, into: &bytes)
            bytes += [0x1B, 0x5B, 0x4B]  // ESC [ K
            var cursor = clearFrom
            if !wanted.isEmpty {
                Self.appendMove(from: clearFrom, to: start, into: &bytes)
                bytes += colour
                bytes += wanted[..<logoBytes]
                if !colour.isEmpty { bytes += [0x1B, 0x5B, 0x6D] }
                bytes += wanted[logoBytes...]
                cursor = start + wantedCells
            }
            Self.appendMove(from: cursor, to: end, into: &bytes)
        }
        noteDrawn(at: start)
        return true
    }

    /// The badge wanted is on screen from column `start`.
    private mutating func noteDrawn(at start: Int) {
        onScreen = (start, wantedCells)
        textOnScreen.removeAll(keepingCapacity: true)
        textOnScreen.append(contentsOf: wanted)
        logoBytesOnScreen = logoBytes
        colourOnScreen = colour
        logoRebuilt = false
    }

    /// Puts the badge as it is on screen into `row`; false when that is not known (libedit
    /// redrew the line) or does not fit.
    func putOnScreen(into row: inout LineCells) -> Bool {
        guard let shown = onScreen else { return false }
        guard shown.cells > 0 else { return true }
        guard shown.start > row.end else { return false }
        return row.put(badge: textOnScreen[...], logoBytes: logoBytesOnScreen, colour: colourOnScreen, at: shown.start)
    }

    /// Puts the badge wanted into `row` (a terminal `columns` wide), where `draw` would draw it;
    /// false when it does not fit after the text ending at `end`.
    func putWanted(into row: inout LineCells, end: Int, columns: Int) -> Bool {
        guard !wanted.isEmpty else { return true }
        let start = columns - wantedCells - 2
        guard end < start else { return false }
        return row.put(badge: wanted[...], logoBytes: logoBytes, colour: colour, at: start)
    }

    /// The badge wanted was drawn (with the row it is on, `LineCells`) on a terminal `columns` wide.
    mutating func noteDrawn(columns: Int) {
        noteDrawn(at: wanted.isEmpty ? columns : columns - wantedCells - 2)
    }

    /// Writes what the last `draw` found to `fd`. (Mutating only so that calling it on the
    /// editor's property does not copy the painter.)
    mutating func write(to fd: Int32) {
        _ = Paths.writeAll(bytes.span, to: fd)
    }

    /// A cursor motion along the row, VT100's: `ESC [ n C` forward, `ESC [ n D` back.
    static func appendMove(from column: Int, to target: Int, into out: inout [UInt8]) {
        guard target != column else { return }
        out.append(0x1B)
        out.append(0x5B)
        let number = abs(target - column)
        if number > 1 {
            // At most five digits (a terminal's width is 16 bits); one branch per digit.
            if number >= 10000 { out.append(UInt8(48 + number / 10000 % 10)) }
            if number >= 1000 { out.append(UInt8(48 + number / 1000 % 10)) }
            if number >= 100 { out.append(UInt8(48 + number / 100 % 10)) }
            if number >= 10 { out.append(UInt8(48 + number / 10 % 10)) }
            out.append(UInt8(48 + number % 10))
        }
        out.append(target > column ? 0x43 : 0x44)
    }
}

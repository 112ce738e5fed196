import CardKit

/// Drawing for `InteractiveEditor`: the logo badge at the right of the prompt's first row
/// (` VISA 12/16`), drawn by cardline on every terminal that takes escape sequences, with
/// cursor motions a VT100 has (forward `ESC [ n C`, back `ESC [ n D`, clear to the line's end
/// `ESC [ K`), never a column address. The logo is in the badge's colour, the counter after
/// it plain, so that a digit changes only the counter's cells and they are written without a
/// colour: an ordinary digit costs libedit's echo of it and, here, a move to the counter's
/// changed characters, those characters and a move back (12 bytes on a 100-column line).
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
    /// What the last `draw` found to write: the whole badge in `bytes`, or (`inPlace`) the
    /// counter's changed characters in `counterBytes`, which needs no array.
    private var bytes: [UInt8] = []
    private var counterBytes = ShortBytes()
    private var inPlace = false
    /// Which of `wanted`'s counter characters differ from `textOnScreen`'s, found as
    /// `replaceCounter` wrote them (`changedCounter`'s answer, without a second pass); nil
    /// when not known.
    private var knownChange: Range<Int>??

    /// Sets the badge wanted: `logo` and `progress` (nil: no badge; "": the logo alone).
    mutating func want(logo: String, progress: String?, style: Style, securityCode: Bool = false) {
        knownChange = nil
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
        } else if replaceCounter(with: progress) {
            return
        } else {
            while wanted.count > logoBytes { wanted.removeLast() }
        }
        wantedCells = logoCells + Style.appendBadgeCounter(progress: progress, to: &wanted)
    }

    /// Overwrites the counter in `wanted` with `progress` and its space, in place, when
    /// `progress` is ASCII and as long as the counter there (every digit but the one that widens
    /// it): true then. (Cheaper than removing the counter and appending it again.)
    private mutating func replaceCounter(with progress: String) -> Bool {
        let start = logoBytes
        let length = wanted.count - logoBytes
        // The counter drawn is compared as the new one is written, when `changedCounter`
        // could compare them (the same length, short enough, ASCII: checked as it goes).
        let comparable = textOnScreen.count == wanted.count && length <= ShortBytes.capacity - 20
        var first = -1
        var last = -1
        var ascii = true
        // pointer: the counter's bytes read in place, every digit (no copy of the string).
        let replaced: Bool? = progress.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count + 1 == length else { return false }
            for byte in bytes where byte >= 0x80 { return false }
            for index in 0..<bytes.count {
                wanted[start + index] = bytes[index]
                guard comparable else { continue }
                let drawn = textOnScreen[start + index]
                if drawn >= 0x80 {
                    ascii = false
                } else if drawn != bytes[index] {
                    if first < 0 { first = start + index }
                    last = start + index
                }
            }
            return true
        }
        guard replaced == true else { return false }
        wantedCells = logoCells + length  // ASCII: a cell a byte
        if comparable {
            // The counter's last character (its space) was not written.
            let end = wanted.count - 1
            let drawn = textOnScreen[end]
            if drawn >= 0x80 || wanted[end] >= 0x80 {
                ascii = false
            } else if drawn != wanted[end] {
                if first < 0 { first = end }
                last = end
            }
            if ascii { knownChange = .some(first < 0 ? nil : first..<(last + 1)) }
        }
        return true
    }

    /// libedit drew the line afresh: what it left of the badge is unknown.
    mutating func forget() {
        onScreen = nil
        knownChange = nil
    }

    /// The bytes that bring the badge on the screen up to date on a line whose text ends at
    /// column `end` of a terminal `columns` wide, the cursor being there: only the counter's
    /// changed characters when the badge keeps its place and logo, else cleared from the end
    /// of the text and drawn whole. `resetColour`: libedit's redraw may have left a colour on
    /// (it redraws only the changed cells of the prompt), turned off before anything is drawn.
    /// False when nothing changed; else the bytes are in `bytes`.
    mutating func draw(end: Int, columns: Int, resetColour: Bool) -> Bool {
        guard end < columns else {
            // A wrapped line: the first row is all text, and a badge is left out (`layoutChoice`).
            knownChange = nil
            onScreen = (columns, 0)
            textOnScreen.removeAll(keepingCapacity: true)
            return false
        }
        let start = wanted.isEmpty ? columns : columns - wantedCells - 2
        if !logoRebuilt, let shown = onScreen, shown.start == start, shown.cells == wantedCells,
            logoBytesOnScreen == logoBytes,
            let changed = knownChange ?? changedCounter()
        {
            knownChange = .some(nil)  // (the screen's counter is brought up to date below)
            guard let changed else { return false }
            // Only the counter's characters that changed (ASCII: a byte a cell).
            let column = start + logoCells + (changed.lowerBound - logoBytes)
            inPlace = true
            counterBytes.count = 0
            Self.appendMove(from: end, to: column, into: &counterBytes)
            for index in changed {
                counterBytes.append(wanted[index])
                textOnScreen[index] = wanted[index]
            }
            Self.appendMove(from: column + changed.count, to: end, into: &counterBytes)
            return true
        } else {
            inPlace = false
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
        knownChange = nil
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
        if inPlace {
            _ = Paths.writeAll(counterBytes.storage.span.extracting(0..<counterBytes.count), to: fd)
        } else {
            _ = Paths.writeAll(bytes.span, to: fd)
        }
    }

    /// The range of `wanted`'s counter that differs from the badge drawn (whose logo part is
    /// the same: not `logoRebuilt`), both being the same length and ASCII: nil inside when nothing differs; nil outside when the counter cannot be
    /// updated in place (the badge is then drawn whole).
    private func changedCounter() -> Range<Int>?? {
        // (A counter too long for `counterBytes`, with the moves, is drawn whole.)
        guard textOnScreen.count == wanted.count, wanted.count - logoBytes <= ShortBytes.capacity - 20 else {
            return nil
        }
        var first = -1
        var last = -1
        for index in logoBytes..<wanted.count {
            let byte = wanted[index]
            guard byte < 0x80, textOnScreen[index] < 0x80 else { return nil }
            if byte != textOnScreen[index] {
                if first < 0 { first = index }
                last = index
            }
        }
        return .some(first < 0 ? nil : first..<(last + 1))
    }

    /// A cursor motion along the row, VT100's: `ESC [ n C` forward, `ESC [ n D` back.
    static func appendMove(from column: Int, to target: Int, into out: inout some ByteAppending) {
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

/// Where `BadgePainter` puts bytes: an array, or `ShortBytes`.
protocol ByteAppending {
    mutating func append(_ byte: UInt8)
}

extension [UInt8]: ByteAppending {}

/// Up to `capacity` bytes without an array (no allocation, no uniqueness check per byte): an
/// ordinary digit's counter update, written after every digit.
struct ShortBytes: ByteAppending {
    static let capacity = 96
    var storage = InlineArray<96, UInt8>(repeating: 0)
    var count = 0

    @inline(__always) mutating func append(_ byte: UInt8) {
        storage[count] = byte
        count += 1
    }
}

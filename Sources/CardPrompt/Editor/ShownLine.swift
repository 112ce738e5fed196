import CEditLine

/// What libedit's line buffer holds, as `InteractiveEditor` last put it there: the text, the
/// columns and characters it takes, and the most it has held since the last wipe (what a wipe's
/// filler must cover, `InteractiveEditor.wipeEntry`).
struct ShownLine {
    private(set) var text = ""
    /// The columns `text` takes.
    private(set) var width = 0
    /// The Unicode scalars `text` holds.
    private(set) var scalars = 0
    /// The most characters the line has held, and the most cells prompt and line have taken on
    /// screen, since the last wipe.
    private var mostScalars = 0
    private var mostCells = 0

    /// The line holds `text` after a prompt `promptWidth` wide.
    mutating func hold(_ text: String, promptWidth: Int) {
        self.text = text
        defer {
            mostScalars = max(mostScalars, scalars)
            mostCells = max(mostCells, promptWidth + scalars)
        }
        var width = 0
        var scalars = 0
        // pointer: the line's bytes counted in place (no copy of the digits to wipe).
        let ascii: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 >= 0x7F }) else { return false }
            width = bytes.count
            scalars = bytes.count
            return true
        }
        if ascii != true {
            width = 0
            scalars = 0
            for scalar in text.unicodeScalars {
                width += scalar.value < 0x7F ? 1 : max(0, Int(cl_wcwidth(Int32(bitPattern: scalar.value))))
                scalars += 1
            }
        }
        self.width = width
        self.scalars = scalars
    }

    /// The length of a filler of spaces that covers everything the line has held since the last
    /// wipe, after a prompt `promptWidth` wide.
    func fillerLength(promptWidth: Int) -> Int { max(mostScalars, mostCells - promptWidth) }

    /// The line was wiped: nothing held before counts any more.
    mutating func wiped() {
        mostScalars = 0
        mostCells = 0
    }
}

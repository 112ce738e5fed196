import CEditLine

/// Terminal state for `InteractiveEditor`: what kind of terminal the prompt draws on, how wide
/// it is, how many rows the live line takes above the cursor, and the one home of the
/// sequences that erase the live line and put the terminal's modes back, both for the prompt
/// itself (`end`, a resize) and for the signal handlers (`cl_set_terminal_modes`).
struct TerminalState {
    /// False on a terminal that takes no escape sequence but carriage return and newline
    /// (`Style.terminalUnderstandsEscapes`: TERM=dumb or unset): cardline then writes none
    /// (libedit itself draws with carriage returns, backspaces and spaces there).
    let escapes = Style.terminalUnderstandsEscapes()
    /// The terminal's width, read at start and after each resize.
    var columns = 80
    /// The rows above the cursor that the signal handlers were last told to clear.
    private(set) var rowsAbove = -1

    /// Bracketed paste on (`ESC [ ? 2004 h`) while the prompt runs; nothing without escapes.
    var enterModes: String { escapes ? "\u{1B}[?2004h" : "" }
    /// Bracketed paste off again.
    var leaveModes: String { escapes ? "\u{1B}[?2004l" : "" }

    /// To the first column of the live line's first row, the cursor being on a row `rowsAbove`
    /// below it (VT100's `ESC [ n A`).
    func toLineStart(rowsAbove: Int) -> String {
        "\r" + (rowsAbove > 0 ? "\u{1B}[\(rowsAbove)A" : "")
    }

    /// Erases the live line, every row of it, the cursor being on a row `rowsAbove` below its
    /// first (`ESC [ J` from the line's start); on a terminal without escapes, which cannot
    /// erase, ends the line instead.
    func eraseLine(rowsAbove: Int) -> String {
        escapes ? toLineStart(rowsAbove: rowsAbove) + "\u{1B}[J" : "\r\n"
    }

    /// Tells the signal handlers what to write when they let go of the terminal: the live line
    /// erased (it takes `rows` rows above the cursor) and the modes put back.
    mutating func lineTakes(rowsAboveCursor rows: Int) {
        guard rows != rowsAbove else { return }
        rowsAbove = rows
        cl_set_terminal_modes(enterModes, eraseLine(rowsAbove: rows) + leaveModes)
    }

    /// The rows a line of `scalars` characters after a prompt `promptWidth` wide takes on this
    /// terminal (the cursor after it included).
    func rows(promptWidth: Int, scalars: Int) -> Int {
        let used = promptWidth + scalars + 1
        return max(1, (used + columns - 1) / max(columns, 1))
    }
}

import CEditLine
import CardKit

#if canImport(Glibc)
    import Glibc
#endif

extension InteractiveEditor {
    // MARK: - Wiping

    /// Overwrites what libedit keeps of the field: call when an entry ends (accepted,
    /// cancelled, emptied, timed out) or the field is left empty, from inside a key binding,
    /// before the buffer is given its next text (`replaceBuffer`). libedit has no wipe call:
    /// its line buffer (and the wide copy `el_insertstr` decodes into) is overwritten by a
    /// filler of spaces as long as anything the line held, and its two screen buffers by
    /// having it draw that filler (`EL_REFRESH`, from the line's first column) over every cell
    /// the prompt and line took; the caller's next refresh draws the real text over the
    /// filler. The terminal's output buffer is wiped as each key is read, and freed heap as it
    /// is freed where the program links the wiping free() (`CProcessWide`: cardline does). Nothing is drawn on a terminal that cannot clear a
    /// line's end or move up (`TERM=dumb`): there only the line buffer is overwritten.
    /// Returns the rows above the cursor once the filler is drawn (the cursor at its end), nil
    /// when nothing was drawn. Not `drawing`, for a finished line that stays on screen (a name
    /// left above the output, `flush`): libedit draws the filler into a stream that discards
    /// (`cl_refresh_silently`), so its buffers are overwritten and the screen is not.
    @discardableResult
    func wipeEntry(_ el: OpaquePointer, drawing: Bool = true) -> Int? {
        let promptWidth = choice?.promptWidth ?? 0
        let filler = shown.fillerLength(promptWidth: promptWidth)
        guard filler > 0 else { return nil }
        let rowsUp = rows(text: shown.text) - 1
        let canRedraw =
            terminal.escapes && cl_terminal_string(el, "ce") != nil
            && (rowsUp == 0 || cl_terminal_string(el, "up") != nil)
        // (From bytes: `String(repeating: " ", count:)` costs some 280 instructions a space.)
        replaceBuffer(el, with: String(decoding: [UInt8](repeating: 0x20, count: filler), as: UTF8.self))
        var rowsAbove: Int?
        if canRedraw && !drawing {
            _ = cl_refresh_silently(el, device.output)  // (the screen, and so the badge, as it was)
        } else if canRedraw {
            // libedit's cursor is at the end of the line (where cardline keeps it): to the
            // line's first column, where a full redraw starts.
            write(terminal.toLineStart(rowsAbove: rowsUp))
            cl_refresh(el)
            painter.forget()
            rowsAbove = rowsAboveCursor()
        }
        replaceBuffer(el, with: "")
        shown.wiped()
        device.wipeOutputBuffer()
        return rowsAbove
    }
}

import CEditLine
import CardKit

#if canImport(Glibc)
    import Glibc
#endif

extension InteractiveEditor {
    /// Brings a line that takes one row up to date by writing only the cells that changed
    /// (`LineCells`): the prompt drawn was `promptBefore` and the text `textBefore`, the badge is
    /// the one `painter` drew. libedit's buffer gets the engine's text and libedit is told what
    /// the screen now shows without drawing (`cl_refresh_silently`). nil, having done nothing,
    /// where cardline does not draw the badge (TERM=dumb), or the line wraps, holds a character
    /// not one cell wide, or the badge's place is not known: libedit then redraws.
    func redrawInPlace(promptBefore: String, textBefore: String, _ el: OpaquePointer) -> UInt8? {
        guard drawsBadge else { return nil }
        let columns = terminal.columns
        let text = style.drawn(currentView.text)
        var before = LineCells(columns: columns)
        var after = LineCells(columns: columns)
        guard before.put(prompt: promptBefore, text: textBefore, before: columns - 1),
            painter.putOnScreen(into: &before),
            after.put(prompt: prompts.left, text: text, before: columns - 1),
            painter.putWanted(into: &after, end: after.end, columns: columns)
        else { return nil }
        replaceBuffer(el)
        // Through the output stream (the row holds the field): wiped with it as the next key is read.
        device.write(bytes: after.bytes(from: before))
        guard cl_refresh_silently(el, device.output) == 0 else {
            // libedit's picture of the screen is not known: it draws the line afresh.
            return redrawn(CC_REDISPLAY)
        }
        painter.noteDrawn(columns: columns)
        return UInt8(CC_NORM)
    }

    /// How libedit redraws after the left prompt changed. With colour, libedit keeps each of
    /// the prompt's escape sequences together with the character after it as one cell, and
    /// tells such cells apart by their place in the prompt, not by what they hold: redrawing
    /// only the difference would leave the old character there (`Card number:(#### …): `
    /// when the format hint came or went). The whole line is drawn again instead.
    var promptRedraw: Int32 { style.colour ? CC_REDISPLAY : CC_REFRESH }

    /// Shows `text` above the prompt, after the output of the key being handled, and draws
    /// the prompt again under it.
    func warn(_ text: String) { warnings.append(text) }

    /// How much of the stack below a binding is zeroed (`cl_wipe_stack`) once a line holding a
    /// name or postal code is finished (`flush`) and when the prompt ends (`end`): the depth a
    /// key's handling and a card's delivery reach.
    static let stackWiped = 64 * 1024

    /// `result`, for a key after which libedit redraws the line: the badge is then drawn whole.
    func redrawn(_ result: Int32) -> UInt8 {
        painter.forget()
        return UInt8(result)
    }

    /// Writes output below the current line and has libedit redraw the active field under it.
    func printAbovePrompt(_ output: String, _ el: OpaquePointer) -> UInt8 {
        write(output)
        updatePrompts()
        replaceBuffer(el)
        return redrawn(CC_REDISPLAY)
    }

    /// Makes libedit's buffer equal the engine's display text, cursor at the end.
    func replaceBuffer(_ el: OpaquePointer, with text: String? = nil) {
        if let info = el_wline(el)?.pointee {  // pointer: libedit's line information, read at once
            el_cursor(el, Int32(info.lastchar - info.cursor))
            el_deletestr(el, Int32(info.lastchar - info.buffer))
        }
        let text = style.drawn(text ?? currentView.text)
        if !text.isEmpty { el_insertstr(el, text) }
        show(text)
    }

    /// Notes that libedit's buffer holds `text` (`ShownLine.hold`), and tells the signal
    /// handlers how many rows the line now takes.
    func show(_ text: String) {
        shown.hold(text, promptWidth: choice?.promptWidth ?? 0)
        terminal.lineTakes(rowsAboveCursor: rowsAboveCursor())
    }

    /// The rows above the cursor (at the end of the line, where cardline keeps it) that the
    /// prompt and `shown.text` take.
    func rowsAboveCursor() -> Int {
        terminal.rows(promptWidth: choice?.promptWidth ?? 0, scalars: shown.scalars) - 1
    }

    /// The rows a line holding `text` takes with the current prompt.
    func rows(text: String) -> Int {
        terminal.rows(promptWidth: choice?.promptWidth ?? 0, scalars: text.scalarCount)
    }

    /// Lays out the prompts for the engine's current view and builds again what changed; true
    /// when the left prompt's text changed.
    @discardableResult
    func updatePrompts() -> Bool { updatePrompts(currentView) }

    /// Lays out the prompts for `view` and builds again what changed; true when the left
    /// prompt's text changed.
    @discardableResult
    func updatePrompts(_ view: EntryView) -> Bool {
        let next = style.layoutChoice(view, columns: terminal.columns)
        let promptChanged: Bool
        if let choice {
            promptChanged = next.label != choice.label || next.hint != choice.hint || prompts.leftText == nil
        } else {
            promptChanged = true
        }
        if promptChanged { prompts.setLeft(style.prompt(next)) }
        if drawsBadge {
            painter.want(logo: view.logo, progress: next.progress, style: style, securityCode: view.field == .cvv)
        } else if next != choice || prompts.rightText == nil || view.logo != prompts.rightLogo {
            var badgeView = view
            badgeView.progress = next.progress ?? ""
            prompts.setRight(next.progress == nil ? "" : style.badge(badgeView), logo: view.logo)
        }
        choice = next
        return promptChanged
    }

    /// Brings the badge on the line's first row up to date (`BadgePainter`); the cursor is left
    /// where libedit keeps it, at the end of the text. Written past the output stream, whose
    /// buffer must be empty (`TerminalDevice.writeDirectly`).
    func drawBadge() {
        let end = (choice?.promptWidth ?? 0) + shown.width
        if !painter.draw(end: end, columns: terminal.columns, resetColour: style.colour) { return }
        painter.write(to: device.outputDescriptor)
    }

    func write(_ text: String) { device.write(text) }
}

import CEditLine
import CardKit
#if canImport(Glibc)
import Glibc
#endif

/// The editor's key input: libedit's character reader, the ordinary digits cardline types and
/// echoes itself (with the echo decided before the key, `EarlyEcho`), and libedit brought up
/// to date before any other key (`catchUpLibedit`). Its state is the editor's (stored
/// properties cannot live in an extension); what draws the line and the badge is in
/// `InteractiveEditor.swift`, `BadgePainter` and `LineCells`.
extension InteractiveEditor {
    /// libedit's character reader: waits for the next whole key (`KeyReader`); 1 when one is
    /// queued (libedit is then given the dispatch character), 0 at the end of input, -1 on a
    /// read error. Ordinary digits are typed here without libedit (`typeOrdinaryKeys`): it is
    /// given the dispatch character only for a key that needs more than an echo (`given`; or,
    /// after such digits, the first of them, `catchUpLibedit`).
    func readCharacter(_ el: OpaquePointer, giving given: inout wchar_t) -> Int32 {
        // libedit has just finished drawing. When cardline draws the badge, it brings it up to
        // date here (and resets the colour after any redraw of libedit's). When libedit draws it
        // as its right prompt and redraws only the changed cells, it leaves the badge's colour
        // on (the reset at the span's end is unchanged, so not sent), and the next digit it
        // echoes would take that colour: reset it here.
        if drawsBadge {
            finishAppend()
        } else if style.colour {
            write("\u{1B}[0m")
        }
        // Everything drawn is written: the field's characters are not left in the buffer.
        device.wipeOutputBuffer()
        // The badge after it, straight to the terminal (it holds no card digit).
        if drawsBadge { drawBadge() }
        // A swipe is collected unechoed in every field and in a `:` command (the engine takes it
        // at an empty number and refuses it elsewhere, so track text never lands on the line).
        while true {
            armEarlyEcho()
            let status = reader.wait(on: fileno(device.input))
            reader.earlyEcho.disarm()
            guard status == 1, echoesDigits, typeOrdinaryKeys(), !echoWentWrong else {
                // libedit acts on the key from the line as it is shown.
                if status == 1 && libeditBehind { given = catchUpLibedit(el) }
                return status
            }
        }
    }

    /// Types the queued keys that only append to the field (an ordinary digit, or a group's
    /// space and a digit) without libedit: the engine takes each, and cardline writes its echo
    /// and the badge counter's changed characters in one write(2), the first thing after the
    /// engine (a key costs a third of what libedit's dispatch, insert and redraw cost; issue 21
    /// item 7). libedit's buffer and its picture of the screen are brought up to date only when
    /// a key needs libedit (`catchUpLibedit`). True when every queued key was typed; false when
    /// one is left for libedit's dispatch, queued or, once the engine took it, in `takenOutcome`
    /// (or a timeout, resize or swipe is).
    private func typeOrdinaryKeys() -> Bool {
        // A digit whose echo went out as it was read (`armEarlyEcho`) is checked below: what
        // this would have written must be what was written, else the line is drawn again.
        var unchecked = reader.earlyEcho.takeWritten()
        defer { if unchecked { echoWentWrong = true } }
        guard maskedStep == nil, pendingOutput == nil, !quitRequested, choice != nil else { return false }
        while reader.keyIsNext {
            guard let key = reader.peek(), case .character(let character) = key.base, key.modifiers.isEmpty else { return false }
            if !libeditBehind { libeditHolds = shown.text.utf8.count }
            _ = reader.next()
            let outcome = engine.handle(.character(character), reloadingWith: loader)
            // The view brought up to date in place (`extendView`: characters appended to the
            // number, checked against what `currentView()` makes), when it is the line shown.
            // Once extended, a key that needs more than an echo is presented afresh from the
            // engine (`present`: it makes the view again; no message, so the view before it
            // is not asked for).
            let plain = outcome.refusal == nil && outcome.event == nil && outcome.command == nil && outcome.messages.isEmpty
                && warnings.isEmpty
            let appended = plain && shown.text == currentView.text ? extendedOnlyByProgress() : 0
            let end = (choice?.promptWidth ?? 0) + shown.width + appended
            if appended > 0 {
                choice!.progress = currentView.progress
                painter.want(logo: currentView.logo, progress: currentView.progress, style: style, securityCode: currentView.field == .cvv)
            }
            guard appended > 0, painter.leavesRoom(end: end, columns: terminal.columns) else {
                // More than an echo, or the line would reach the badge: libedit's dispatch
                // presents it (`nextInput`), as it would have.
                takenOutcome = outcome
                return false
            }
            _ = refusals.reasonToShow(outcome, inBurst: reader.inBurst)  // not refused: starts afresh
            echoAppended(appended, written: unchecked)
            unchecked = false
            libeditBehind = true
        }
        return reader.isEmpty
    }

    /// Before waiting for a key: when every digit typed next would only be appended
    /// (`EntryEngine.nextDigit`) and `typeOrdinaryKeys` would echo it, arms the reader with that
    /// echo (`EarlyEcho`), so that a digit read alone is echoed before anything else is done
    /// with it.
    private func armEarlyEcho() {
        guard echoesDigits, maskedStep == nil, pendingOutput == nil, !quitRequested, warnings.isEmpty, reader.isEmpty,
              let promptWidth = choice?.promptWidth, shown.text == currentView.text, let next = engine.nextDigit(),
              layoutMemo.keepsChoice(&currentView, progress: next.progress, columns: terminal.columns) else { return }
        let end = promptWidth + shown.width + (next.separated ? 2 : 1)
        guard painter.leavesRoom(end: end, columns: terminal.columns) else { return }
        var echo = ShortBytes()
        if next.separated { echo.append(0x20) }
        let digitAt = echo.count
        echo.append(0)
        guard painter.appendCounterUpdate(logo: currentView.logo, progress: next.progress, end: end, columns: terminal.columns,
                                          to: &echo) else { return }
        reader.earlyEcho.arm(echo, digitAt: digitAt)
    }


    /// Brings `currentView` up to date in place for the key the engine just took
    /// (`EntryEngine.extendView`) and returns how many characters it appended, when the layout
    /// stays as it is but for the progress; 0 otherwise (the view may be extended already).
    private func extendedOnlyByProgress() -> Int {
        let appended = engine.extendView(&currentView)
        guard appended > 0, layoutMemo.differsOnlyByProgress(&currentView, columns: terminal.columns) else { return 0 }
        return appended
    }

    /// Writes the `count` characters `currentView.text` ends with, just taken by the engine,
    /// and the badge's update after them, in one write(2); the bytes are wiped once written.
    /// `written`: the echo went out as the key was read (`EarlyEcho`): it is only checked.
    private func echoAppended(_ count: Int, written: Bool = false) {
        let text = currentView.text
        echo.count = 0
        // pointer: the digit read in place from the view's text, every digit (no copy to wipe).
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for index in (bytes.count - count)..<bytes.count { echo.append(bytes[index]) }
        }
        show(text, appending: count)
        let end = (choice?.promptWidth ?? 0) + shown.width
        if painter.draw(end: end, columns: terminal.columns, resetColour: style.colour),
           !painter.appendDrawn(to: &echo, room: ShortBytes.capacity - echo.count) {
            if written { echoWentWrong = true }
            writeEcho(written: written)
            if !written { painter.write(to: device.outputDescriptor) }
            return
        }
        if written && !reader.earlyEcho.matches(echo) { echoWentWrong = true }
        writeEcho(written: written)
    }

    /// Writes `echo` to the terminal (straight to its descriptor: the output stream is empty,
    /// flushed before the wait) and wipes it.
    private func writeEcho(written: Bool = false) {
        if !written { _ = Paths.writeAll(echo.storage.span.extracting(0..<echo.count), to: device.outputDescriptor) }
        for index in 0..<echo.count { echo.storage[index] = 0 }
        echo.count = 0
    }

    /// Brings libedit's buffer and its picture of the screen up to the line as shown, after
    /// `typeOrdinaryKeys` typed characters without it, before libedit acts on the next key: the
    /// characters go through libedit's own insert path, as they did when libedit echoed them
    /// (a full redraw, `cl_refresh_silently`, costs ten times as much), with its drawing
    /// discarded (`cl_draw_into_sink`) until the dispatch character after them comes round
    /// (`nextInput`). Returns the first character, for libedit's reader to give; the rest and
    /// the dispatch character are pushed.
    private func catchUpLibedit(_ el: OpaquePointer) -> wchar_t {
        libeditBehind = false
        var first = Action.inputKey
        // pointer: the line's bytes read in place by offset (no copy of the digits to wipe).
        shown.text.utf8.withContiguousStorageIfAvailable { text in
            guard libeditHolds < text.count else { return }
            if text.count - libeditHolds + 1 > catchUp.count {
                // (Not grown by appending: the old storage, freed, would keep the digits.)
                for index in 0..<catchUp.count { catchUp[index] = 0 }
                catchUp = [wchar_t](repeating: 0, count: text.count - libeditHolds + 1)
            }
            first = wchar_t(text[libeditHolds])
            var count = 0
            for index in (libeditHolds + 1)..<text.count {
                catchUp[count] = wchar_t(text[index])
                count += 1
            }
            catchUp[count] = Action.inputKey
            catchUp[count + 1] = 0
        }
        guard first != Action.inputKey else { return first }
        // Drawn into the discarding stream (there is one once `echoesDigits`; without it the
        // characters would be drawn again, harmlessly, over themselves).
        drawsIntoSink = cl_draw_into_sink(el, device.output) == 0
        el_wpush(el, catchUp)
        // The characters pushed are not left behind (libedit copies them).
        for index in 0..<catchUp.count { catchUp[index] = 0 }
        return first
    }
}

import CEditLine
import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// The editor's key input: libedit's character reader. Every key goes through libedit's
/// dispatch (`nextInput`), which hands it to the engine and draws what it did; what draws the
/// line and the badge is in `InteractiveEditor.swift`, `BadgePainter` and `LineCells`.
extension InteractiveEditor {
    /// libedit's character reader: waits for the next whole key (`KeyReader`); 1 when one is
    /// queued (libedit is then given the dispatch character, `given` as it is), 0 at the end of
    /// input, -1 on a read error.
    func readCharacter(_ el: OpaquePointer, giving given: inout wchar_t) -> Int32 {
        // libedit has just finished drawing. When libedit draws the badge as its right prompt
        // and redraws only the changed cells, it leaves the badge's colour on (the reset at the
        // span's end is unchanged, so not sent), and the next character it draws would take
        // that colour: reset it here.
        if !drawsBadge && style.colour { write("\u{1B}[0m") }
        // Everything drawn is written: the field's characters are not left in the buffer.
        device.wipeOutputBuffer()
        // The badge after it, straight to the terminal (it holds no card digit).
        if drawsBadge { drawBadge() }
        // A swipe is collected unechoed in every field and in a `:` command (the engine takes it
        // at an empty number and refuses it elsewhere, so track text never lands on the line).
        return reader.wait(on: fileno(device.input))
    }
}

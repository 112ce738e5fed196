/// An ordinary digit's echo, decided before the key comes (issue 21 item 7): after each key the
/// editor asks the engine what any next digit would do (`EntryEngine.nextDigit`) and, when every
/// digit would only be appended, arms this with the bytes such a digit's echo writes (the
/// digit, after a group's space, and the badge counter's changed characters:
/// `BadgePainter.appendCounterUpdate`). `KeyReader` writes it as soon as a read brings one
/// digit alone, before the key is decoded or the engine takes it; the editor then takes the key
/// as before (`InteractiveEditor.typeOrdinaryKeys`) and checks that what it would have written
/// is what was written (`matches`), else has the line drawn again. The digit is not kept: it
/// is written into the bytes for the write(2) and overwritten after it.
struct EarlyEcho {
    /// The echo, with a 0 where the digit goes (`digitAt`).
    private var bytes = ShortBytes()
    private var digitAt = 0
    /// A digit read alone may be echoed at once.
    private(set) var isArmed = false
    /// A digit's echo was written and the editor has not yet taken its key.
    private(set) var written = false

    /// Arms the echo: `echo` with the digit at `digitAt` (`echo` holds a 0 there).
    mutating func arm(_ echo: ShortBytes, digitAt: Int) {
        bytes = echo
        self.digitAt = digitAt
        isArmed = true
    }

    mutating func disarm() { isArmed = false }

    /// Writes the echo of `digit` (an ASCII digit, read alone) to `fd`, disarmed after it. The
    /// digit is overwritten once written.
    mutating func write(_ digit: UInt8, to fd: Int32) {
        bytes.storage[digitAt] = digit
        _ = Paths.writeAll(bytes.storage.span.extracting(0..<bytes.count), to: fd)
        bytes.storage[digitAt] = 0
        isArmed = false
        written = true
    }

    /// Whether an echo was written, which the caller now takes (it is no longer `written`).
    mutating func takeWritten() -> Bool {
        defer { written = false }
        return written
    }

    /// True when `echo`, what the editor finds to write for the digit the engine took, is what
    /// was written last: the same bytes but the digit's, which is an ASCII digit in both.
    /// (Mutating only so that calling it on the reader's property does not copy the echo.)
    mutating func matches(_ echo: borrowing ShortBytes) -> Bool {
        let count = bytes.count
        guard echo.count == count, digitAt < count else { return false }
        let mine = bytes.storage.span, theirs = echo.storage.span
        for index in 0..<count where index != digitAt && mine[index] != theirs[index] { return false }
        return theirs[digitAt] &- 0x30 < 10
    }
}

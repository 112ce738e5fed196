/// Turns the bytes a terminal sends (UTF-8 locale) into keys, incrementally: bytes may arrive
/// split anywhere across `feed` calls.
///
/// A small state machine with bounded memory (a pending sequence is at most 65 bytes, a paste
/// keeps at most `pasteLimit`). It understands:
/// - UTF-8 text (one key per scalar) and C0 controls; invalid UTF-8 becomes `.invalid` and
///   decoding resumes at the next byte.
/// - Alt chords sent as ESC + key (ESC + printable, control or UTF-8 character), and ESC before a
///   whole escape sequence (rxvt/PuTTY Alt-arrow `ESC ESC [ A`). ESC ESC not followed by `[` or
///   `O` is two Esc presses.
/// - CSI sequences: xterm cursor/editing/function keys with modifier parameters
///   (`CSI 1;5D`, `CSI 3;2~`), rxvt's `$ ^ @` finals and `CSI a`…`d`, the Linux console's
///   `CSI [ A`…`E`, focus events, bracketed paste, xterm modifyOtherKeys (`CSI 27;mod;code ~`)
///   and CSI u (`CSI code;mod u`, the kitty/fixterms form): a printable code point becomes that
///   character with the modifiers, a control code a `.control`, 27 `.escape`. rxvt's `$` is
///   taken as a final byte only right after a plain number (`CSI 2 $`).
/// - SS3 sequences (`ESC O`), with xterm's modifier digit (`ESC O 5 A`), the application keypad,
///   and rxvt's `ESC O a`…`d` (Ctrl-arrows).
/// - Anything else well formed (mouse reports, status replies, private-marker CSI) is `.unknown`
///   with all its bytes; legacy X10 mouse reports (`CSI M` + 3 bytes) too.
///
/// A CSI longer than 64 bytes before its final byte drops the rest of its parameters up to
/// its final byte and ends as one `.unknown`: its digits are never typed. A sequence
/// interrupted by a byte outside 0x20–0x7E ends as `.unknown` of what it had, and the byte that
/// ended it is decoded afresh, so a stray ESC is never swallowed. A pause that ends ESC,
/// ESC [ or ESC O as keys of their own leaves the next byte free to continue the sequence
/// (see `resume`).
public struct KeyDecoder: Sendable {
    /// At most this many bytes of a bracketed paste are kept; the rest, up to the end marker, are
    /// consumed and dropped (a UTF-8 character cut by the limit is dropped whole).
    public static let pasteLimit = 4096
    /// A CSI sequence may hold at most this many bytes before its final byte.
    static let csiLimit = 64
    /// An SS3 sequence may hold at most this many bytes before its final byte.
    static let ss3Limit = 16
    static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 2 0 1 ~

    enum State: Equatable, Sendable {
        case ground
        /// `pending` is ESC.
        case escape
        /// `pending` is ESC [ and what followed.
        case csi
        /// `pending` is ESC [ [ (Linux console F1–F5).
        case linuxFunction
        /// `pending` is ESC [ M and up to two raw bytes (X10 mouse report).
        case x10Mouse
        /// `pending` is ESC O and what followed.
        case ss3
        /// `pending` holds the start of a UTF-8 character; `remaining` continuation bytes are
        /// due, the next in `low...high`.
        case utf8(remaining: Int, low: UInt8, high: UInt8)
        /// Inside a bracketed paste; `matched` bytes of the end marker have arrived.
        case paste(matched: Int)
        /// A CSI or SS3 sequence ran past its limit: its remaining parameter and intermediate
        /// bytes are dropped up to its final byte, and it ends as one `.unknown` (never as
        /// typed digits). `pending` keeps what came before the limit.
        case discarding
    }

    /// What a pause cut short, when the pause ended a sequence: the next byte may be the rest
    /// of it (a key split by a slow link). Set by `flush()`, cleared by the next byte.
    private enum CutShort: Equatable, Sendable { case escape, csi, ss3 }
    private var cutShort: CutShort?

    var state: State = .ground
    /// The bytes of the sequence being decoded (without `escPrefix`'s ESC).
    var pending: [UInt8] = []
    /// An ESC came before the pending sequence: Alt, or a lone Esc if the sequence fails.
    var escPrefix = false
    /// The kept bytes of the current paste.
    private var pasteBytes: [UInt8] = []
    /// Bytes of the current paste dropped beyond `pasteLimit`.
    private var pasteDropped = 0

    /// A decoder with nothing pending.
    public init() {
        // Room for the longest paste kept, reserved once: growing would leave copies of a
        // pasted number in freed memory.
        pasteBytes.reserveCapacity(Self.pasteLimit)
    }

    /// True while a sequence (escape sequence, UTF-8 character, paste) is incomplete.
    public var isPending: Bool { state != .ground }

    /// True inside a bracketed paste (which `flush()` does not end).
    public var isInPaste: Bool {
        if case .paste = state { return true }
        return false
    }

    /// Feeds bytes; returns the keys completed by them, in order.
    public mutating func feed<S: Sequence>(_ bytes: S) -> [TerminalKey] where S.Element == UInt8 {
        var keys: [TerminalKey] = []
        for byte in bytes { feed(byte, into: &keys) }
        return keys
    }

    /// Feeds bytes, appending the keys they complete to `keys`, in order: `feed(_:)` without
    /// an array made per call (the prompt reads the terminal into one buffer and keeps one
    /// array of keys).
    public mutating func feed(_ bytes: Span<UInt8>, into keys: inout [TerminalKey]) {
        for index in bytes.indices { feed(bytes[index], into: &keys) }
    }

    private mutating func feed(_ byte: UInt8, into keys: inout [TerminalKey]) {
        if let cut = cutShort {
            cutShort = nil
            resume(cut, with: byte)
        }
        // A byte that ends a sequence without belonging to it is decoded again in the new
        // state; each retry moves to a state nearer `.ground`, so this ends within 3 rounds.
        while !step(byte, into: &keys) {}
    }

    /// Called when no byte came for a while: an incomplete sequence ends as what it is so far
    /// (ESC alone → `.escape`; ESC + printable c → Alt+c as `.character(c)` with `.alt`; ESC [
    /// alone → Alt-[; ESC O alone → Alt-O; a longer incomplete sequence → `.unknown`; an
    /// incomplete UTF-8 sequence → `.invalid`). An unfinished paste is NOT ended by flush (pastes
    /// can be long and slow over SSH) — only by its end marker or `finish()`.
    public mutating func flush() -> [TerminalKey] {
        if isInPaste { return [] }
        switch state {
        case .escape where !escPrefix: cutShort = .escape
        case .csi where pending.count == 2 && !escPrefix: cutShort = .csi
        case .ss3 where pending.count == 2 && !escPrefix: cutShort = .ss3
        default: cutShort = nil
        }
        return endPending()
    }

    /// True when a pause has just ended ESC, ESC [ or ESC O as a key of its own and the next
    /// byte may still continue it; the front end calls `forgetCutShort()` after a longer pause.
    public var isHoldingCutShort: Bool { cutShort != nil }

    /// After a long pause, the next byte starts afresh: a person who pressed Esc or Alt-[ and
    /// then typed digits gets the digits.
    public mutating func forgetCutShort() { cutShort = nil }

    /// After a pause ended ESC, ESC [ or ESC O as a key of its own, a next byte that can only
    /// continue such a sequence is taken as its rest, so that Ctrl-Left split by a slow link
    /// (ESC, a pause, `[1;5D`) becomes one more refused key and never types its digits:
    /// `[` or `O` after ESC, a parameter byte after ESC [, a final byte after ESC O. A person
    /// rarely types those right after Esc or Alt-[, and they are refused in every field anyway.
    private mutating func resume(_ cut: CutShort, with byte: UInt8) {
        guard state == .ground else { return }
        switch cut {
        case .escape where byte == 0x5B || byte == 0x4F:
            pending = [0x1B]
            state = .escape
        case .csi where (0x30...0x3F).contains(byte):
            pending = [0x1B, 0x5B]
            state = .csi
        case .ss3 where (0x30...0x7E).contains(byte):
            pending = [0x1B, 0x4F]
            state = .ss3
        default:
            break
        }
    }

    /// End of input: everything pending, including an unfinished paste (delivered as `.paste` of
    /// what arrived, a partial end marker included), is returned.
    public mutating func finish() -> [TerminalKey] {
        if case .paste(let matched) = state {
            for byte in Self.pasteEnd[..<matched] { keepPasteByte(byte) }
            let key = TerminalKey(.paste(pasteText()))
            reset()
            return [key]
        }
        return endPending()
    }

    // MARK: - The state machine

    /// Decodes one byte; false when the byte ended the pending sequence without being part of
    /// it and must be decoded again.
    private mutating func step(_ byte: UInt8, into keys: inout [TerminalKey]) -> Bool {
        switch state {
        case .ground:
            ground(byte, into: &keys)
            return true

        case .escape:
            if byte == 0x5B {  // [
                pending.append(byte)
                state = .csi
                return true
            }
            if byte == 0x4F {  // O
                pending.append(byte)
                state = .ss3
                return true
            }
            if escPrefix {
                // ESC ESC + something other than [ or O: the first ESC was a lone Esc.
                keys.append(TerminalKey(.escape))
                escPrefix = false
                return false
            }
            switch byte {
            case 0x1B:
                escPrefix = true
            case 0x00..<0x20, 0x7F:
                keys.append(TerminalKey(.control(byte), modifiers: .alt))
                reset()
            case 0x20..<0x7F:
                keys.append(TerminalKey(.character(Character(Unicode.Scalar(byte))), modifiers: .alt))
                reset()
            case 0xC2...0xF4:
                escPrefix = true
                startUTF8(byte)
            default:
                keys += endPending()
                return false
            }
            return true

        case .csi:
            if pending.count == 2 && byte == 0x4D {  // ESC [ M: X10 mouse, 3 raw bytes follow
                pending.append(byte)
                state = .x10Mouse
                return true
            }
            if pending.count == 2 && byte == 0x5B {  // ESC [ [: Linux console F1–F5
                pending.append(byte)
                state = .linuxFunction
                return true
            }
            switch byte {
            case 0x40...0x7E:
                pending.append(byte)
                completeCSI(into: &keys)
                return true
            case 0x24 where pending.count > 2 && pending[2...].allSatisfy(Self.isDigit):
                pending.append(byte)  // rxvt's Shift form: ESC [ 2 $
                completeCSI(into: &keys)
                return true
            case 0x20...0x3F where pending.count < Self.csiLimit:
                pending.append(byte)
                return true
            case 0x20...0x3F:
                state = .discarding
                return true
            default:
                keys += endPending()
                return false
            }

        case .discarding:
            switch byte {
            case 0x20...0x3F:
                return true
            case 0x40...0x7E:
                keys.append(TerminalKey(.unknown(prefixedPending + [byte])))
                reset()
                return true
            default:
                keys += endPending()
                return false
            }

        case .linuxFunction:
            guard (0x20...0x7E).contains(byte) else {
                keys += endPending()
                return false
            }
            pending.append(byte)
            if (0x41...0x45).contains(byte) {  // A…E
                emit(.function(Int(byte) - 0x40), [], into: &keys)
            } else {
                keys.append(TerminalKey(.unknown(prefixedPending)))
            }
            reset()
            return true

        case .x10Mouse:
            guard byte >= 0x20 else {
                keys += endPending()
                return false
            }
            pending.append(byte)
            if pending.count == 6 {
                keys.append(TerminalKey(.unknown(prefixedPending)))
                reset()
            }
            return true

        case .ss3:
            switch byte {
            case 0x30...0x3F where pending.count < Self.ss3Limit:
                pending.append(byte)
                return true
            case 0x30...0x3F:
                state = .discarding
                return true
            case 0x20...0x7E:
                pending.append(byte)
                completeSS3(into: &keys)
                return true
            default:
                keys += endPending()
                return false
            }

        case .utf8(let remaining, let low, let high):
            guard low <= byte && byte <= high else {
                keys += endPending()
                return false
            }
            pending.append(byte)
            if remaining > 1 {
                state = .utf8(remaining: remaining - 1, low: 0x80, high: 0xBF)
            } else {
                var value = UInt32(pending[0]) & (pending.count == 2 ? 0x1F : pending.count == 3 ? 0x0F : 0x07)
                for continuation in pending.dropFirst() { value = value << 6 | UInt32(continuation & 0x3F) }
                // The lead and continuation ranges admit only scalars: no overlongs, surrogates
                // or values above U+10FFFF.
                let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                keys.append(TerminalKey(.character(Character(scalar)), modifiers: escPrefix ? .alt : []))
                reset()
            }
            return true

        case .paste(let matched):
            if byte == Self.pasteEnd[matched] {
                if matched + 1 == Self.pasteEnd.count {
                    keys.append(TerminalKey(.paste(pasteText())))
                    reset()
                } else {
                    state = .paste(matched: matched + 1)
                }
                return true
            }
            // Not the end marker after all: what matched so far is content. (Only the marker's
            // first byte is ESC, so a mismatch can restart a match only at ESC.)
            for held in Self.pasteEnd[..<matched] { keepPasteByte(held) }
            if byte == Self.pasteEnd[0] {
                state = .paste(matched: 1)
            } else {
                keepPasteByte(byte)
                state = .paste(matched: 0)
            }
            return true
        }
    }

    private mutating func ground(_ byte: UInt8, into keys: inout [TerminalKey]) {
        switch byte {
        case 0x1B:
            pending = [byte]
            state = .escape
        case 0x00..<0x20, 0x7F:
            keys.append(TerminalKey(.control(byte)))
        case 0x20..<0x7F:
            keys.append(TerminalKey(.character(Character(Unicode.Scalar(byte)))))
        case 0xC2...0xF4:
            startUTF8(byte)
        default:  // continuation bytes, C0, C1, F5–FF
            keys.append(TerminalKey(.invalid([byte])))
        }
    }

    /// Starts a UTF-8 character at lead byte `lead` (0xC2–0xF4), keeping `escPrefix`.
    private mutating func startUTF8(_ lead: UInt8) {
        pending = [lead]
        switch lead {
        case 0xC2...0xDF: state = .utf8(remaining: 1, low: 0x80, high: 0xBF)
        case 0xE0: state = .utf8(remaining: 2, low: 0xA0, high: 0xBF)  // no overlongs
        case 0xED: state = .utf8(remaining: 2, low: 0x80, high: 0x9F)  // no surrogates
        case 0xE1...0xEF: state = .utf8(remaining: 2, low: 0x80, high: 0xBF)
        case 0xF0: state = .utf8(remaining: 3, low: 0x90, high: 0xBF)  // no overlongs
        case 0xF4: state = .utf8(remaining: 3, low: 0x80, high: 0x8F)  // nothing above U+10FFFF
        default: state = .utf8(remaining: 3, low: 0x80, high: 0xBF)
        }
    }

    /// The pending bytes with the ESC prefix, as an unknown sequence shows them.
    var prefixedPending: [UInt8] { (escPrefix ? [0x1B] : []) + pending }

    mutating func reset() {
        state = .ground
        pending = []
        escPrefix = false
        // A paste may hold a card number: overwritten, and the storage kept for the next one.
        pasteBytes.withUnsafeMutableBytes { if let base = $0.baseAddress { wipeBytes(base, $0.count) } }
        pasteBytes.removeAll(keepingCapacity: true)
        pasteDropped = 0
    }

    /// Ends an incomplete sequence (not a paste) as what it is so far, and resets.
    private mutating func endPending() -> [TerminalKey] {
        var keys: [TerminalKey] = []
        switch state {
        case .ground, .paste:
            return []
        case .escape:
            if escPrefix { keys.append(TerminalKey(.escape)) }
            keys.append(TerminalKey(.escape))
        case .csi where pending.count == 2, .ss3 where pending.count == 2:
            // ESC [ or ESC O alone: Alt-[ or Alt-O (after a lone Esc for ESC ESC [).
            if escPrefix { keys.append(TerminalKey(.escape)) }
            keys.append(TerminalKey(.character(Character(Unicode.Scalar(pending[1]))), modifiers: .alt))
        case .csi, .ss3, .linuxFunction, .x10Mouse, .discarding:
            keys.append(TerminalKey(.unknown(prefixedPending)))
        case .utf8:
            if escPrefix { keys.append(TerminalKey(.escape)) }
            keys.append(TerminalKey(.invalid(pending)))
        }
        reset()
        return keys
    }

    /// Adds a decoded key, with Alt for an ESC prefix.
    mutating func emit(
        _ base: TerminalKey.Base, _ modifiers: TerminalKey.Modifiers,
        into keys: inout [TerminalKey]
    ) {
        switch base {
        case .focusIn, .focusOut:
            // Not keys a person presses: an ESC before them was a lone Esc.
            if escPrefix { keys.append(TerminalKey(.escape)) }
            keys.append(TerminalKey(base, modifiers: modifiers))
        default:
            keys.append(TerminalKey(base, modifiers: escPrefix ? modifiers.union(.alt) : modifiers))
        }
    }

    // MARK: - Paste

    private mutating func keepPasteByte(_ byte: UInt8) {
        if pasteBytes.count < Self.pasteLimit {
            pasteBytes.append(byte)
        } else {
            pasteDropped += 1
        }
    }

    private func pasteText() -> String {
        var bytes = pasteBytes[...]
        if pasteDropped > 0 {
            // Drop a UTF-8 character the limit cut in two rather than show U+FFFD for it.
            var lead = bytes.endIndex - 1
            while lead > bytes.startIndex && bytes.endIndex - lead < 4 && bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
            if lead >= bytes.startIndex {
                let first = bytes[lead]
                let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
                if length > bytes.endIndex - lead { bytes = bytes[..<lead] }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

}

/// One thing the terminal sent: a named key, a character, or something refused, with the modifier
/// keys held.
///
/// Every byte a terminal sends ends up in exactly one `TerminalKey` (see `KeyDecoder`).
public struct TerminalKey: Equatable, Hashable, Sendable {
    /// What was pressed (or sent), without modifiers.
    public enum Base: Equatable, Hashable, Sendable {
        /// Printable text decoded from UTF-8, one Unicode scalar per key (so a combining mark
        /// typed after a letter arrives as a key of its own). Space and U+0080 and above included.
        case character(Character)
        /// A C0 control byte 0x00–0x1F other than ESC (0x1B), or 0x7F (DEL). Tab, Enter (0x0D),
        /// Backspace (0x7F or 0x08) arrive this way; the front end gives them their meaning.
        case control(UInt8)
        /// A lone Esc.
        case escape
        /// Up arrow.
        case up
        /// Down arrow.
        case down
        /// Right arrow.
        case right
        /// Left arrow.
        case left
        /// Home (also vt220 Find, `ESC [ 1 ~`).
        case home
        /// End (also vt220 Select, `ESC [ 4 ~`).
        case end
        /// Insert.
        case insert
        /// Delete (the key that deletes forward, not Backspace).
        case delete
        /// Page Up.
        case pageUp
        /// Page Down.
        case pageDown
        /// Keypad 5 with Num Lock off: `CSI E`, `SS3 E`, and the Linux console's `CSI G`.
        case begin
        /// Shift-Tab (`CSI Z`).
        case backTab
        /// F1…F63 (in practice F1–F20; higher keys arrive as F1–F12 with modifiers).
        case function(Int)
        /// An application-keypad key (`SS3 p`…`SS3 y` → "0"…"9", and `* + , - . / =`).
        case keypad(Character)
        /// The keypad's Enter in application-keypad mode (`SS3 M`).
        case keypadEnter
        /// The terminal window gained focus (`CSI I`, focus reporting).
        case focusIn
        /// The terminal window lost focus (`CSI O`, focus reporting).
        case focusOut
        /// A bracketed paste: the bytes between `ESC [ 200 ~` and `ESC [ 201 ~`, decoded as UTF-8
        /// with invalid bytes replaced by U+FFFD, at most `KeyDecoder.pasteLimit` bytes of it.
        case paste(String)
        /// Bytes that are not UTF-8: one stray byte, or a sequence cut short (its maximal valid
        /// prefix, as Unicode recommends for U+FFFD substitution).
        case invalid([UInt8])
        /// A complete (or abandoned) escape sequence with no meaning known here: mouse reports,
        /// status replies, anything else. Holds every byte of it.
        case unknown([UInt8])
    }

    /// The modifier keys held, as xterm encodes them (the modifier parameter minus one).
    public struct Modifiers: OptionSet, Hashable, Sendable {
        /// The bit pattern: shift 1, alt 2, control 4, meta 8.
        public var rawValue: UInt8
        /// Modifiers from xterm's bit pattern.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Shift.
        public static let shift = Modifiers(rawValue: 1)
        /// Alt (Option; also an Esc sent before the key).
        public static let alt = Modifiers(rawValue: 2)
        /// Control.
        public static let control = Modifiers(rawValue: 4)
        /// Meta (xterm's fourth modifier; kitty's Super).
        public static let meta = Modifiers(rawValue: 8)
    }

    /// What was pressed.
    public var base: Base
    /// The modifier keys held with it.
    public var modifiers: Modifiers

    /// A key with the modifiers held (none by default).
    public init(_ base: Base, modifiers: Modifiers = []) {
        self.base = base
        self.modifiers = modifiers
    }

    /// The key as a person would name it: "Left", "Ctrl-Left", "Alt-x", "Shift-Tab", "F5",
    /// "Ctrl-Shift-F5", "Esc", "Delete", "Ctrl-A", "Page Up", "keypad 5".
    ///
    /// Modifiers come in the order Ctrl, Alt, Shift, Meta ("Ctrl-Alt-Shift-Up"); a control byte
    /// counts as Ctrl ("Ctrl-Alt-A" for ESC ^A). Characters that would not show as themselves
    /// (controls, format characters, marks, spaces other than " ") are named "U+0301". Nothing
    /// typed is spelled back when it can be a card's digit (issue 20): a digit held with a
    /// modifier is named "digit" ("Alt-digit", "Ctrl-keypad digit"), pastes by size only, and
    /// an unknown or malformed escape sequence by its kind ("a mouse report", "a status reply
    /// from the terminal", "an unknown escape sequence"), never by its bytes: `ESC [` followed
    /// by fast typing holds the whole card. Invalid bytes (never ASCII digits) are shown in
    /// hex: "a byte that is not UTF-8 (0xFF)".
    public var name: String {
        var mods = modifiers
        let baseName: String
        switch base {
        case .character(let c) where !mods.isEmpty && Self.isDigit(c): baseName = "digit"
        case .keypad(let c) where !mods.isEmpty && Self.isDigit(c): baseName = "keypad digit"
        case .character(let c): baseName = Self.characterName(c)
        case .control(let byte):
            switch byte {
            case 0x09: baseName = "Tab"
            case 0x0D: baseName = "Enter"
            case 0x7F: baseName = "Backspace"
            case 0x00: mods.insert(.control); baseName = "Space"
            default:
                mods.insert(.control)
                baseName = String(Character(Unicode.Scalar(byte + 0x40)))
            }
        case .escape: baseName = "Esc"
        case .up: baseName = "Up"
        case .down: baseName = "Down"
        case .right: baseName = "Right"
        case .left: baseName = "Left"
        case .home: baseName = "Home"
        case .end: baseName = "End"
        case .insert: baseName = "Insert"
        case .delete: baseName = "Delete"
        case .pageUp: baseName = "Page Up"
        case .pageDown: baseName = "Page Down"
        case .begin: baseName = "keypad 5"
        case .backTab: mods.insert(.shift); baseName = "Tab"
        case .function(let n): baseName = "F\(n)"
        case .keypad(let c): baseName = "keypad \(c)"
        case .keypadEnter: baseName = "keypad Enter"
        case .focusIn: return "focus in"
        case .focusOut: return "focus out"
        case .paste(let text):
            let count = text.unicodeScalars.count
            return count == 1 ? "a paste of 1 character" : "a paste of \(count) characters"
        case .invalid(let bytes):
            let hex = bytes.map { Self.hex($0) }.joined(separator: " ")
            return bytes.count == 1 ? "a byte that is not UTF-8 (\(hex))" : "bytes that are not UTF-8 (\(hex))"
        case .unknown(let bytes):
            return Self.sequenceKind(bytes)
        }
        var parts: [String] = []
        if mods.contains(.control) { parts.append("Ctrl") }
        if mods.contains(.alt) { parts.append("Alt") }
        if mods.contains(.shift) { parts.append("Shift") }
        if mods.contains(.meta) { parts.append("Meta") }
        parts.append(baseName)
        return parts.joined(separator: "-")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }

    /// A digit of any script (a card's digit, typed with a modifier held).
    private static func isDigit(_ c: Character) -> Bool {
        c.unicodeScalars.count == 1 && c.unicodeScalars.first!.properties.numericType == .decimal
    }

    /// What an unknown escape sequence is, named by its shape alone: its bytes may be keys
    /// typed fast after `ESC [`, a card number among them.
    static func sequenceKind(_ bytes: [UInt8]) -> String {
        var body = bytes[...]
        while body.first == 0x1B { body = body.dropFirst() }  // ESC, or ESC ESC (Alt)
        guard body.first == 0x5B, let final = body.last, body.count >= 2 else { return "an unknown escape sequence" }
        let parameters = body.dropFirst().dropLast()
        let isNumbers = parameters.allSatisfy { (0x30...0x3B).contains($0) }
        switch final {
        case _ where body.count == 5 && body[body.startIndex + 1] == 0x4D,  // X10: CSI M and three bytes
             0x4D where parameters.first == 0x3C && parameters.dropFirst().allSatisfy({ (0x30...0x3B).contains($0) }),
             0x6D where parameters.first == 0x3C && parameters.dropFirst().allSatisfy({ (0x30...0x3B).contains($0) }),
             0x4D where isNumbers && parameters.split(separator: 0x3B).count == 3:  // urxvt
            return "a mouse report"
        case 0x52 where isNumbers,  // cursor position
             0x63 where parameters.first == 0x3F || parameters.first == 0x3E,  // device attributes
             0x6E where isNumbers, 0x74 where isNumbers,
             0x79 where parameters.last == 0x24:  // mode report
            return "a status reply from the terminal"
        default:
            return "an unknown escape sequence"
        }
    }

    /// A character as a name that is safe to print: itself, or `U+XXXX` for controls (C0 and
    /// C1), format and bidi characters, separators, marks and unassigned code points.
    static func characterName(_ c: Character) -> String {
        guard let scalar = c.unicodeScalars.first else { return "" }
        if scalar == " " { return "Space" }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator,
             .paragraphSeparator, .spaceSeparator, .nonspacingMark, .enclosingMark, .spacingMark:
            var digits = String(scalar.value, radix: 16, uppercase: true)
            while digits.count < 4 { digits = "0" + digits }
            return "U+" + digits
        default:
            return String(c)
        }
    }
}

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
    static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E] // ESC [ 2 0 1 ~

    private enum State: Equatable, Sendable {
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

    private var state: State = .ground
    /// The bytes of the sequence being decoded (without `escPrefix`'s ESC).
    private var pending: [UInt8] = []
    /// An ESC came before the pending sequence: Alt, or a lone Esc if the sequence fails.
    private var escPrefix = false
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
    // unsafe: the prompt's read buffer, lent for this call only (no array made per read).
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, into keys: inout [TerminalKey]) {
        for byte in bytes { feed(byte, into: &keys) }
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
            if byte == 0x5B { // [
                pending.append(byte)
                state = .csi
                return true
            }
            if byte == 0x4F { // O
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
            if pending.count == 2 && byte == 0x4D { // ESC [ M: X10 mouse, 3 raw bytes follow
                pending.append(byte)
                state = .x10Mouse
                return true
            }
            if pending.count == 2 && byte == 0x5B { // ESC [ [: Linux console F1–F5
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
                pending.append(byte) // rxvt's Shift form: ESC [ 2 $
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
            if (0x41...0x45).contains(byte) { // A…E
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
        default: // continuation bytes, C0, C1, F5–FF
            keys.append(TerminalKey(.invalid([byte])))
        }
    }

    /// Starts a UTF-8 character at lead byte `lead` (0xC2–0xF4), keeping `escPrefix`.
    private mutating func startUTF8(_ lead: UInt8) {
        pending = [lead]
        switch lead {
        case 0xC2...0xDF: state = .utf8(remaining: 1, low: 0x80, high: 0xBF)
        case 0xE0: state = .utf8(remaining: 2, low: 0xA0, high: 0xBF) // no overlongs
        case 0xED: state = .utf8(remaining: 2, low: 0x80, high: 0x9F) // no surrogates
        case 0xE1...0xEF: state = .utf8(remaining: 2, low: 0x80, high: 0xBF)
        case 0xF0: state = .utf8(remaining: 3, low: 0x90, high: 0xBF) // no overlongs
        case 0xF4: state = .utf8(remaining: 3, low: 0x80, high: 0x8F) // nothing above U+10FFFF
        default: state = .utf8(remaining: 3, low: 0x80, high: 0xBF)
        }
    }

    /// The pending bytes with the ESC prefix, as an unknown sequence shows them.
    private var prefixedPending: [UInt8] { (escPrefix ? [0x1B] : []) + pending }

    private mutating func reset() {
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
    private mutating func emit(_ base: TerminalKey.Base, _ modifiers: TerminalKey.Modifiers,
                               into keys: inout [TerminalKey]) {
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

    // MARK: - Interpreting complete sequences

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Numeric parameters separated by `;` (an empty one is nil; sub-parameters after `:` are
    /// ignored); nil when other bytes (private markers, intermediates) are present.
    private static func parameters(_ bytes: ArraySlice<UInt8>) -> [Int?]? {
        var result: [Int?] = []
        var current: Int?
        var inSubParameter = false
        for byte in bytes {
            switch byte {
            case 0x30...0x39:
                if !inSubParameter { current = min((current ?? 0) * 10 + Int(byte - 0x30), 99_999) }
            case 0x3B: // ;
                result.append(current)
                current = nil
                inSubParameter = false
            case 0x3A: // :
                inSubParameter = true
            default:
                return nil
            }
        }
        result.append(current)
        return result
    }

    /// xterm's modifier parameter: 1 + bitmask (shift 1, alt 2, ctrl 4, meta 8); absent is none.
    private static func modifiers(_ parameter: Int?) -> TerminalKey.Modifiers? {
        guard let parameter else { return [] }
        guard (1...16).contains(parameter) else { return nil }
        return TerminalKey.Modifiers(rawValue: UInt8(parameter - 1))
    }

    /// The modifiers of `CSI 1;mod X` / `CSI X` (first parameter absent or 1).
    private static func cursorModifiers(_ p: [Int?]) -> TerminalKey.Modifiers? {
        guard p.count <= 2, p[0] == nil || p[0] == 1 else { return nil }
        return modifiers(p.count == 2 ? p[1] : nil)
    }

    /// The key of `CSI n ~` (also rxvt's `CSI n $`, `^`, `@`).
    private static func tildeKey(_ n: Int) -> TerminalKey.Base? {
        switch n {
        case 1, 7: return .home
        case 2: return .insert
        case 3: return .delete
        case 4, 8: return .end
        case 5: return .pageUp
        case 6: return .pageDown
        case 11...15: return .function(n - 10)
        case 17...21: return .function(n - 11)
        case 23...26: return .function(n - 12)
        case 28, 29: return .function(n - 13)
        case 31...34: return .function(n - 14)
        default: return nil
        }
    }

    /// The cursor-style final bytes shared by CSI and SS3.
    private static func cursorKey(_ final: UInt8) -> TerminalKey.Base? {
        switch final {
        case 0x41: return .up // A
        case 0x42: return .down // B
        case 0x43: return .right // C
        case 0x44: return .left // D
        case 0x48: return .home // H
        case 0x46: return .end // F
        case 0x45: return .begin // E
        case 0x50...0x53: return .function(Int(final) - 0x4F) // P Q R S
        default: return nil
        }
    }

    /// A CSI u / modifyOtherKeys code point with its modifier parameter.
    private static func codePointKey(_ code: Int?, _ modifierParameter: Int?) -> TerminalKey? {
        guard let code, var mods = modifierParameter else { return nil }
        mods = (mods - 1) & ~(64 | 128) // kitty's Caps Lock and Num Lock bits
        guard let modifiers = modifiers(mods + 1) else { return nil }
        switch code {
        case 27: return TerminalKey(.escape, modifiers: modifiers)
        case 0..<0x20, 0x7F: return TerminalKey(.control(UInt8(code)), modifiers: modifiers)
        case 0xE000...0xF8FF: return nil // kitty's functional keys live in the private use area
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            return TerminalKey(.character(Character(scalar)), modifiers: modifiers)
        }
    }

    private mutating func completeCSI(into keys: inout [TerminalKey]) {
        let final = pending[pending.count - 1]
        let body = pending[2..<(pending.count - 1)]
        var decoded: TerminalKey?
        var pasteStart = false
        if let p = Self.parameters(body) {
            switch final {
            case 0x41...0x48, 0x50...0x53, 0x5A: // A–H, P–S, Z
                let base: TerminalKey.Base? = final == 0x5A ? .backTab : final == 0x47 ? .begin : Self.cursorKey(final)
                if let base, let mods = Self.cursorModifiers(p) { decoded = TerminalKey(base, modifiers: mods) }
            case 0x49, 0x4F: // I, O
                if p == [nil] { decoded = TerminalKey(final == 0x49 ? .focusIn : .focusOut) }
            case 0x61...0x64: // rxvt Shift-arrows: a b c d
                let arrows: [TerminalKey.Base] = [.up, .down, .right, .left]
                if p == [nil] { decoded = TerminalKey(arrows[Int(final - 0x61)], modifiers: .shift) }
            case 0x7E: // ~
                if p.count == 3 && p[0] == 27 {
                    decoded = Self.codePointKey(p[2], p[1]) // xterm modifyOtherKeys
                } else if p == [200] {
                    pasteStart = true
                } else if p.count <= 2, let n = p[0], let base = Self.tildeKey(n),
                          let mods = Self.modifiers(p.count == 2 ? p[1] : nil) {
                    decoded = TerminalKey(base, modifiers: mods)
                }
            case 0x24, 0x5E, 0x40: // rxvt: $ Shift, ^ Ctrl, @ Ctrl-Shift
                let mods: TerminalKey.Modifiers = final == 0x24 ? .shift : final == 0x5E ? .control : [.control, .shift]
                if p.count == 1, let n = p[0], let base = Self.tildeKey(n) { decoded = TerminalKey(base, modifiers: mods) }
            case 0x75: // u
                if (1...3).contains(p.count) { decoded = Self.codePointKey(p[0], p.count >= 2 ? p[1] ?? 1 : 1) }
            default:
                break
            }
        }
        if pasteStart {
            if escPrefix { keys.append(TerminalKey(.escape)) }
            reset()
            state = .paste(matched: 0)
        } else if let decoded {
            emit(decoded.base, decoded.modifiers, into: &keys)
            reset()
        } else {
            keys.append(TerminalKey(.unknown(prefixedPending)))
            reset()
        }
    }

    private mutating func completeSS3(into keys: inout [TerminalKey]) {
        let final = pending[pending.count - 1]
        let body = pending[2..<(pending.count - 1)]
        var decoded: TerminalKey?
        // xterm's modifier digit: ESC O 5 A (or ESC O 1;5 A); none without parameters.
        var mods: TerminalKey.Modifiers? = []
        if !body.isEmpty {
            if let p = Self.parameters(body), p.allSatisfy({ $0 != nil }) {
                mods = p.count == 1 ? Self.modifiers(p[0]) : Self.cursorModifiers(p)
            } else {
                mods = nil
            }
        }
        if let mods {
            let keypad: [UInt8: Character] = [
                0x6A: "*", 0x6B: "+", 0x6C: ",", 0x6D: "-", 0x6E: ".", 0x6F: "/", 0x58: "=",
            ]
            switch final {
            case 0x70...0x79: // p…y: keypad 0…9
                decoded = TerminalKey(.keypad(Character(Unicode.Scalar(final - 0x70 + 0x30))), modifiers: mods)
            case 0x4D: // M
                decoded = TerminalKey(.keypadEnter, modifiers: mods)
            case 0x61...0x64 where body.isEmpty: // rxvt Ctrl-arrows: a b c d
                let arrows: [TerminalKey.Base] = [.up, .down, .right, .left]
                decoded = TerminalKey(arrows[Int(final - 0x61)], modifiers: .control)
            default:
                if let c = keypad[final] {
                    decoded = TerminalKey(.keypad(c), modifiers: mods)
                } else if let base = Self.cursorKey(final) {
                    decoded = TerminalKey(base, modifiers: mods)
                }
            }
        }
        if let decoded {
            emit(decoded.base, decoded.modifiers, into: &keys)
        } else {
            keys.append(TerminalKey(.unknown(prefixedPending)))
        }
        reset()
    }
}

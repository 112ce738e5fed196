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
            case 0x00:
                mods.insert(.control)
                baseName = "Space"
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
        case .backTab:
            mods.insert(.shift)
            baseName = "Tab"
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

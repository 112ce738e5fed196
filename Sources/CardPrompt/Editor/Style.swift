import CEditLine
import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// Colour for the terminal, or none, and Unicode or ASCII: decided once by whoever draws
/// (`terminalWantsColour`, `--no-color`, whether the output is a terminal; `localeWantsASCII`)
/// and applied here.
public struct Style: Sendable {
    /// Whether escape codes for colour are written at all.
    public var colour: Bool
    /// Whether only ASCII is drawn (a locale without UTF-8): `drawn` turns the marks, dots
    /// and dashes into ASCII.
    public var ascii: Bool
    /// The words of the prompt's labels (the short "Number" of a narrow terminal).
    public var messages = MessageCatalog.english
    /// The terminal's width, which message lines are wrapped to (`wrapped`); nil when the
    /// output is not a terminal (a file or a program reads whole lines).
    public var columns: Int?

    /// A style with colour on or off, drawing Unicode or ASCII only.
    public init(colour: Bool, ascii: Bool = false) {
        self.colour = colour
        self.ascii = ascii
    }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(drawn(text))\u{1B}[0m" : drawn(text)
    }

    /// `text` as the terminal is given it: itself, or in ASCII only when `ascii` is set, every
    /// other character replaced by `asciiGlyph`. The one place text is fitted to the locale:
    /// every message, prompt, badge and field text goes through it.
    public func drawn(_ text: String) -> String {
        guard ascii, text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII { result.unicodeScalars.append(scalar) } else { result += Self.asciiGlyph(scalar) }
        }
        return result
    }

    /// What a non-ASCII character is drawn as in ASCII: `*` for a mask or CVV dot, `OK` and
    /// `error:` for the marks before results and errors, `-` for dashes, `...` for an
    /// ellipsis; `?` for anything else.
    static func asciiGlyph(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "•", "●", "·", "∙": return "*"
        case "✓", "✔": return "OK"
        case "✗", "✘": return "error:"
        case "—", "–", "‐", "‑", "−": return "-"
        case "…": return "..."
        case "→": return "->"
        case "←": return "<-"
        case "‘", "’", "′": return "'"
        case "“", "”", "″": return "\""
        case "\u{A0}": return " "
        case "«", "»", "„", "‚": return "\""
        case "¿", "¡": return ""
        default: return plainLetter(scalar) ?? "?"
        }
    }

    /// The plain form of an accented Latin letter (`é` → `e`, `Ü` → `U`, `ß` → `ss`), for a
    /// catalog's words in an ASCII-only locale; nil for anything else.
    static func plainLetter(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "ß": return "ss"
        case "Æ": return "AE"
        case "æ": return "ae"
        case "Œ": return "OE"
        case "œ": return "oe"
        default:
            // Latin-1's letters from U+00C0, in order, by their base letter ("_": none).
            let bases = latinBases
            let value = Int(scalar.value)
            guard value >= 0xC0, value - 0xC0 < bases.count, bases[value - 0xC0] != "_" else { return nil }
            return String(bases[value - 0xC0])
        }
    }

    private static let latinBases = Array(
        "AAAAAAACEEEEIIIIDNOOOOO_OUUUUYTsaaaaaaaceeeeiiiidnooooo_ouuuuyty".unicodeScalars)

    /// A message line as shown above the prompt: its lines (`messageLines`), one per row.
    public func message(_ message: Message) -> String { messageLines(message).joined(separator: "\n") }

    /// A message as shown above the prompt, in rows that fit `columns` (`wrapped`), each painted.
    public func messageLines(_ message: Message) -> [String] {
        let text = drawn(message.line)
        let rows = columns.map { Self.wrapped(text, columns: $0) } ?? [text]
        switch message.kind {
        case .error: return rows.map { paint($0, "31") }
        case .success: return rows.map { paint($0, "32") }
        case .help: return rows.map { paint($0, "2") }
        case .info: return rows
        }
    }

    /// The width of the terminal `fd` writes to; nil when it is not a terminal.
    public static func terminalColumns(of fd: Int32) -> Int? { isatty(fd) == 1 ? Int(cl_columns(fd)) : nil }

    /// `text` in rows of at most `columns` terminal columns, broken only at spaces (a word
    /// longer than a row is cut where the row ends), each row after the first with a hanging
    /// indent: under the text after a leading mark (`✗ `, `OK `, `error: `), under an indented
    /// line's text, or of two spaces after `cardline: error: `. A pure function of finished
    /// text; a character's columns are `columns(of:)`'s, whatever the locale.
    public static func wrapped(_ text: String, columns: Int) -> [String] {
        let characters = Array(text)
        let widths = characters.map(Self.columns(of:))
        guard widths.reduce(0, +) > columns, columns >= 8 else { return [text] }
        let leading = characters.prefix { $0 == " " }.count
        let mark = ["✗ ", "✓ ", "OK ", "error: "].first { text.hasPrefix($0) }?.count
        let hang = min(leading > 0 ? leading : mark ?? (text.hasPrefix("cardline: ") ? 2 : 0), columns / 4)
        var rows: [String] = []
        var start = 0
        while true {
            let indent = rows.isEmpty ? 0 : hang
            // The first character that does not fit in the row.
            var end = start
            var used = indent
            while end < characters.count && used + widths[end] <= columns {
                used += widths[end]
                end += 1
            }
            if end == characters.count {
                rows.append(String(repeating: " ", count: indent) + String(characters[start...]))
                return rows
            }
            // The last space that leaves the row's words whole (not one of its leading spaces).
            let floor = start + (rows.isEmpty ? leading : 0)
            var cut = end
            while cut > floor && characters[cut] != " " { cut -= 1 }
            var next = max(end, start + 1)  // (a character wider than the whole row goes alone)
            if cut > floor {
                next = cut
                while next < characters.count && characters[next] == " " { next += 1 }
                while cut > start && characters[cut - 1] == " " { cut -= 1 }
            } else {
                cut = next
            }
            rows.append(String(repeating: " ", count: indent) + String(characters[start..<cut]))
            start = next
        }
    }

    /// The columns a character takes on a terminal: 2 for East Asian wide and full-width
    /// characters (CJK, kana, Hangul, full-width forms, most emoji), 0 for a combining mark
    /// alone, else 1. From the characters themselves, not `wcwidth`, which answers only under
    /// a UTF-8 locale (the command line's errors are written in whatever locale it has).
    public static func columns(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            switch first.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: return 0
            default: return 1
            }
        }
    }

    /// A refused key's reason, as an error line.
    public func refusal(_ reason: String) -> String { message(Message(.error, reason)) }

    /// The caller's title line (`--title`), bold, its control characters escaped.
    public func title(_ text: String) -> String { paint(text.escapingControlCharacters, "1") }

    /// The logo badge and progress for the right prompt: ` VISA ` in the badge's colour, then
    /// `12/16 ` plain (as cardline draws it, `BadgePainter`), then one plain space.
    public func badge(_ view: EntryView) -> String {
        // The two parts as the painter writes them (`appendBadgeLogo`, `appendBadgeCounter`).
        var logo: [UInt8] = []
        var counter: [UInt8] = []
        _ = Self.appendBadgeLogo(view.logo, to: &logo)
        _ = Self.appendBadgeCounter(progress: view.progress, to: &counter)
        return paint(
            String(decoding: logo, as: UTF8.self), Self.badgeColour(view.logo, securityCode: view.field == .cvv))
            + drawn(String(decoding: counter, as: UTF8.self)) + " "
    }

    /// The badge's text as `badge` draws it, without the plain space after it (` VISA 12/16 `),
    /// is UTF-8 written in two parts: this appends the logo part (` VISA `, the part in colour)
    /// and returns the cells it takes (one per Unicode scalar); `appendBadgeCounter` the rest.
    static func appendBadgeLogo(_ logo: String, to text: inout [UInt8]) -> Int {
        text.append(0x20)
        appendUTF8(logo, to: &text)
        text.append(0x20)
        return 2 + logo.scalarCount
    }

    /// Appends the counter after the badge's logo part (`12/16 `, or nothing without progress);
    /// the cells it takes.
    static func appendBadgeCounter(progress: String, to text: inout [UInt8]) -> Int {
        guard !progress.isEmpty else { return 0 }
        appendUTF8(progress, to: &text)
        text.append(0x20)
        return 1 + progress.scalarCount
    }

    private static func appendUTF8(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: string.utf8)
    }

    /// What `layoutChoice` keeps of a view for a width, before anything is painted: cheap to work out
    /// and to compare, so the prompt's text is built again only when it changes.
    struct LayoutChoice: Equatable {
        /// The label shown ("Card number", or "Number" on a narrow terminal).
        var label: String
        /// The format hint, when shown.
        var hint: String?
        /// The progress shown in the badge ("" for none); nil when the badge is left out.
        var progress: String?
        /// The columns the left prompt takes.
        var promptWidth: Int
    }

    /// The widest text each field can hold: the longest number in groups of four, MM/YYYY
    /// (`EntryEngine`), the longest security code (`CardPolicy`).
    static func widestText(_ field: Field) -> Int {
        switch field {
        case .number: return CardPolicy.widestUnknownNumber
        case .expiry: return EntryEngine.widestExpiryText
        case .cvv: return CardPolicy.securityCodeLengths.upperBound
        case .name: return HolderName.maxLength
        case .postalCode: return widestPostalCode
        }
    }

    /// The longest postal code as shown, separators included (`99999-9999`): the longest
    /// pattern of the formats `--postal-code` can ask for (`PostalCodeFormats.bundled`).
    private static let widestPostalCode = PostalCodeFormats.bundled.formats.flatMap(\.patterns).map(\.count).max() ?? 0

    /// The prompt and badge for `view`, shortened until the widest value of the field fits
    /// on one row of `columns` with the badge beside it. What goes, in order: the format hint,
    /// the note after the progress (`(13 valid)`), the progress, the badge, and last the long
    /// label ("Card number" becomes "Number"). Below about 32 columns the line may wrap.
    /// Decided by widths alone (no strings are built but the progress without its note).
    func layoutChoice(_ view: EntryView, columns: Int) -> LayoutChoice {
        let hintWidth = view.hint.scalarCount
        let text = Self.textWidth(view, hintWidth: hintWidth)
        let labelWidth = view.label.scalarCount
        let logoWidth = view.logo.scalarCount
        let progress = view.progress
        let progressWidth = progress.scalarCount
        func fits(hint: Bool, progress: Int?) -> Bool {
            let promptWidth = labelWidth + 2 + (hint ? hintWidth + 3 : 0)
            return Self.rowWidth(prompt: promptWidth, text: text, logo: logoWidth, progress: progress) <= columns
        }
        // From the fullest to the barest.
        if fits(hint: true, progress: progressWidth) {
            return LayoutChoice(
                label: view.label, hint: view.hint, progress: progress, promptWidth: labelWidth + 5 + hintWidth)
        }
        let plain = labelWidth + 2
        if fits(hint: false, progress: progressWidth) {
            return LayoutChoice(label: view.label, hint: nil, progress: progress, promptWidth: plain)
        }
        let withoutNote = progress.split(separator: " ").first.map(String.init) ?? ""
        if fits(hint: false, progress: withoutNote.unicodeScalars.count) {
            return LayoutChoice(label: view.label, hint: nil, progress: withoutNote, promptWidth: plain)
        }
        if fits(hint: false, progress: 0) {
            return LayoutChoice(label: view.label, hint: nil, progress: "", promptWidth: plain)
        }
        if fits(hint: false, progress: nil) {
            return LayoutChoice(label: view.label, hint: nil, progress: nil, promptWidth: plain)
        }
        let short = view.field == .number ? messages.text(.labelNumberShort) : view.label
        return LayoutChoice(label: short, hint: nil, progress: nil, promptWidth: short.scalarCount + 2)
    }

    /// The columns the field takes in a layout: the text of a command, else the widest value
    /// of the field (a rule may group its digits more finely than any bundled one: its hint
    /// is as wide).
    private static func textWidth(_ view: EntryView, hintWidth: Int) -> Int {
        view.isCommand ? view.text.scalarCount : max(widestText(view.field), view.field == .number ? hintWidth : 0)
    }

    /// The columns a row takes: the prompt, the field and the badge (its progress `progress`
    /// cells wide, 0 for the logo alone, nil for no badge), and the cursor's cell after them.
    private static func rowWidth(prompt: Int, text: Int, logo: Int, progress: Int?) -> Int {
        prompt + text + (progress.map { logo + ($0 == 0 ? 0 : $0 + 1) + 4 } ?? 0) + 1
    }

    /// The left prompt of a layout: `Card number (#### #### #### ####): `, or `Number: `.
    func prompt(_ choice: LayoutChoice) -> String {
        guard let hint = choice.hint else { return paint(choice.label, "1") + ": " }
        return paint(choice.label, "1") + " " + paint("(" + hint + ")", "2") + ": "
    }

    /// Black on a colour chosen from the logo name, so each network keeps its colour; black on
    /// white for the security code's badge (`securityCode`: CVV, CVC, CID…).
    static func badgeColour(_ logo: String, securityCode: Bool = false) -> String {
        if securityCode { return "30;47" }
        switch logo {
        case EntryView.genericLogo: return "7"
        case EntryView.securityCodeLogo: return "30;47"
        default:
            let backgrounds = ["44", "41", "46", "42", "45", "43"]
            let hash = logo.unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF }
            return "97;" + backgrounds[hash % backgrounds.count]
        }
    }
}

extension String {
    /// `unicodeScalars.count`, counted from the UTF-8 bytes (every byte but a continuation
    /// byte starts a scalar): the prompt measures its label, hint, badge and text every key.
    var scalarCount: Int {
        // pointer: the bytes counted in place: measured several times a key.
        utf8.withContiguousStorageIfAvailable { bytes in
            var count = 0
            for byte in bytes where byte & 0xC0 != 0x80 { count += 1 }
            return count
        } ?? unicodeScalars.count
    }
}

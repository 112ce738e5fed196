import CardKit

/// Colour for the terminal, or none: decided once by whoever draws (NO_COLOR, TERM=dumb,
/// `--no-color`, and whether the output is a terminal) and applied here.
public struct Style: Sendable {
    /// Whether escape codes for colour are written at all.
    public var colour: Bool

    /// A style with colour on or off.
    public init(colour: Bool) { self.colour = colour }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// A message line as shown above the prompt.
    public func message(_ message: Message) -> String {
        switch message.kind {
        case .error: return paint(message.line, "31")
        case .success: return paint(message.line, "32")
        case .help: return paint(message.line, "2")
        case .info: return message.line
        }
    }

    /// A refused key's reason, as an error line.
    public func refusal(_ reason: String) -> String { message(Message(.error, reason)) }

    /// The caller's title line (`--title`), bold, its control characters escaped.
    public func title(_ text: String) -> String { paint(text.escapingControlCharacters, "1") }

    /// The logo badge and progress for the right prompt: ` VISA 12/16 `, then one plain space
    /// (libedit drops an escape sequence that ends a right prompt, which would leave the
    /// badge's colour on for the typed digits).
    public func badge(_ view: EntryView) -> String {
        let text = view.progress.isEmpty ? " \(view.logo) " : " \(view.logo) \(view.progress) "
        return paint(text, Self.badgeColour(view.logo)) + " "
    }

    /// The prompt before the field's text: `Card number (#### #### #### ####): `.
    public func prompt(_ view: EntryView) -> String {
        paint(view.label, "1") + " " + paint("(\(view.hint))", "2") + ": "
    }

    /// The prompt and badge laid out for a terminal `columns` wide.
    public struct Layout: Equatable, Sendable {
        /// The left prompt, with colour codes if any.
        public var prompt: String
        /// The right prompt (badge), possibly empty.
        public var badge: String
        /// The columns the left prompt takes.
        public var promptWidth: Int
        /// The terminal's width it was laid out for.
        public var columns: Int

        /// The rows a line holding `text` after the prompt takes (the cursor after it included).
        public func rows(text: String) -> Int {
            let used = promptWidth + text.unicodeScalars.count + 1
            return max(1, (used + columns - 1) / max(columns, 1))
        }
    }

    /// The widest text each field can hold: 19 digits in up to 5 groups, MM/YY, a 4-digit code.
    static func widestText(_ field: Field) -> Int {
        switch field {
        case .number: return 23
        case .expiry: return 5
        case .cvv: return 4
        }
    }

    /// The prompt and badge for `view`, shortened until the widest value of the field fits
    /// on one row of `columns` with the badge beside it. What goes, in order: the format hint,
    /// the note after the progress (`(13 valid)`), the progress, the badge, and last the long
    /// label ("Card number" becomes "Number"). Below about 32 columns the line may wrap.
    public func layout(_ view: EntryView, columns: Int) -> Layout {
        // A rule may group its digits more finely than any bundled one: its hint is as wide.
        let text = view.isCommand ? view.text.unicodeScalars.count
            : max(Self.widestText(view.field), view.field == .number ? view.hint.unicodeScalars.count : 0)
        let shortLabel = view.field == .number ? "Number" : view.label
        let progress = view.progress
        let progressWithoutNote = progress.split(separator: " ").first.map(String.init) ?? ""
        // (label, hint shown, progress) from the fullest to the barest.
        let choices: [(String, Bool, String?)] = [
            (view.label, true, progress), (view.label, false, progress), (view.label, false, progressWithoutNote),
            (view.label, false, ""), (view.label, false, nil), (shortLabel, false, nil),
        ]
        func fits(_ choice: (label: String, hint: Bool, progress: String?)) -> Bool {
            let promptWidth = choice.label.unicodeScalars.count + 2 + (choice.hint ? view.hint.unicodeScalars.count + 3 : 0)
            let badgeWidth = choice.progress.map { view.logo.unicodeScalars.count + ($0.isEmpty ? 0 : $0.unicodeScalars.count + 1) + 4 } ?? 0
            return promptWidth + text + badgeWidth + 1 <= columns
        }
        let (label, hint, shownProgress) = choices.first(where: fits) ?? choices[choices.count - 1]
        var badgeView = view
        badgeView.progress = shownProgress ?? ""
        return Layout(prompt: hint ? prompt(view) : paint(label, "1") + ": ",
                      badge: shownProgress == nil ? "" : badge(badgeView),
                      promptWidth: label.unicodeScalars.count + 2 + (hint ? view.hint.unicodeScalars.count + 3 : 0),
                      columns: columns)
    }

    /// Black on a colour chosen from the logo name, so each network keeps its colour.
    static func badgeColour(_ logo: String) -> String {
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

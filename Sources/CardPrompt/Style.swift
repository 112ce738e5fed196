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

    /// The logo badge and progress for the right prompt: `[VISA 12/16]`.
    public func badge(_ view: EntryView) -> String {
        let text = view.progress.isEmpty ? " \(view.logo) " : " \(view.logo) \(view.progress) "
        return paint(text, Self.badgeColour(view.logo))
    }

    /// The prompt before the field's text: `Card number (#### #### #### ####): `.
    public func prompt(_ view: EntryView) -> String {
        paint(view.label, "1") + " " + paint("(\(view.hint))", "2") + ": "
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

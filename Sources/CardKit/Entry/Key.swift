import CardChip

/// One input to the entry engine: what a key at the terminal, a line on a pipe or a token in a
/// `.session` script means.
public enum Key: Equatable, Hashable, Sendable {
    /// A typed (or pasted) character.
    case character(Character)
    /// Delete the last character; on an empty field, go back to the previous field.
    case backspace
    /// Move on from a complete field; in the CVV field, submit the card; run a `:` command.
    case enter
    /// Empty the active field (Ctrl-U).
    case clearLine
    /// Cancel the card being entered and start over (Ctrl-C).
    case cancel
    /// End of input (Ctrl-D): quits on an empty field.
    case endOfInput
    /// Recall the previous / next earlier entry of the active field (Up / Down).
    case historyPrevious
    /// Recall the next (later) entry, or back to the text being typed before recall (Down).
    case historyNext
    /// Ctrl-N: the next of a co-badged card's networks (Dankort, then Visa, …) for the card to
    /// be delivered as; on a card with one network, `historyNext` (Ctrl-N's old meaning).
    case nextNetwork
    /// A key with no meaning at this prompt (Ctrl-Left, Delete, F5, Esc, Alt-digit…), named as a
    /// person knows it: refused with that name, never typed into a field.
    case other(String)
    /// A card swiped through a keyboard-wedge reader, read by `TrackData.read(_:)` (nil: the
    /// swipe could not be read). Taken at an empty card number field only. (Boxed, as is a
    /// chip's card: a key is then as small as a character, and copies as cheaply.)
    indirect case swipe(TrackData?)
    /// A card inserted into or tapped on a chip reader, read by `ChipReadFlow` (nil: the chip
    /// could not be read). Taken at an empty card number field only, as a swipe is.
    indirect case chip(ChipCard?)

    /// The keys that typing `text` produces, one character each.
    public static func typing(_ text: some StringProtocol) -> [Key] { text.map { .character($0) } }
}

/// The three fields of a card, in entry order.
public enum Field: String, CaseIterable, Sendable, Comparable {
    case number, expiry, cvv
    /// The cardholder's name and a postal code, asked for only when the form says so (`EntryForm`).
    case name
    case postalCode = "postal-code"

    /// Entry order: number, then expiry, then CVV (then name, then postal code).
    public static func < (a: Field, b: Field) -> Bool { a.position < b.position }

    /// The field's place in entry order, as in `allCases` (read without making that array,
    /// twice a comparison).
    private var position: Int {
        switch self {
        case .number: return 0
        case .expiry: return 1
        case .cvv: return 2
        case .name: return 3
        case .postalCode: return 4
        }
    }
}

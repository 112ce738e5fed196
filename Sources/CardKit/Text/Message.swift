/// A line for the person at the prompt, as a value: which text of the catalog it says and
/// with what (`id`, `arguments`), or a line given whole. Its words are made by whoever shows
/// it, in the catalog's language, only when it is shown (`text`, `text(in:)`, `appendLine(to:)`);
/// a key whose messages nobody reads makes no text. The front end picks colour by `kind`.
public struct Message: Equatable, Sendable {
    /// How a message is shown: `info` and `help` plain, `success` after `✓`, `error` after `✗`.
    public enum Kind: String, Sendable { case info, help, success, error }

    /// A placeholder's value, kept as it is until the text is made.
    public enum Value: Equatable, Sendable {
        /// Shown as it is: a network's name, a masked number, an escaped name.
        case text(String)
        /// A number, in decimal.
        case number(Int)
        /// Another text of the same catalog: "back", "front".
        case word(MessageID)
        /// Items joined with commas and the catalog's word for the last (`list.or`, `list.and`):
        /// `16 or 19`, `Visa, Mastercard and Amex`.
        case list([String], MessageID)
    }

    /// What sort of line this is: it decides the mark and colour.
    public var kind: Kind
    /// The catalog text the line says; nil for a line given whole (`init(_:_:)`) or a card's
    /// summary.
    public var id: MessageID? {
        if case .catalog(let id, _) = content { return id }
        return nil
    }
    /// The values of the text's placeholders, by name.
    public var arguments: [(name: String, value: Value)] {
        if case .catalog(_, let arguments) = content { return arguments.map { ($0.0, $0.1) } }
        return []
    }

    private var content: Content
    /// The words the line is made in unless its reader asks for others (`text(in:)`).
    private var catalog: MessageCatalog

    private enum Content: Equatable, Sendable {
        case whole(String)
        /// The text's id and its placeholders' values by name, kept as given (no copy made).
        case catalog(MessageID, [(String, Value)])
        indirect case card(CardLine)  // (boxed: a message, and every outcome holding one, stays small)

        /// (Written out: an array of tuples is not `Equatable` by itself.)
        static func == (a: Content, b: Content) -> Bool {
            switch (a, b) {
            case (.whole(let a), .whole(let b)): return a == b
            case (.catalog(let a, let aValues), .catalog(let b, let bValues)):
                return a == b && aValues.elementsEqual(bValues) { $0.0 == $1.0 && $0.1 == $1.1 }
            case (.card(let a), .card(let b)): return a == b
            default: return false
            }
        }
    }

    /// A message of `kind` saying `text` as it is (a front end's own line, already worded).
    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        content = .whole(text)
        catalog = .english
    }

    /// A message of `kind` saying `id`'s text of `catalog`, its placeholders filled with
    /// `arguments` when it is shown.
    public init(_ kind: Kind, _ id: MessageID, _ arguments: [(String, Value)] = [], in catalog: MessageCatalog) {
        self.kind = kind
        content = .catalog(id, arguments)
        self.catalog = catalog
    }

    /// A card's summary line (`Visa •••• 1111, expires 12/30`), made when it is shown.
    init(_ kind: Kind, card line: CardLine, in catalog: MessageCatalog) {
        self.kind = kind
        content = .card(line)
        self.catalog = catalog
    }

    /// The line's text, without the mark, in its catalog's words.
    public var text: String { text(in: catalog) }

    /// The line's text in `catalog`'s words (a line given whole is the same in every catalog).
    public func text(in catalog: MessageCatalog) -> String {
        if case .whole(let text) = content { return text }
        var bytes: [UInt8] = []
        append(to: &bytes, in: catalog)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The message as a line of text, with `✓` or `✗` before results and errors.
    public var line: String {
        var bytes: [UInt8] = []
        appendLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `line`'s bytes: the words written straight into `bytes`.
    public func appendLine(to bytes: inout [UInt8]) {
        switch kind {
        case .error: bytes.append("✗ " as StaticString)
        case .success: bytes.append("✓ " as StaticString)
        case .help, .info: break
        }
        append(to: &bytes, in: catalog)
    }

    private func append(to bytes: inout [UInt8], in catalog: MessageCatalog) {
        switch content {
        case .whole(let text): bytes.appendUTF8(text)
        case .catalog(let id, let arguments): catalog.write(id, arguments, to: &bytes)
        case .card(let line): line.append(to: &bytes, in: catalog)
        }
    }

    /// Two messages are equal when they are of the same kind and say the same: the same text
    /// with the same values, or (held differently) the same words.
    public static func == (lhs: Message, rhs: Message) -> Bool {
        guard lhs.kind == rhs.kind else { return false }
        if case .catalog = lhs.content, case .catalog = rhs.content, lhs.catalog.isSame(as: rhs.catalog) {
            return lhs.content == rhs.content
        }
        return lhs.text == rhs.text
    }
}

/// `Visa •••• 1111, expires 12/30`: what a card's summary says, kept until it is written.
/// Holds the last four digits only, never the number.
struct CardLine: Equatable, Sendable {
    /// The catalog's words before it (`card.success`, "Card accepted: "), if any.
    var prefix: MessageID?
    var network: CardNetwork
    /// The last (up to) four digits, 0–9 each, four bits a digit, the last in the lowest bits
    /// (`lastFourCount` of them): no array to allocate and wipe.
    var lastFourDigits: UInt16 = 0
    var lastFourCount = 0
    var expiry: YearMonth

    /// `lastFour` are the digits the masking policy shows last (`CardPolicy.lastShownDigits`).
    init(prefix: MessageID? = nil, network: CardNetwork, lastFour: some Collection<UInt8>, expiry: YearMonth) {
        self.prefix = prefix
        self.network = network
        self.expiry = expiry
        for digit in lastFour.suffix(4) {  // (the value holds four digits; callers pass the last shown)
            lastFourDigits = lastFourDigits << 4 | UInt16(digit)
            lastFourCount += 1
        }
    }

    static func == (lhs: CardLine, rhs: CardLine) -> Bool {
        lhs.prefix == rhs.prefix && lhs.network.id == rhs.network.id && lhs.lastFourDigits == rhs.lastFourDigits
            && lhs.lastFourCount == rhs.lastFourCount && lhs.expiry == rhs.expiry
    }

    /// Appends the line's UTF-8 bytes in `catalog`'s words.
    func append(to bytes: inout [UInt8], in catalog: MessageCatalog) {
        if let prefix { bytes.appendUTF8(catalog.text(prefix)) }
        bytes.appendUTF8(network.name)
        // The hidden digits as four marks (`CardPolicy.mask`), whatever the number's length.
        bytes.append(UInt8(ascii: " "))
        for _ in 0..<4 { CardNumber.appendMark(CardPolicy.mask, to: &bytes) }
        bytes.append(UInt8(ascii: " "))
        var shift = 4 * lastFourCount
        while shift > 0 {
            shift -= 4
            bytes.append(UInt8(truncatingIfNeeded: lastFourDigits >> UInt16(shift) & 0xF) + 48)
        }
        bytes.appendUTF8(catalog.text(.cardExpires))
        expiry.appendCardText(to: &bytes)
    }
}

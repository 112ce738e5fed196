/// What one key did.
public struct Outcome: Equatable, Sendable {
    /// Whether the key was taken, skipped or refused.
    public enum Disposition: Equatable, Sendable {
        /// The key changed the engine's state.
        case accepted
        /// The key is allowed but does nothing (a space in a pasted number).
        case ignored
        /// The key is not allowed here; the front end rings the bell and shows the reason.
        case refused(reason: String)
    }

    /// Something the front end must act on beyond redrawing the field. (Boxed: an outcome
    /// without one then copies and frees as one null pointer, and nearly every key has none.)
    public indirect enum Event: Equatable, Sendable {
        /// The card was submitted and taken: the whole card, for the front end to hand to its
        /// caller (the tray already holds the masked entry). Never print it.
        case accepted(PaymentCard)
        /// A submit found problems: the fields that have them, in entry order.
        case submitFailed([Field])
        /// The person asked to leave (`:quit`, or Ctrl-D between cards).
        case quit
        /// `:reload`: the front end reads the rule folders again and passes the result to
        /// `EntryEngine.reload(_:)`.
        case reloadRules
    }

    /// Whether the key was accepted, ignored or refused (with the reason).
    public var disposition: Disposition
    /// Lines to show above the prompt, in order.
    public var messages: [Message]
    /// True when the active field is different after the key (or the card was reset).
    public var fieldChanged: Bool
    /// What the front end must act on, if anything.
    public var event: Event?
    /// The `:` command line that ran, if any (front ends may keep it in a history file).
    public var command: String?

    /// An outcome; by default an accepted key with no messages, no field change and no event.
    public init(
        disposition: Disposition = .accepted, messages: [Message] = [], fieldChanged: Bool = false,
        event: Event? = nil, command: String? = nil
    ) {
        self.disposition = disposition
        self.messages = messages
        self.fieldChanged = fieldChanged
        self.event = event
        self.command = command
    }

    /// An accepted key with nothing to show. (Made where it is asked for: a stored one is
    /// copied out with a retain of each part, on nearly every key.)
    public static var accepted: Outcome { Outcome() }
    /// A key that is allowed but does nothing.
    public static let ignored = Outcome(disposition: .ignored)
    /// A refused key, with the reason to show.
    public static func refused(_ reason: String) -> Outcome { Outcome(disposition: .refused(reason: reason)) }

    /// Takes the accepted card out of the outcome (the event becomes nil), so that the front
    /// end holds the only reference and `PaymentCard.wipe()` can overwrite it in place.
    public mutating func takeAcceptedCard() -> PaymentCard? {
        guard case .accepted(let card) = event else { return nil }
        event = nil
        return card
    }

    /// The reason the key was refused, or nil when it was not.
    public var refusal: String? {
        if case .refused(let reason) = disposition { return reason }
        return nil
    }

    /// One outcome for keys handled as one burst (a paste): the first refusal, every message,
    /// the last event and command.
    public static func combined(_ outcomes: [Outcome]) -> Outcome {
        guard outcomes.count > 1, var combined = outcomes.last else { return outcomes.last ?? .ignored }
        combined.disposition = outcomes.first { $0.refusal != nil }?.disposition ?? combined.disposition
        combined.messages = outcomes.flatMap(\.messages)
        combined.fieldChanged = outcomes.contains { $0.fieldChanged }
        combined.event = outcomes.last { $0.event != nil }?.event
        combined.command = outcomes.last { $0.command != nil }?.command
        return combined
    }
}

/// Which refusal reasons are shown. A refused key shows its reason, so the line on screen
/// always names the key just refused; a refused key whose reason is the one just shown only
/// rings the bell (holding down a wrong key prints one line, not a screenful). Any key that is
/// not refused starts afresh. The REPL and the replayer both use it, so their screens and
/// transcripts agree, but for one rule only the REPL can apply: keys read from the terminal
/// together (`reasonToShow(_:inBurst:)`) give one reason between them; a `.session` script has
/// no reads, so the replayer takes its keys one at a time.
public struct RefusalBurst: Sendable {
    private var lastShown: String?

    /// A tracker that shows the reason of the next refused key.
    public init() {}

    /// The reason to show for this key's outcome, if any.
    public mutating func reasonToShow(_ outcome: Outcome) -> String? {
        reasonToShow(refusal: outcome.refusal)
    }

    /// The reason to show for a key that came in one burst with the key before it (read from
    /// the terminal together): after a refused key of the burst, a refused key shows nothing
    /// more, whatever its reason (keys typed fast after `ESC [`, Alt held over a number).
    public mutating func reasonToShow(_ outcome: Outcome, inBurst: Bool) -> String? {
        if inBurst && lastShown != nil && outcome.refusal != nil { return nil }
        return reasonToShow(refusal: outcome.refusal)
    }

    /// The reason to show for a key refused for `refusal` (nil: not refused).
    mutating func reasonToShow(refusal: String?) -> String? {
        guard let reason = refusal else {
            lastShown = nil
            return nil
        }
        guard reason != lastShown else { return nil }
        lastShown = reason
        return reason
    }
}

/// A line for the person at the prompt; the front end picks colour by kind.
public struct Message: Equatable, Sendable {
    /// How a message is shown: `info` and `help` plain, `success` after `✓`, `error` after `✗`.
    public enum Kind: String, Sendable { case info, help, success, error }
    /// What sort of line this is: it decides the mark and colour.
    public var kind: Kind
    /// The line's text, without the mark.
    public var text: String {
        get {
            switch storage {
            case .text(let text): return text
            case .card(let line): return line.string
            }
        }
        set { storage = .text(newValue) }
    }
    /// The text, or what to word it from when it is read: a card line is written straight
    /// into the transcript's bytes, never made into a string unless someone asks for `text`.
    private var storage: Storage
    private enum Storage: Sendable {
        case text(String)
        case card(CardLine)
    }

    /// The message as a line of text, with `✓` or `✗` before results and errors.
    public var line: String {
        switch kind {
        case .error: return "✗ " + text
        case .success: return "✓ " + text
        case .help, .info: return text
        }
    }

    /// Appends `line`'s bytes without making the string.
    public func appendLine(to bytes: inout [UInt8]) {
        switch kind {
        case .error: bytes.append("✗ " as StaticString)
        case .success: bytes.append("✓ " as StaticString)
        case .help, .info: break
        }
        switch storage {
        case .text(let text): bytes.appendUTF8(text)
        case .card(let line): line.append(to: &bytes)
        }
    }

    /// A message of `kind` saying `text`.
    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.storage = .text(text)
    }

    /// A message of `kind` saying a card line, worded only when it is read.
    init(_ kind: Kind, card line: CardLine) {
        self.kind = kind
        self.storage = .card(line)
    }

    /// Two messages are equal when they are of the same kind and say the same text, however
    /// it is held.
    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.kind == rhs.kind && lhs.text == rhs.text
    }
}

/// `[prefix]Visa •••• 1111, expires 12/30`: what it says, kept until it is written. Holds the
/// last four digits only, never the number. (`prefix` and `expires` are the catalog's words.)
struct CardLine: Sendable {
    var prefix: String
    var expires: String
    var network: CardNetwork
    /// The last (up to) four digits, 0–9 each, four bits a digit, the last in the lowest bits
    /// (`lastFourCount` of them): no array to allocate and wipe.
    var lastFourDigits: UInt16 = 0
    var lastFourCount = 0
    var expiry: YearMonth

    /// `lastFour` are the digits the masking policy shows last (`CardPolicy.lastShownDigits`).
    init(prefix: String, expires: String, network: CardNetwork, lastFour: some Collection<UInt8>, expiry: YearMonth) {
        self.prefix = prefix
        self.expires = expires
        self.network = network
        self.expiry = expiry
        for digit in lastFour.suffix(4) {  // (the value holds four digits; callers pass the last shown)
            lastFourDigits = lastFourDigits << 4 | UInt16(digit)
            lastFourCount += 1
        }
    }

    /// Appends the line's UTF-8 bytes.
    func append(to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + 48 + network.name.utf8.count)
        bytes.appendUTF8(prefix)
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
        bytes.appendUTF8(expires)
        if (1...12).contains(expiry.month) && expiry.year >= 0 {
            // `expiry.cardText` (MM/YY), digit by digit.
            let year = expiry.year % 100
            bytes.append(UInt8(48 + expiry.month / 10))
            bytes.append(UInt8(48 + expiry.month % 10))
            bytes.append(UInt8(ascii: "/"))
            bytes.append(UInt8(48 + year / 10))
            bytes.append(UInt8(48 + year % 10))
        } else {
            bytes.appendUTF8(expiry.cardText)
        }
    }

    /// The line as a string.
    var string: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + network.name.utf8.count)
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

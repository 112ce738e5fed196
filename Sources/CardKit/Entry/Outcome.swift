/// What one key did.
public struct Outcome: Equatable, Sendable {
    /// Whether the key was taken, skipped or refused.
    public enum Disposition: Equatable, Sendable {
        /// The key changed the engine's state.
        case accepted
        /// The key is allowed but does nothing (a space in a pasted number).
        case ignored
        /// The key is not allowed here; the front end rings the bell and shows the reason.
        indirect case refused(reason: Message)
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
    /// A refused key, with the reason to show (an error message).
    public static func refused(_ reason: Message) -> Outcome { Outcome(disposition: .refused(reason: reason)) }

    /// Takes the accepted card out of the outcome (the event becomes nil), so that the front
    /// end holds the only reference and `PaymentCard.wipe()` can overwrite it in place.
    public mutating func takeAcceptedCard() -> PaymentCard? {
        guard case .accepted(let card) = event else { return nil }
        event = nil
        return card
    }

    /// The reason the key was refused, or nil when it was not.
    public var refusal: Message? {
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
/// no reads, so the replayer takes its keys one at a time, but for an `@paste`'s (one burst).
public struct RefusalBurst: Sendable {
    private var lastShown: Message?

    /// A tracker that shows the reason of the next refused key.
    public init() {}

    /// The reason to show for this key's outcome, if any.
    public mutating func reasonToShow(_ outcome: Outcome) -> Message? {
        reasonToShow(refusal: outcome.refusal)
    }

    /// The reason to show for a key that came in one burst with the key before it (read from
    /// the terminal together): after a refused key of the burst, a refused key shows nothing
    /// more, whatever its reason (keys typed fast after `ESC [`, Alt held over a number).
    public mutating func reasonToShow(_ outcome: Outcome, inBurst: Bool) -> Message? {
        if inBurst && lastShown != nil && outcome.refusal != nil { return nil }
        return reasonToShow(refusal: outcome.refusal)
    }

    /// The reason to show for a key refused for `refusal` (nil: not refused).
    mutating func reasonToShow(refusal: Message?) -> Message? {
        guard let reason = refusal else {
            lastShown = nil
            return nil
        }
        guard reason != lastShown else { return nil }
        lastShown = reason
        return reason
    }
}

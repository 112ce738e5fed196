import CardKit

/// The path for a non-terminal stdin (`printf '…' | cardline`): each line is fed to the
/// engine as typed keys followed by Enter; messages print as plain lines. Full numbers and
/// CVVs are never echoed: only the engine's messages, which mask them.
///
/// There is nobody to correct a mistake, so nothing carries over from a line that was refused:
/// the first refused key of a line, or an Enter that does not take its field (an incomplete or
/// invalid field, a failed submit), abandons the card being entered. Its fields are cleared and
/// overwritten through the engine's cancel key, the rest of the line is skipped, a
/// `line N: FIELD: reason (card abandoned)` line names the field, and the next line starts a
/// new card. An Enter on a field that is still empty (after a field moved on by itself) is not
/// a refusal.
public struct PlainLineReader {
    /// How a run of lines ended, for the exit status.
    public enum Result: Equatable, Sendable {
        /// Every card that was started was accepted.
        case allAccepted(count: Int)
        /// Some card was abandoned (`failed` counts them: a refused line or a failed submit), or
        /// input ended in the middle of a card.
        case someRejected(accepted: Int, failed: Int, unfinished: Bool)
        /// No input came for the idle timeout (`DescriptorLines`); the card being entered was
        /// wiped.
        case timedOut(accepted: Int)
    }

    var engine: EntryEngine
    let style: Style
    let write: (String) -> Void
    let title: String?
    let onCommand: (String) -> Void
    let onAccepted: (PaymentCard) -> CardPrompt.Receipt
    let loader: EntryEngine.RuleLoader?

    /// A reader that writes its messages with `write`; `title` is shown first; `onAccepted`
    /// receives each accepted card whole and says whether to go on reading.
    public init(
        engine: EntryEngine, style: Style, write: @escaping (String) -> Void, title: String? = nil,
        onCommand: @escaping (String) -> Void = { _ in },
        onAccepted: @escaping (PaymentCard) -> CardPrompt.Receipt = { _ in .more },
        reloadingWith loader: EntryEngine.RuleLoader? = nil
    ) {
        self.engine = engine
        self.style = style
        self.write = write
        self.title = title
        self.onCommand = onCommand
        self.onAccepted = onAccepted
        self.loader = loader
    }

    /// Reads lines until end of input, `:quit`, or `onAccepted` returning false.
    public mutating func run(lines: some Sequence<String>) -> Result {
        run(lines, timedOut: { false })
    }

    /// Reads `input`'s lines as `run(lines:)` does; when they end because no input came for its
    /// idle timeout, the card being entered is wiped, a line says so, and the result is
    /// `.timedOut`.
    public mutating func run(input: DescriptorLines) -> Result {
        run(input, timedOut: { input.timedOut })
    }

    private mutating func run(_ lines: some Sequence<String>, timedOut: () -> Bool) -> Result {
        var accepted = 0
        var failed = 0
        var lineNumber = 0
        if let title { write(style.title(title) + "\n") }
        // (No hint on keys and `:help`: nobody is typing at a terminal.)
        for line in lines {
            lineNumber += 1
            // Track data in a line (a swipe, as a reader types it) is one swipe, not keys,
            // wherever it starts: the characters before it are typed, then the swipe, which the
            // engine takes at an empty number (the next line goes on from the field it moved
            // to, the CVV) and refuses anywhere else (a `:` command, digits typed before it).
            let swipeStart = TrackData.swipeStart(in: line.utf8)
            let typed = swipeStart.map { line[..<$0] } ?? line[...]
            // The field a digit of this line filled and moved on from by itself (a 16-digit
            // Visa, a whole expiry), until a separator or another character follows it.
            var filledByDigit: Field?
            // The line's messages, written when it ends: a refusal that abandons the card says
            // its reason once (`show(_:restatedBy:)`).
            var messages: [Message] = []
            defer { show(messages) }
            // A Tab between fields (a tab-separated line, as a spreadsheet writes) separates as
            // a space does; at the prompt it is a key of its own.
            let keys = Key.typing(typed.contains("\t") ? typed.replacing("\t", with: " ") : typed)
            for key in keys + [swipeStart == nil ? .enter : .swipe(nil)] {
                let fieldBefore = engine.field
                let inCommand = engine.command != nil
                let digit: Bool
                if case .character(let character) = key, let byte = character.asciiValue, byte &- 48 < 10 {
                    digit = true
                } else {
                    digit = false
                }
                if digit, let full = filledByDigit {
                    // A digit straight after a full field is one too many for it, not the first
                    // of the next field: taken so, `41111111111111111 2/30` would hand over a
                    // card expiring 12/30, which nobody typed.
                    let problem = "\(engine.fieldName(full)): a digit too many, or no space before the next field"
                    show(messages, restatedBy: problem)
                    messages = []
                    abandon(line: lineNumber, saying: problem)
                    failed += 1
                    break
                }
                var outcome: Outcome
                if let swipeStart, case .swipe = key {
                    // The track read from the line's bytes; the engine copies the number into its
                    // own storage, and both copies here are wiped.
                    var bytes = Array(line.utf8[swipeStart...])
                    var swipe = try? TrackData.read(bytes).get()
                    bytes.overwriteAndEmpty()
                    outcome = engine.handle(.swipe(swipe))
                    swipe?.wipe()
                } else {
                    outcome = engine.handle(key, reloadingWith: loader)
                }
                if case .character = key {
                    let moved = engine.field > fieldBefore && !inCommand
                    filledByDigit = digit && moved && engine.activeIsEmpty ? fieldBefore : nil
                }
                if let problem = refusal(of: key, outcome, field: fieldBefore, inCommand: inCommand) {
                    show(messages, restatedBy: problem)
                    messages = []
                    abandon(line: lineNumber, saying: problem)
                    failed += 1
                    break
                }
                var more = true
                switch outcome.deliverAcceptedCard(to: onAccepted, messages: engine.messages) {
                case .more: accepted += 1
                case .done: (accepted, more) = (accepted + 1, false)
                case .failed: (failed, more) = (failed + 1, false)
                case nil: break
                }
                messages += outcome.messages.filter { $0.kind != .help }
                if let command = outcome.command { onCommand(command) }
                if outcome.event == .quit || !more {
                    show(messages)
                    messages = []
                    return result(accepted: accepted, failed: failed)
                }
            }
        }
        if timedOut() {
            abandon()
            write(style.message(Message(.error, engine.messages.text(.plainTimedOut))) + "\n")
            return .timedOut(accepted: accepted)
        }
        return result(accepted: accepted, failed: failed)
    }

    /// Writes a line's `messages`; with `problem`, the reason a refusal abandons the card for,
    /// without the errors it restates (a 16-digit number that fails Luhn said "not valid" at
    /// its last digit; the refused Enter's `line N: card number: … not valid …` says it again).
    private func show(_ messages: [Message], restatedBy problem: String? = nil) {
        for message in messages {
            if let problem, message.kind == .error, problem.hasSuffix(message.text) { continue }
            write(style.message(message) + "\n")
        }
    }

    /// `FIELD: reason` when `key`'s outcome refuses the line: a refused key, or an Enter (not
    /// one ending a `:` command) that neither moved on nor submitted. `field` is the one active
    /// before the key; a failed submit names the first field with a problem.
    private func refusal(of key: Key, _ outcome: Outcome, field: Field, inCommand: Bool) -> String? {
        if case .enter = key, !inCommand {
            let failedSubmit: Bool
            if case .submitFailed = outcome.event { failedSubmit = true } else { failedSubmit = false }
            // `.ignored`: Enter on an empty field; a change of field: it moved on or submitted.
            guard failedSubmit || outcome.refusal != nil || (outcome.disposition == .accepted && !outcome.fieldChanged)
            else { return nil }
            let problem =
                (engine.problem(in: engine.field) ?? outcome.refusal ?? outcome.messages.first { $0.kind == .error })?
                .text ?? "refused"
            return "\(engine.fieldName(engine.field)): \(problem)"
        }
        guard let reason = outcome.refusal?.text else { return nil }
        return "\(inCommand ? engine.messages.text(.plainCommand) : engine.fieldName(field)): \(reason)"
    }

    /// Abandons the card being entered (`abandon()`) and says why, naming the line:
    /// `line N: FIELD: reason (card abandoned)`, or `(line skipped)` when no digit was typed.
    private mutating func abandon(line: Int, saying problem: String) {
        let started = !engine.cardIsEmpty
        abandon()
        write(
            style.refusal(
                engine.messages.text(
                    started ? .plainRefused : .plainSkipped, ("line", String(line)), ("problem", problem))) + "\n")
    }

    /// Clears the card being entered through the engine's cancel key, which overwrites its
    /// digits; its message (for a person at the prompt) is not shown.
    private mutating func abandon() {
        _ = engine.handle(.cancel)
    }

    private mutating func result(accepted: Int, failed: Int) -> Result {
        let unfinished = !engine.cardIsEmpty
        if unfinished {
            write(
                style.message(
                    Message(.error, engine.messages.text(.plainEnded, ("field", engine.fieldName(engine.field)))))
                    + "\n")
            abandon()
        }
        if failed == 0 && !unfinished { return .allAccepted(count: accepted) }
        return .someRejected(accepted: accepted, failed: failed, unfinished: unfinished)
    }
}

extension Outcome {
    /// Hands the card this outcome accepted, if any, to `onAccepted` at the moment it is
    /// accepted, then overwrites this copy; a failed delivery replaces the messages with one
    /// that says so (the person must not read a success line). nil when no card was accepted.
    mutating func deliverAcceptedCard(
        to onAccepted: (PaymentCard) -> CardPrompt.Receipt, messages catalog: MessageCatalog
    ) -> CardPrompt.Receipt? {
        guard var card = takeAcceptedCard() else { return nil }
        let receipt = onAccepted(card)
        card.wipe()
        if case .failed(let reason) = receipt {
            messages = [Message(.error, catalog.text(.cardNotDelivered, ("reason", reason)))]
        }
        return receipt
    }
}

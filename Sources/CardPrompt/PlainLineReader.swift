import CardKit

/// The path for a non-terminal stdin (`printf '…' | cardline`): each line is fed to the
/// engine as typed keys followed by Enter; messages print as plain lines. Full numbers and
/// CVVs are never echoed: only the engine's messages, which mask them.
public struct PlainLineReader {
    /// How a run of lines ended, for the exit status.
    public enum Result: Equatable, Sendable {
        /// Every card that was started was accepted.
        case allAccepted(count: Int)
        /// Some submit failed, or input ended in the middle of a card.
        case someRejected(accepted: Int, failed: Int, unfinished: Bool)
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
    public init(engine: EntryEngine, style: Style, write: @escaping (String) -> Void, title: String? = nil,
                onCommand: @escaping (String) -> Void = { _ in },
                onAccepted: @escaping (PaymentCard) -> CardPrompt.Receipt = { _ in .more },
                reloadingWith loader: EntryEngine.RuleLoader? = nil) {
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
        var accepted = 0, failed = 0
        var lineNumber = 0
        if let title { write(style.title(title) + "\n") }
        write(style.message(Message(.help, engine.help)) + "\n")
        for line in lines {
            lineNumber += 1
            var refusedOnLine = false
            for key in Key.typing(line) + [.enter] {
                var outcome = engine.handle(key, reloadingWith: loader)
                var more = true
                switch outcome.deliverAcceptedCard(to: onAccepted) {
                case .more: accepted += 1
                case .done: (accepted, more) = (accepted + 1, false)
                case .failed: (failed, more) = (failed + 1, false)
                case nil: break
                }
                if let reason = outcome.refusal, !refusedOnLine {
                    // One reason per input line, like one per burst at the terminal.
                    write(style.refusal("line \(lineNumber): \(reason)") + "\n")
                    refusedOnLine = true
                }
                for message in outcome.messages where message.kind != .help { write(style.message(message) + "\n") }
                if let command = outcome.command { onCommand(command) }
                switch outcome.event {
                case .submitFailed: failed += 1
                case .quit: return result(accepted: accepted, failed: failed)
                case .accepted, .reloadRules, nil: break
                }
                if !more { return result(accepted: accepted, failed: failed) }
            }
        }
        return result(accepted: accepted, failed: failed)
    }

    private func result(accepted: Int, failed: Int) -> Result {
        let unfinished = !engine.numberDigits.isEmpty || !engine.expiryDigits.isEmpty || !engine.cvvDigits.isEmpty
        if unfinished { write(style.message(Message(.error, "input ended before the card was complete (\(engine.fieldName(engine.field)) field)")) + "\n") }
        if failed == 0 && !unfinished { return .allAccepted(count: accepted) }
        return .someRejected(accepted: accepted, failed: failed, unfinished: unfinished)
    }
}

extension Outcome {
    /// Hands the card this outcome accepted, if any, to `onAccepted` at the moment it is
    /// accepted, then overwrites this copy; a failed delivery replaces the messages with one
    /// that says so (the person must not read a success line). nil when no card was accepted.
    mutating func deliverAcceptedCard(to onAccepted: (PaymentCard) -> CardPrompt.Receipt) -> CardPrompt.Receipt? {
        guard var card = takeAcceptedCard() else { return nil }
        let receipt = onAccepted(card)
        card.wipe()
        if case .failed(let reason) = receipt { messages = [Message(.error, "The card was not delivered: \(reason)")] }
        return receipt
    }
}

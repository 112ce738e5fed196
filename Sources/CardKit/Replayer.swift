/// Runs a `.session` script through the entry engine, key by key, as the REPL would, and
/// checks its expectations. The transcript holds what the terminal would have left on screen,
/// with card numbers masked to first six and last four and CVVs shown only as `•`.
public struct Replay: Equatable, Sendable {
    /// An expectation that did not hold.
    public struct Failure: Equatable, Sendable {
        /// The expectation's line in the script, 1-based.
        public var line: Int
        /// What was expected and what was found: `expected field cvv, got expiry`.
        public var message: String
        /// A failure at script line `line`.
        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// The transcript as UTF-8 text, one line per "\n" (kept as bytes: a generated script
    /// runs to hundreds of thousands of lines).
    public var transcriptText: [UInt8] = []
    /// The expectations that did not hold, in script order.
    public var failures: [Failure] = []

    /// The transcript's lines.
    public var transcript: [String] {
        transcriptText.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }
    /// Cards accepted during the script, masked.
    public var cards: [CardTray.Card] = []
    /// True when every expectation held.
    public var passed: Bool { failures.isEmpty }

    /// Replays `script`; `today` applies unless the script pins its own date, `accepted` unless
    /// it names its own networks (`@networks`, already resolved into `accepted` by the caller
    /// with `AcceptedNetworks.parse`); `loader` reads the rules again for `:reload`.
    public static func run(_ script: SessionScript, rules: RuleSet, today: YearMonth,
                           accepted: AcceptedNetworks? = nil,
                           reloadingWith loader: EntryEngine.RuleLoader? = nil) -> Replay {
        var replayer = Replayer(engine: EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: script.today ?? today),
                                                    acceptedNetworks: accepted))
        replayer.loader = loader
        for step in script.steps { replayer.perform(step) }
        replayer.engine.view.appendTranscriptLine(to: &replayer.replay.transcriptText)
        replayer.replay.transcriptText.append(UInt8(ascii: "\n"))
        replayer.replay.cards = replayer.engine.tray.cards
        return replayer.replay
    }
}

/// The state of one replay between steps.
private struct Replayer {
    var engine: EntryEngine
    var replay = Replay()
    /// A burst of refusals prints one reason, as in the REPL.
    var refusals = RefusalBurst()
    /// Keys refused and lines shown since the previous expectation.
    var refusedSinceExpectation = 0
    /// Where in the transcript the message lines shown since the previous expectation are.
    var shownSinceExpectation: [Range<Int>] = []
    var previousWasExpectation = false
    var lastSubmit: Outcome.Event?
    var loader: EntryEngine.RuleLoader?

    init(engine: EntryEngine) { self.engine = engine }

    mutating func perform(_ step: SessionScript.Step) {
        switch step.kind {
        case .keys(let keys):
            if previousWasExpectation {
                refusedSinceExpectation = 0
                shownSinceExpectation = []
            }
            previousWasExpectation = false
            for key in keys { type(key) }
        case .today(let month):
            engine.expiryPolicy.today = month
        case .expect(let expectation):
            previousWasExpectation = true
            if let problem = check(expectation) { replay.failures.append(.init(line: step.line, message: problem)) }
        }
    }

    /// One key, with the same output rules as the REPL.
    mutating func type(_ key: Key) {
        // The line left on screen is the field with the key applied, except after Enter (a
        // submit resets the card), Ctrl-C and `:` commands: only then is the view before the
        // key needed. (Not a copy of the engine: its first mutation would copy the whole tray.)
        let beforeField = engine.field
        let needsBefore: Bool
        switch key {
        case .enter, .cancel: needsBefore = true
        default: needsBefore = engine.command != nil
        }
        let before = needsBefore ? engine.view : nil
        let outcome = engine.handle(key, reloadingWith: loader)
        if outcome.refusal != nil { refusedSinceExpectation += 1 }
        let shownReason = refusals.reasonToShow(outcome)
        switch outcome.event {
        case .accepted, .submitFailed: lastSubmit = outcome.event
        case .quit, .reloadRules, nil: break
        }
        guard shownReason != nil || !outcome.messages.isEmpty else { return }
        // The field line as left on screen, then the reason and messages printed below it.
        let finished = before.map { engine.finishedView(before: $0) } ?? engine.view(of: beforeField)
        finished.appendTranscriptLine(to: &replay.transcriptText)
        replay.transcriptText.append(UInt8(ascii: "\n"))
        if let shownReason { show(Message(.error, shownReason)) }
        for message in outcome.messages { show(message) }
    }

    private mutating func show(_ message: Message) {
        let start = replay.transcriptText.count
        message.appendLine(to: &replay.transcriptText)
        shownSinceExpectation.append(start..<replay.transcriptText.count)
        replay.transcriptText.append(UInt8(ascii: "\n"))
    }

    /// What is wrong, in words, or nil when the expectation holds.
    func check(_ expectation: SessionScript.Expectation) -> String? {
        let view = engine.view
        switch expectation {
        case .field(let field):
            return engine.field == field ? nil : "expected field \(field.rawValue), got \(engine.field.rawValue)"
        case .text(let text):
            guard view.text != text else { return nil }
            let mask = engine.field == .number ? CardNumber.maskingDigits(in:) : { $0 }
            return "expected text \"\(mask(text))\", got \"\(mask(view.text))\""
        case .network(let id):
            let actual = engine.detection.network?.id
            return actual == id ? nil : "expected network \(id ?? "none"), got \(actual ?? "none")"
        case .refused(let count):
            return refusedSinceExpectation == count ? nil
                : "expected \(count) refused key\(count == 1 ? "" : "s"), got \(refusedSinceExpectation)"
        case .message(let text):
            let shown = shownSinceExpectation.map { String(decoding: replay.transcriptText[$0], as: UTF8.self) }
            if shown.contains(where: { $0.contains(text) }) { return nil }
            return "expected a message containing \"\(text)\", got "
                + (shown.isEmpty ? "no message" : shown.map { "\"\($0)\"" }.joined(separator: ", "))
        case .accepted(let network, let lastFour):
            guard case .accepted(let card) = lastSubmit else { return "expected the last submit to be accepted, got \(describe(lastSubmit))" }
            if let network, card.network.id != network { return "expected a \(network) card to be accepted, got \(card.network.id)" }
            if let lastFour, card.lastFour != lastFour { return "expected a card ending \(lastFour) to be accepted, got one ending \(card.lastFour)" }
            return nil
        case .failed(let fields):
            guard case .submitFailed(let actual) = lastSubmit, Set(actual) == fields else {
                return "expected the last submit to fail on \(Field.allCases.filter(fields.contains).map(\.rawValue).joined(separator: ",")), got \(describe(lastSubmit))"
            }
            return nil
        case .cards(let count):
            return engine.tray.cards.count == count ? nil : "expected \(count) card\(count == 1 ? "" : "s") in the tray, got \(engine.tray.cards.count)"
        case .logo(let logo):
            return view.logo == logo ? nil : "expected logo \(logo), got \(view.logo)"
        }
    }

    func describe(_ submit: Outcome.Event?) -> String {
        switch submit {
        case .accepted(let card): return "accepted \(card.network.id) \(card.lastFour)"
        case .submitFailed(let fields): return "failed \(fields.map(\.rawValue).joined(separator: ","))"
        case .quit, .reloadRules, nil: return "no submit"
        }
    }
}

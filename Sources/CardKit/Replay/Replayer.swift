/// Runs a `.session` script through the entry engine, key by key, as the REPL would, and
/// checks its expectations. The transcript holds what the terminal would have left on screen,
/// with card numbers masked (`CardNumber`'s masking policy) and CVVs shown only as `•`.
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
        transcriptText.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }
    /// Cards accepted during the script, masked.
    public var cards: [CardTray.Card] = []
    /// True when every expectation held.
    public var passed: Bool { failures.isEmpty }

    /// Replays `script`; `today` applies unless the script pins its own date, `accepted` unless
    /// it names its own networks (`@networks`, already resolved into `accepted` by the caller
    /// with `AcceptedNetworks.parse`); `loader` reads the rules again for `:reload`.
    public static func run(
        _ script: SessionScript, rules: RuleSet, today: YearMonth,
        accepted: AcceptedNetworks? = nil,
        reloadingWith loader: EntryEngine.RuleLoader? = nil
    ) -> Replay {
        var replayer = Replayer(script: script, rules: rules, today: today, accepted: accepted, reloadingWith: loader)
        var replay = Replay()
        let write: Replayer.Transcript = { line in
            for index in line.indices { replay.transcriptText.append(line[index]) }
            replay.transcriptText.append(UInt8(ascii: "\n"))
        }
        for step in script.steps { replayer.perform(step, transcript: write) }
        replayer.finish(transcript: write)
        replay.failures = replayer.failures
        replay.cards = replayer.engine.tray.cards
        return replay
    }
}

/// Replays a script step by step, as its lines are read, handing each transcript line to the
/// caller as it is made: nothing grows with the script but the tray (ten bytes a card) and the
/// failures. `Replay.run` is the same over a whole parsed script.
public struct Replayer {
    /// Receives each transcript line as it is made (UTF-8, no "\n"), valid only during the
    /// call: a view of the replayer's own line buffer, not a copy (a generated script writes
    /// millions of lines, and the caller copies them into its output blocks).
    public typealias Transcript = (Span<UInt8>) -> Void

    /// The engine the keys go to; its tray holds the cards accepted so far.
    public private(set) var engine: EntryEngine
    /// The expectations that did not hold so far, in script order.
    public private(set) var failures: [Replay.Failure] = []
    /// The cards accepted so far as card records without number or code (`CardRecord`,
    /// `PaymentCard.JSONMembers.masked`), comma-separated, for `replay --json`; kept only when
    /// the caller sets it (to `[]`), as a long script accepts millions of cards.
    public var cardRecords: [UInt8]?
    /// A burst of refusals prints one reason, as in the REPL.
    private var refusals = RefusalBurst()
    /// Keys refused since the previous expectation.
    private var refusedSinceExpectation = 0
    /// The message lines shown since the previous expectation (kept only when an `@expect
    /// message` may ask about them).
    private var shownSinceExpectation: [String] = []
    private var previousWasExpectation = false
    /// What the last submit did, for `@expect accepted` / `@expect failed`: the accepted card's
    /// network and last four only (the full number and CVV are not kept past the step).
    private var lastSubmit: LastSubmit?

    private enum LastSubmit {
        case accepted(network: String, lastFour: String, entry: PaymentCard.Entry = .keyed, chip: Bool? = nil)
        case failed([Field])
    }
    private var loader: EntryEngine.RuleLoader?
    /// Which stretches of keys an `@expect message` asks about (see `MessageChecks`); nil: all.
    private var messageChecks: MessageChecks?
    /// The stretch of keys being replayed: one more each time keys follow an expectation.
    private var stretch = 0
    /// The line being made, reused.
    private var line: [UInt8] = []
    /// The field's line before a key that may empty it (`EntryEngine.keepsLineBefore`).
    private var lineBefore: [UInt8] = []

    /// A replayer for a script with this header (its steps are passed to `perform` one by one);
    /// `messageChecks`, from a first pass over the script, lets it forget message lines no
    /// expectation asks about (nil keeps them all).
    public init(
        script header: SessionScript, rules: RuleSet, today: YearMonth, accepted: AcceptedNetworks? = nil,
        reloadingWith loader: EntryEngine.RuleLoader? = nil, messageChecks: MessageChecks? = nil,
        securityCodeOnly: CardNetwork? = nil
    ) {
        // `@name`, `@postal-code` from the header; `@cvv-only`'s network found by the caller in the rules.
        let form = EntryForm(
            asksName: header.asksName,
            postalCode: header.postalCodeCountry.flatMap(PostalCodeFormats.bundled.format(for:)),
            securityCodeOnly: securityCodeOnly)
        engine = EntryEngine(
            rules: rules, expiryPolicy: ExpiryPolicy(today: header.today ?? today), acceptedNetworks: accepted,
            form: form)
        // pinned: a script's `@expect message` and its transcript never follow the tester's locale
        engine.messages = .english
        self.loader = loader
        self.messageChecks = messageChecks
        line.reserveCapacity(256)
    }

    /// The stretches of keys (between expectations) after which an `@expect message` looks at
    /// the lines shown: worked out by a first pass over the script, one bit a stretch.
    public struct MessageChecks: Sendable {
        private var bits: [UInt64] = []
        private var stretch = 0
        private var previousWasExpectation = false

        /// None yet.
        public init() {}

        /// Notes the next step of the script, in order.
        public mutating func note(_ kind: SessionScript.Kind) {
            switch kind {
            case .keys:
                if previousWasExpectation { stretch += 1 }
                previousWasExpectation = false
            case .today: break
            case .expect(let expectation):
                previousWasExpectation = true
                if case .message = expectation {
                    while bits.count <= stretch / 64 { bits.append(0) }
                    bits[stretch / 64] |= 1 << UInt64(stretch % 64)
                }
            }
        }

        func contains(_ stretch: Int) -> Bool {
            stretch / 64 < bits.count && bits[stretch / 64] & (1 << UInt64(stretch % 64)) != 0
        }
    }

    /// Replays one step; `transcript` receives each line the step leaves on screen (no "\n").
    public mutating func perform(_ step: SessionScript.Step, transcript: Transcript) {
        switch step.kind {
        case .keys(let keys):
            if previousWasExpectation {
                refusedSinceExpectation = 0
                shownSinceExpectation.removeAll(keepingCapacity: true)
                stretch += 1
            }
            previousWasExpectation = false
            for key in keys { type(key, transcript) }
        case .today(let month):
            engine.expiryPolicy.today = month
        case .expect(let expectation):
            previousWasExpectation = true
            // The message quotes the script's text and what was shown: masked and escaped.
            if let problem = check(expectation) {
                failures.append(.init(line: step.line, message: problem.escapingControlCharacters))
            }
        }
    }

    /// The last line: the field as left on screen when the script ends.
    public mutating func finish(transcript: Transcript) {
        show(engine.field, transcript)
    }

    /// One key, with the same output rules as the REPL.
    private mutating func type(_ key: Key, _ transcript: Transcript) {
        // The line left on screen is the prompt's (`EntryEngine.finishedView(before:)`): the
        // field with the key applied, or as it was before a key that emptied it. Only Enter,
        // Ctrl-C and keys in a `:` command can empty a field, so only they need the view
        // before the key. (Not a copy of the engine: its first mutation would copy the whole tray.)
        let beforeField = engine.field
        let needsBefore: Bool
        switch key {
        case .enter, .cancel: needsBefore = true
        default: needsBefore = engine.command != nil
        }
        // The field line as left on screen, then the reason and messages printed below it.
        if needsBefore {
            // `finishedView(before:)`'s choice, each line written from the engine's state.
            let wasCommand = engine.command != nil
            lineBefore.removeAll(keepingCapacity: true)
            engine.appendTranscriptLine(of: beforeField, to: &lineBefore)
            guard var shown = apply(key) else { return }
            if engine.keepsLineBefore(field: beforeField, wasCommand: wasCommand) {
                swap(&line, &lineBefore)
                emit(transcript)
            } else {
                show(beforeField, transcript)
            }
            showMessages(&shown, transcript)
        } else {
            guard var shown = apply(key) else { return }
            show(beforeField, transcript)
            showMessages(&shown, transcript)
        }
    }

    /// What a key shows below the field's line.
    private struct Shown {
        var outcome: Outcome
        var reason: Message?
    }

    /// Hands `key` to the engine and notes what it did; the outcome and the refusal reason to
    /// show, or nil when the key shows nothing.
    private mutating func apply(_ key: Key) -> Shown? {
        var outcome = engine.handle(key, reloadingWith: loader)
        let refusal = outcome.refusal
        if refusal != nil { refusedSinceExpectation += 1 }
        let shownReason = refusals.reasonToShow(refusal: refusal)
        // Nobody takes a replayed card: taken out of the outcome and overwritten at once.
        if var card = outcome.takeAcceptedCard() {
            lastSubmit = .accepted(
                network: card.network.id, lastFour: card.lastFour, entry: card.entry, chip: card.chip)
            if cardRecords != nil {
                cardRecords!.append(contentsOf: (cardRecords!.isEmpty ? "{" : ",{").utf8)
                card.appendJSONMembers(.masked, to: &cardRecords!)
                cardRecords!.append(UInt8(ascii: "}"))
            }
            card.wipe()
        } else if case .submitFailed(let fields) = outcome.event {
            lastSubmit = .failed(fields)
        }
        guard shownReason != nil || !outcome.messages.isEmpty else { return nil }
        return Shown(outcome: outcome, reason: shownReason)
    }

    /// The refusal reason and the key's messages, below the field's line.
    private mutating func showMessages(_ shown: inout Shown, _ transcript: Transcript) {
        if let reason = shown.reason {
            line.removeAll(keepingCapacity: true)
            reason.appendLine(to: &line)
            showLine(transcript)
        }
        // Each message written in place, read through a span (an array's subscript copied
        // every message out, a retain and a release each).
        let messages = shown.outcome.messages.span
        for index in messages.indices {
            line.removeAll(keepingCapacity: true)
            messages[index].appendLine(to: &line)
            showLine(transcript)
        }
    }

    /// Hands on a field's line, drawn by the one transcript renderer (`EntryView.appendTranscriptLine`)
    /// from the engine's state.
    private mutating func show(_ field: Field, _ transcript: Transcript) {
        line.removeAll(keepingCapacity: true)
        engine.appendTranscriptLine(of: field, to: &line)
        emit(transcript)
    }

    /// Hands `line` to `transcript`.
    private func emit(_ transcript: Transcript) {
        transcript(line.span)
    }

    /// Hands on `line`, a message line just made, and keeps it if an `@expect message` may ask.
    private mutating func showLine(_ transcript: Transcript) {
        emit(transcript)
        if messageChecks?.contains(stretch) ?? true {
            shownSinceExpectation.append(String(decoding: line, as: UTF8.self))
        }
    }

    /// What is wrong, in words, or nil when the expectation holds.
    private func check(_ expectation: SessionScript.Expectation) -> String? {
        let view = engine.view
        switch expectation {
        case .field(let field):
            return engine.field == field ? nil : "expected field \(field.rawValue), got \(engine.field.rawValue)"
        case .text(let text):
            guard view.text != text else { return nil }
            return "expected text \"\(text)\", got \"\(view.maskedText)\""
        case .network(let id):
            let actual = engine.network?.id
            return actual == id ? nil : "expected network \(id ?? "none"), got \(actual ?? "none")"
        case .refused(let count):
            return refusedSinceExpectation == count
                ? nil
                : "expected \(count) refused key\(count == 1 ? "" : "s"), got \(refusedSinceExpectation)"
        case .message(let text):
            let shown = shownSinceExpectation
            if shown.contains(where: { $0.contains(text) }) { return nil }
            return "expected a message containing \"\(text)\", got "
                + (shown.isEmpty ? "no message" : shown.map { "\"\($0)\"" }.joined(separator: ", "))
        case .accepted(let network, let lastFour):
            guard case .accepted(let acceptedNetwork, let acceptedLastFour, _, _) = lastSubmit else {
                return "expected the last submit to be accepted, got \(describe(lastSubmit))"
            }
            if let network, acceptedNetwork != network {
                return "expected a \(network) card to be accepted, got \(acceptedNetwork)"
            }
            if let lastFour, acceptedLastFour != lastFour {
                return "expected a card ending \(lastFour) to be accepted, got one ending \(acceptedLastFour)"
            }
            return nil
        case .failed(let fields):
            guard case .failed(let actual) = lastSubmit, Set(actual) == fields else {
                return
                    "expected the last submit to fail on \(Field.allCases.filter(fields.contains).map(\.rawValue).joined(separator: ",")), got \(describe(lastSubmit))"
            }
            return nil
        case .cards(let count):
            return engine.tray.count == count
                ? nil : "expected \(count) card\(count == 1 ? "" : "s") in the tray, got \(engine.tray.count)"
        case .logo(let logo):
            return view.logo == logo ? nil : "expected logo \(logo), got \(view.logo)"
        case .entry(let entry, let chip):
            guard case .accepted(_, _, let actual, let actualChip) = lastSubmit else {
                return "expected the last submit to be accepted, got \(describe(lastSubmit))"
            }
            if actual != entry { return "expected entry \(entry.rawValue), got \(actual.rawValue)" }
            if let chip, actualChip != chip {
                return
                    "expected a card \(chip ? "with" : "without") a chip, got one \(actualChip == true ? "with" : "without")"
            }
            return nil
        }
    }

    private func describe(_ submit: LastSubmit?) -> String {
        switch submit {
        case .accepted(let network, let lastFour, _, _): return "accepted \(network) \(lastFour)"
        case .failed(let fields): return "failed \(fields.map(\.rawValue).joined(separator: ","))"
        case nil: return "no submit"
        }
    }
}

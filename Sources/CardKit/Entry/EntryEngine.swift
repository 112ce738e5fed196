import CardChip

/// The card-entry state machine. Every front end (the libedit REPL, the plain-line reader,
/// the `.session` replayer) feeds it keys through `handle(_:)` and draws `view`; all rules
/// about what a key does live here, so every front end behaves the same.
///
/// State: the active field, each field's digits, an optional `:` command being typed, the tray
/// of accepted cards, and recall lists of expiry dates and commands. The full number lives only
/// in `numberDigits` and the CVV only in `cvvDigits`, the cardholder's name in `nameBytes` and
/// the postal code in `postalCharacters`; all are overwritten in place when the card is
/// accepted, cancelled or cleared (and a character when it is deleted). An accepted card
/// leaves the engine whole only inside `Outcome.Event.accepted`, for the front end's caller;
/// the tray keeps it masked. Card numbers are never kept for recall: the next person at the
/// terminal must not be able to bring the last customer's number back with Up.
public struct EntryEngine: Sendable {
    /// The networks in force; `reload(_:)` replaces them.
    public internal(set) var rules: RuleSet
    /// Decides which expiry dates are acceptable; the front end may move `today` on.
    public var expiryPolicy: ExpiryPolicy
    /// The active field: the one keys go to.
    public internal(set) var field: Field = .number
    /// The card number typed so far, each digit 0–9 (not ASCII).
    public internal(set) var numberDigits: [UInt8] = []
    /// Month then two-digit year: up to four digits.
    public internal(set) var expiryDigits: [UInt8] = []
    /// The security code typed so far, each digit 0–9 (not ASCII).
    public internal(set) var cvvDigits: [UInt8] = []
    /// Which fields are asked for (`--name`, `--postal-code`, `--cvv-only`); set at the start.
    public private(set) var form = EntryForm()
    /// The cardholder's name typed so far (`form.asksName`), made from `nameBytes`.
    public var holderName: String { String(decoding: nameBytes, as: UTF8.self) }
    /// The name's UTF-8 bytes, kept as the digits are: in storage sized up front, overwritten
    /// in place.
    var nameBytes: [UInt8] = []
    /// The name was filled in from a swipe's track 1 and nothing has been typed into it: a
    /// character typed replaces it (`typeName`), Backspace edits it, Enter keeps it.
    var nameFromSwipe = false
    /// The postal code typed so far: its letters (uppercase) and digits, ASCII, without the
    /// format's separators (`PostalCodeFormat.formatted` shows them).
    public internal(set) var postalCharacters: [UInt8] = []
    /// The `:` command being typed in place of the active field's value, colon included.
    public internal(set) var command: String?
    /// The cards accepted so far, masked.
    public internal(set) var tray = CardTray()
    /// The networks taken here, or nil for every network the rules define.
    public private(set) var acceptedNetworks: AcceptedNetworks?
    /// The badge while no single network matches: `CARD`, or the accepted networks' logos.
    public internal(set) var undecidedLogo = EntryView.genericLogo
    /// What the digits typed so far say about the network.
    public internal(set) var detection: Detection
    /// The network chosen for a co-badged card (Ctrl-N, `:network ID`), by id; nil, or an id
    /// that is not one of the card's: the default, `cardNetworks.first`.
    var chosenNetworkID: String?
    /// The detection of an empty number under `rules`, kept: every card starts from it.
    var emptyDetection: Detection
    /// Earlier entries per field and of commands, oldest first, for Up/Down recall.
    public private(set) var recall = Recall()
    private var recallPosition: (list: RecallList, index: Int, draft: String)?
    /// How many digits the number had when a separator (a space, `-` or `/`, as in a paste or
    /// a piped line `6011111111111117 12/30 123`) followed it while it was complete, valid and
    /// still able to grow; 0 for none. Such a number does not move on by itself, so the
    /// expiry's digits that follow would join it: when they make it too long, or a `/` comes,
    /// the number ends there and they go to the expiry (`endNumberAtSeparator`).
    var numberEnd = 0
    /// Set when the number came from a swipe (`Key.swipe`) or a chip (`Key.chip`): how it was
    /// read. nil for a typed number; any change to the number clears it.
    var cardRead: CardRead?

    /// Which recall list Up and Down walk: expiry dates in the expiry field, command lines
    /// while a `:` command is typed. (There is none for numbers or security codes.)
    public enum RecallList: Hashable, Sendable { case expiry, command }

    /// The recall lists (plain fields, not a dictionary: one is touched per field change).
    public struct Recall: Sendable {
        var expiries: [String] = []
        var commands: [String] = []

        /// The entries of one list, oldest first.
        public subscript(list: RecallList) -> [String] {
            get {
                switch list {
                case .expiry: return expiries
                case .command: return commands
                }
            }
            set {
                switch list {
                case .expiry: expiries = newValue
                case .command: commands = newValue
                }
            }
        }

        mutating func remember(_ entry: String, in list: RecallList) {
            switch list {
            case .expiry: if expiries.last != entry { expiries.append(entry) }
            case .command: if commands.last != entry { commands.append(entry) }
            }
        }
    }

    /// The longest `:` command line accepted.
    public static let maxCommandLength = 200

    /// Whether the front end ends the entry on Ctrl-C and a lone Esc (one-shot use:
    /// `cardline --once`, `--print`) instead of handing the engine `.cancel`; the keys as `:help`
    /// and the Ctrl-D refusal describe them follow it.
    public var cancelEndsEntry = false

    /// The words every label, hint and message is shown in (`MessageCatalog`): English unless
    /// the front end gives another language's catalog.
    public var messages = MessageCatalog.english
    /// The terminal's width, that `:rules` fits its table into (the prompt keeps it current).
    public var columns = 80
    /// A chip reader is attached (the prompt's watcher says so): the number's hint says a card
    /// may be inserted or tapped too.
    public var chipReaderAttached = false

    /// An engine at an empty card number. `commandHistory` seeds the recall list of `:`
    /// commands (oldest first); `acceptedNetworks` restricts the networks taken (nil: all).
    public init(
        rules: RuleSet, expiryPolicy: ExpiryPolicy, commandHistory: [String] = [],
        acceptedNetworks: AcceptedNetworks? = nil, form: EntryForm = EntryForm()
    ) {
        self.rules = rules
        self.form = form
        field = form.firstField
        self.expiryPolicy = expiryPolicy
        self.acceptedNetworks = acceptedNetworks
        let empty = rules.detect([UInt8]())
        self.detection = empty
        emptyDetection = empty
        recall.commands = commandHistory
        undecidedLogo = Self.undecidedLogo(rules, acceptedNetworks)
        // Room for the longest number and code up front: growing an array would leave the
        // digits typed so far behind in freed memory.
        numberDigits.reserveCapacity(CardPolicy.longestNumber)
        cvvDigits.reserveCapacity(CardPolicy.securityCodeLengths.upperBound)
        // (four bytes a letter at most, but for marks)
        if form.asksName { nameBytes.reserveCapacity(HolderName.maxLength * 4) }
        if let format = form.postalCode { postalCharacters.reserveCapacity(format.longest) }
    }

    /// `CARD`, or with accepted networks their logos: `VISA/MASTERCARD/AMEX` (up to four;
    /// the help line names them all).
    static func undecidedLogo(_ rules: RuleSet, _ accepted: AcceptedNetworks?) -> String {
        guard let networks = accepted?.networks(in: rules), !networks.isEmpty, networks.count <= 4 else {
            return EntryView.genericLogo
        }
        return networks.map(\.logo).joined(separator: "/")
    }

    // MARK: - The one door

    /// Applies one key and says what it did; `:reload` only asks for a reload (`Outcome.Event.reloadRules`).
    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .historyPrevious, .historyNext, .nextNetwork: break
        // (A switch: comparing keys compares their characters' text. Cleared only when set: an
        // assignment frees the old value through a call, on every key.)
        default: if recallPosition != nil { recallPosition = nil }
        }
        if command != nil { return handleCommandKey(key) }
        switch key {
        case .character(let character): return type(character)
        case .backspace: return backspace()
        case .enter: return enter()
        case .clearLine:
            guard !activeIsEmpty else { return refuse(.keyFieldEmpty, ("field", .text(fieldName(field)))) }
            clearActive()
            return .accepted
        case .cancel:
            return cancelCard()
        case .endOfInput:
            guard activeIsEmpty else { return refuse(.keyCtrlDField) }
            guard cardIsEmpty else {
                return refuse(cancelEndsEntry ? .keyCtrlDCardEnds : .keyCtrlDCardCancels)
            }
            return quit()
        case .historyPrevious, .historyNext:
            return recallStep(backwards: key == .historyPrevious)
        case .nextNetwork:
            return nextNetwork()
        case .other(let name):
            return refuse(.keyDoesNothing, ("key", .text(name)))
        case .swipe(let swipe):
            return takeSwipe(swipe)
        case .chip(let card):
            return takeChip(card)
        }
    }

    // MARK: - The card's networks

    /// The networks the card being typed can be delivered as, the one home of that choice:
    /// the networks of its number (`Detection.networks`: a co-badged card's international
    /// schemes first, then the domestic network), without those not accepted here when some
    /// are (`--networks`); empty while no network is decided.
    public var cardNetworks: [CardNetwork] {
        guard let acceptedNetworks else { return detection.networks }
        return detection.networks(takenBy: acceptedNetworks.accepts)
    }

    /// The network the card is shown, summed up and delivered as: the deciding network, or
    /// for a co-badged card the one chosen (Ctrl-N, `:network ID`), by default the first of
    /// `cardNetworks` (the first network of the `coBadged` entry's `with` that is loaded and
    /// accepted). Its lengths, groups and code are still the deciding network's.
    public var network: CardNetwork? {
        guard detection.isCoBadged else { return detection.network }  // (every key: no array made)
        let choices = cardNetworks
        return choices.first { $0.id == chosenNetworkID } ?? choices.first
    }

    /// The card's other networks, for the delivered card's `alsoNetworks`: those of its
    /// number other than `network`, in `Detection.networks` order (accepted here or not: the
    /// card is theirs too).
    public var alsoNetworks: [CardNetwork] {
        guard detection.isCoBadged, let network else { return [] }
        return detection.networks.filter { $0 !== network }
    }

    /// Ctrl-N: the next of the card's networks (after the last, the first again); the badge
    /// shows it. On a card with one network it is Down, as it was (recall in the expiry field).
    private mutating func nextNetwork() -> Outcome {
        let choices = cardNetworks
        guard choices.count > 1, let current = network, let index = choices.firstIndex(where: { $0 === current }) else {
            guard field == .number else { return recallStep(backwards: false) }
            if detection.networks.count > 1, let only = choices.first {
                return refuse(.networkOnlyAccepted, ("network", .text(only.name)))
            }
            return detection.network.map { refuse(.networkOne, ("network", .text($0.name))) }
                ?? refuse(.networkNoneYet)
        }
        chosenNetworkID = choices[(index + 1) % choices.count].id
        return .accepted
    }

    /// `:network` (the card's networks, the chosen one marked) and `:network ID` (choose one,
    /// by id or badge name in any case).
    mutating func chooseNetwork(_ name: String?) -> Outcome {
        let all = detection.networks
        guard let current = network else {
            return Outcome(messages: [say(.error, .networkUnknown)])
        }
        guard let name else {
            let listed = all.map {
                $0 === current
                    ? messages.text(.networkChosen, ("network", $0.name), ("id", $0.id)) : "\($0.name) (\($0.id))"
            }
            return Outcome(messages: [
                say(
                    .info, all.count > 1 ? .networkListChoose : .networkList,
                    ("networks", .text(listed.joined(separator: ", "))))
            ])
        }
        let wanted = name.lowercased()
        guard let picked = all.first(where: { $0.id == wanted || $0.logo.lowercased() == wanted }) else {
            let shown = CardNumber.maskingDigits(in: name).escapingControlCharacters
            return Outcome(messages: [
                say(
                    .error, .networkNotThisCard, ("name", .text(shown)),
                    ("ids", .text(all.map(\.id).joined(separator: ", "))))
            ])
        }
        if let acceptedNetworks, !acceptedNetworks.accepts(picked) {
            return Outcome(messages: [
                say(
                    .error, .networkNotAccepted, ("network", .text(picked.name)),
                    ("accepted", .list(acceptedNetworks.nameList(in: rules), .listAnd)))
            ])
        }
        chosenNetworkID = picked.id
        return Outcome(messages: [chosenNetworkLine(.success, picked, also: alsoNetworks)])
    }

    /// `Network: Dankort (also Visa).`: what a co-badged card is delivered as.
    func chosenNetworkLine(
        _ kind: Message.Kind, _ network: CardNetwork, also: [CardNetwork], changing: Bool = false
    ) -> Message {
        guard !also.isEmpty else {
            return say(kind, changing ? .networkChange : .networkLine, ("network", .text(network.name)))
        }
        return say(
            kind, changing ? .networkChangeAlso : .networkLineAlso, ("network", .text(network.name)),
            ("others", .list(also.map(\.name), .listAnd)))
    }

    /// Said once the number of a co-badged card is complete: what it is paid with, and how to change it.
    var coBadgedMessage: Message? {
        // (`isCoBadged` first: most cards have one network, and `cardNetworks` makes an array.)
        guard detection.isCoBadged, cardNetworks.count > 1, let network else { return nil }
        return chosenNetworkLine(.info, network, also: alsoNetworks, changing: true)
    }

    /// "✓ Visa •••• 1111, expires 12/30": the card's summary once its number and expiry are in.
    func cardSummary(_ network: CardNetwork, expiry: YearMonth) -> Message {
        Message(
            .success,
            card: CardLine(network: network, lastFour: CardPolicy.lastShownDigits(of: numberDigits), expiry: expiry),
            in: messages)
    }

    /// Ctrl-C: the card being entered is cancelled (every field overwritten), and said so.
    mutating func cancelCard() -> Outcome {
        resetCard()
        let said = say(
            .info, form.securityCodeOnly == nil ? .cardCancelled : .cardCancelledCode,
            ("code", .text(securityCode.name)))
        return Outcome(messages: [said], fieldChanged: true)
    }

    /// Ends the session, saying what happens to the cards in the tray.
    func quit() -> Outcome {
        let count = tray.count
        guard count > 0 else { return Outcome(event: .quit) }
        return Outcome(
            messages: [count == 1 ? say(.info, .goodbyeOne) : say(.info, .goodbyeMany, ("count", .number(count)))],
            event: .quit)
    }

    /// True when no digit of a card has been typed in any field (Ctrl-D quitting only between
    /// cards, and the plain-line reader's "card abandoned" and "input ended" ask this).
    public var cardIsEmpty: Bool {
        numberDigits.isEmpty && expiryDigits.isEmpty && cvvDigits.isEmpty && nameBytes.isEmpty
            && postalCharacters.isEmpty
    }

    /// Reads the rule folders again (front ends do the file reading CardKit never does).
    public typealias RuleLoader = () -> Result<RuleSet, RuleErrors>

    /// Handles a key; when it asks for `:reload`, calls `loader` and takes its result.
    public mutating func handle(_ key: Key, reloadingWith loader: RuleLoader?) -> Outcome {
        let outcome = handle(key)
        guard case .reloadRules = outcome.event else { return outcome }
        var reloaded =
            loader.map { reload($0()) }
            ?? Outcome(messages: [say(.error, .rulesNotHere)])
        reloaded.command = outcome.command
        return reloaded
    }

    /// Feeds each key in turn and returns every outcome.
    public mutating func handle(_ keys: [Key]) -> [Outcome] { keys.map { handle($0) } }

    // MARK: - Backspace, Enter

    private mutating func backspace() -> Outcome {
        guard activeIsEmpty else {
            // In place: the deleted digit is overwritten, not left in a freed copy.
            switch field {
            case .number:
                numberDigits.overwriteLast()
                numberEnd = 0
                cardRead = nil
                detection = rules.detect(numberDigits)
            case .expiry: expiryDigits.overwriteLast()
            case .cvv: cvvDigits.overwriteLast()
            case .name:
                nameBytes.overwriteLast(holderName.last!.utf8.count)
                nameFromSwipe = false
            case .postalCode: postalCharacters.overwriteLast()
            }
            return .accepted
        }
        guard let previous = form.field(before: field) else {
            return refuse(.keyFieldEmpty, ("field", .text(fieldName(field))))
        }
        field = previous
        return Outcome(fieldChanged: true)
    }

    private mutating func enter() -> Outcome {
        // Enter on an empty field does nothing, so a line break after a field that moved on
        // by itself (on a pipe, or out of habit) never submits an empty code.
        guard !activeIsEmpty else { return .ignored }
        if form.field(after: field) == nil { return submit() }
        if let problem = problem(in: field) {
            return Outcome(messages: [problem])
        }
        return moveForward()
    }

    /// Moves to the next field, noting the finished field for recall, with help and summary.
    mutating func moveForward() -> Outcome {
        numberEnd = 0
        var messages: [Message] = []
        messages.reserveCapacity(2)  // the summary and the help: one allocation, not two
        switch field {
        case .number:
            field = .expiry
            if let message = coBadgedMessage { messages.append(message) }
        case .expiry:
            remember(expiryText, in: .expiry)
            field = .cvv
            // The summary, worded only if it is read (a replay writes its bytes straight out).
            if let network, let expiry { messages.append(cardSummary(network, expiry: expiry)) }
        case .cvv, .name, .postalCode:
            guard let next = form.field(after: field) else { return submit() }
            field = next
        }
        messages.append(help)
        return Outcome(messages: messages, fieldChanged: true)
    }

    /// What is wrong with a field's value (an error message); nil when it is complete and valid.
    public func problem(in field: Field) -> Message? {
        switch field {
        case .number:
            if numberDigits.isEmpty { return say(.error, .numberEmpty) }
            guard let network = detection.network else {
                return say(
                    .error, .numberUndecided,
                    ("digits", .text(CardNumber.string(CardPolicy.leadingShownDigits(of: numberDigits)))))
            }
            if let acceptedNetworks, !detection.networks.contains(where: acceptedNetworks.accepts) {
                return say(.error, .numberNotAccepted, ("network", .text(network.name)))
            }
            switch detection.verdict(numberDigits) {
            case .valid: return nil
            case .failsLuhn: return say(.error, .numberInvalid)
            default:
                return say(
                    .error, .numberLength, ("a", .text(article(for: network.name))), ("network", .text(network.name)),
                    ("lengths", .list(detection.lengths.lengths.map(String.init), .listOr)),
                    ("count", .number(numberDigits.count)))
            }
        case .expiry:
            guard let expiry else { return say(.error, .expiryMissing) }
            if awaitsFourDigitYear { return say(.error, .expiryPastFourDigits, ("expiry", .text(expiryText))) }
            switch expiryPolicy.check(expiry) {
            case .valid: return nil
            case .past: return say(.error, .expiryExpired, ("expiry", .text(expiry.cardText)))
            case .tooFar:
                return say(
                    .error, .expiryBeyond, ("expiry", .text(expiry.cardText)),
                    ("years", .number(expiryPolicy.maxYearsAhead)))
            }
        case .cvv:
            let code = securityCode
            let count = cvvDigits.count
            return code.problem(count: count).map { _ in  // (the code decides; the catalog words it)
                count == 0
                    ? say(.error, .codeEmpty, ("code", .text(code.name)))
                    : say(
                        .error, .codeLength, ("code", .text(code.name)),
                        ("lengths", .list(code.lengths.map(String.init), .listOr)), ("count", .number(count)))
            }
        case .name:
            return HolderName.problem(holderName, messages).map { Message(.error, $0) }
        case .postalCode:
            return form.postalCode?.problem(postalCharacters, messages).map { Message(.error, $0) }
        }
    }

    private mutating func submit() -> Outcome {
        let problems = form.fields.compactMap { field in problem(in: field).map { (field, $0) } }
        if let first = problems.first {
            field = first.0
            // (Worded here: a failed submit is shown at once, and its problems are a list of texts.)
            let listed = problems.map {
                messages.text(.cardProblem, ("field", fieldName($0.0)), ("problem", $0.1.text))
            }
            return Outcome(
                messages: [say(.error, .cardNotAccepted, ("problems", .text(listed.joined(separator: "; "))))],
                fieldChanged: true, event: .submitFailed(problems.map(\.0)))
        }
        if let onFile = form.securityCodeOnly { return submitSecurityCode(of: onFile) }
        let network = self.network!
        var card = PaymentCard(
            network: network, numberDigits: numberDigits, expiry: expiry!, securityCodeDigits: cvvDigits,
            alsoNetworks: alsoNetworks, entry: cardRead?.entry ?? .keyed, chip: swipedWithChip,
            panSequence: chipPANSequence)
        if form.asksName { card.holderName = HolderName.finished(holderName) }
        if let format = form.postalCode { card.postalCode = format.formatted(postalCharacters) }
        tray.add(card)
        resetCard()
        let success = Message(
            .success,
            card: CardLine(
                prefix: .cardSuccess, network: network, lastFour: CardPolicy.lastShownDigits(of: card.numberDigits),
                expiry: card.expiry),
            in: messages)
        // Moved into the event, not copied: the outcome then holds the card's only copy, which
        // the front end takes out and wipes (`Outcome.takeAcceptedCard`).
        return Outcome(messages: [success], fieldChanged: true, event: .accepted(consume card))
    }

    /// `--cvv-only`: the security code of a card on file, delivered with its network alone.
    private mutating func submitSecurityCode(of network: CardNetwork) -> Outcome {
        var card = PaymentCard(
            network: network, numberDigits: [], expiry: expiryPolicy.today, securityCodeDigits: cvvDigits)
        card.isSecurityCodeOnly = true
        if form.asksName { card.holderName = HolderName.finished(holderName) }
        if let format = form.postalCode { card.postalCode = format.formatted(postalCharacters) }
        let name = securityCode.name
        resetCard()
        return Outcome(
            messages: [say(.success, .cardCodeTaken, ("network", .text(network.name)), ("code", .text(name)))],
            fieldChanged: true, event: .accepted(card))
    }

    /// Back to an empty number, the digits of every field overwritten in place.
    mutating func resetCard() {
        field = form.firstField
        nameBytes.overwriteAndEmpty()
        nameFromSwipe = false
        postalCharacters.overwriteAndEmpty()
        numberEnd = 0
        chosenNetworkID = nil
        cardRead = nil
        numberDigits.overwriteAndEmpty()
        expiryDigits.overwriteAndEmpty()
        cvvDigits.overwriteAndEmpty()
        command = nil
        detection = emptyDetection
    }

    // MARK: - Recall

    mutating func remember(_ entry: String, in list: RecallList) {
        recall.remember(entry, in: list)
    }

    mutating func recallStep(backwards: Bool) -> Outcome {
        let list: RecallList
        switch (command != nil, field) {
        case (true, _): list = .command
        case (false, .number): return refuse(.recallNumber)
        case (false, .expiry): list = .expiry
        case (false, .cvv): return refuse(.recallCode, ("code", .text(securityCode.name)))
        case (false, .name), (false, .postalCode):
            return refuse(.recallField, ("field", .text(fieldName(field))))
        }
        let entries = recall[list]
        let current = recallPosition.flatMap { $0.list == list ? $0 : nil }
        let draft = current?.draft ?? (command ?? CardNumber.string(activeDigits))
        let index = (current?.index ?? entries.count) + (backwards ? -1 : 1)
        guard !entries.isEmpty, index >= 0, index <= entries.count, current != nil || backwards else {
            return refuse(backwards ? .recallOldest : .recallNewest)
        }
        let text = index == entries.count ? draft : entries[index]
        if list == .command {
            command = text.isEmpty ? nil : text
        } else {
            expiryDigits = Array(text.compactMap(\.digitValue).prefix(Self.longestExpiryDigits))
        }
        recallPosition = (list, index, draft)
        return .accepted
    }

}

extension Character {
    /// 0–9 for ASCII digits, nil for anything else.
    var digitValue: UInt8? { singleASCIIByte.flatMap { $0 &- 48 < 10 ? $0 - 48 : nil } }

    var isPrintableASCII: Bool { singleASCIIByte.map { $0 >= 0x20 && $0 < 0x7F } ?? false }
}

/// How a refused character is named in a reason: 'x', or U+0007 for invisible ones.
func quoted(_ character: Character) -> String {
    if character == "\t" { return "Tab" }
    // A control, format or bidi character is named, never printed (a C1 control or U+202E
    // would act on the terminal); so is every scalar of a cluster that holds one.
    if character.unicodeScalars.contains(where: { TerminalKey.characterName(Character($0)).hasPrefix("U+") }) {
        return character.unicodeScalars.map { TerminalKey.characterName(Character($0)) }.joined(separator: " ")
    }
    return "'\(character)'"
}

extension String {
    func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

extension Outcome {
    /// Folds in what a later key did, for one key that stands for several (a number ended at
    /// a separator, its trailing digits typed into the expiry): messages in order, the last
    /// key's disposition and event, a field change if either changed it.
    mutating func append(_ later: Outcome) {
        messages += later.messages
        disposition = later.disposition
        fieldChanged = fieldChanged || later.fieldChanged
        if later.event != nil { event = later.event }
    }
}

extension EntryEngine {
    /// A message of `kind` saying `id` in the engine's words (`messages`), worded only when it
    /// is shown.
    func say(_ kind: Message.Kind, _ id: MessageID, _ arguments: (String, Message.Value)...) -> Message {
        Message(kind, id, arguments, in: messages)
    }

    /// A key refused for the reason `id` says.
    func refuse(_ id: MessageID, _ arguments: (String, Message.Value)...) -> Outcome {
        .refused(Message(.error, id, arguments, in: messages))
    }
}

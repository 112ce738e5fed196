/// Writes what a person does at the prompt as a `.session` script (`cardline --record`): the
/// keys as they came (a paste as `@paste`, a swipe as `@swipe`, a resize as `@columns`), each
/// followed by `@expect` lines that pin what the engine did, under a header (`@today`,
/// `@columns`, `@networks`, the form, `@rules`) that makes `cardline replay` behave as the
/// prompt did on any machine.
///
/// No card data is written. Each key that types a card's data is replaced by another that does
/// the same at that point (`Signature`): the same field, text shape, network, badge, verdict,
/// refusal, messages and event; the first six digits of a number stay (they decide its network,
/// and may be shown), every later digit, the expiry's and the code's digits and the name's and
/// postal code's letters and digits become others wherever another does the same. A card's keys
/// are chosen together once it is finished (the prompt back at an empty first field, or the
/// end), depth first (`choose`): a stand-in that leaves a later key nothing that does what the
/// typed one did is chosen again. The script is made by replaying what it says on a `Replayer`
/// of its own as it is written, and the expectations are read from that replayer. A card is
/// made again with other digits when a run of four of the typed number's digits after its first
/// six, or its code, came out anywhere in it by chance. What the recorder keeps of a card until
/// then (the keys, the numbers and codes typed) is overwritten when it is written.
public struct SessionRecorder {
    /// What the prompt did after one key: what a made-up key must do the same.
    struct Signature: Equatable {
        var field: Field
        var isCommand: Bool
        /// The field's text with every digit `#` and every letter `a` or `A`.
        var shape: [UInt8]
        var network: String?
        var logo: String
        var verdict: CardPolicy.Verdict
        var refused: Bool
        var fieldChanged: Bool
        /// What the key asked of the front end: `accepted visa`, `failed expiry`, `quit`, `reload`.
        var event: String?
        /// The refusal's and the messages' kinds and catalog ids (nil for a line given whole).
        var said: [String]

        init(_ engine: EntryEngine, _ outcome: Outcome) {
            let view = engine.view
            field = view.field
            isCommand = view.isCommand
            // (By character: a letter with a mark, `é` as two scalars, is one letter.)
            shape = view.text.map { character in
                if character.isASCII && character.isNumber { return UInt8(ascii: "#") }
                if character.isLetter { return character.isLowercase ? UInt8(ascii: "a") : UInt8(ascii: "A") }
                return character.asciiValue ?? UInt8(ascii: "?")
            }
            network = engine.network?.id
            logo = view.logo
            verdict = engine.detection.verdict(engine.numberDigits)
            refused = outcome.refusal != nil
            fieldChanged = outcome.fieldChanged
            switch outcome.event {
            case .accepted(let card): event = "accepted \(card.network.id)"
            case .submitFailed(let fields): event = "failed \(fields.map(\.rawValue))"
            case .quit: event = "quit"
            case .reloadRules: event = "reload"
            case nil: event = nil
            }
            said = ([outcome.refusal].compactMap { $0 } + outcome.messages).map {
                "\($0.kind.rawValue) \($0.id?.rawValue ?? "-")"
            }
        }

        /// The same but for the words said: a key that does this is the next best.
        func sameButWords(as other: Signature) -> Bool {
            var other = other
            other.said = said
            return self == other
        }
    }

    /// Keys handed to the engine together: one key, or a paste. Holds card data until written.
    struct Input {
        var keys: [Key] = []
        var signatures: [Signature] = []
        var pasted = false
        /// A resize, which comes with no keys.
        var columns: Int?
        /// The cards swiped or read among `keys`, in order (`.swipe` and `.chip` keys hold no
        /// card here).
        var reads: [CardRead?] = []
        /// The keys are part of a `:` command that held a card number: its digits are made up.
        var inNumberCommand = false
    }

    var random = SystemRandomNumberGenerator()
    /// The script as written so far, replayed (the inputs waiting to be written not yet): its
    /// engine is the one made-up keys are tried on from.
    private var replayer: Replayer
    let loader: EntryEngine.RuleLoader?
    /// Inputs not yet written: the card in progress.
    var waiting: [Input] = []
    private var current = Input()
    /// Where the `:` command being typed began in `waiting`, and whether it held a number.
    private var commandStart: Int?
    private var commandHoldsNumber = false
    /// The numbers and codes typed since the last card was written (for the leak check).
    private var typedNumbers: [[UInt8]] = []
    private var typedCodes: [[UInt8]] = []
    /// The prompt is back at an empty first field: what waits may be written.
    private var atRest = false
    /// Whether every key written so far does what the typed one did (false once the search for
    /// a card's made-up keys ran out and settled for the nearest).
    public private(set) var followedEveryKey = true
    /// The header, until the first write.
    private var header: [UInt8]
    /// The terminal's width as the script says it.
    private var columns: Int

    /// A recorder for a prompt whose engine starts as `engine` (its rules, today, accepted
    /// networks, form and width); `ruleFolders` are the rule folders read besides the bundled
    /// ones (each becomes an `@rules` line), `bundledRules` whether the bundled ones were read
    /// (`@no-default-rules` if not), `retiredNetworks` whether retired networks are matched
    /// (`@retired`), `recorded` the date and time said in the header.
    public init(
        engine: EntryEngine, ruleFolders: [String], bundledRules: Bool = true, retiredNetworks: Bool = false,
        recorded: String, reloadingWith loader: EntryEngine.RuleLoader?
    ) {
        var script = SessionScript.LineParser().header
        script.today = engine.expiryPolicy.today
        script.asksName = engine.form.asksName
        script.postalCodeCountry = engine.form.postalCode?.country
        var text = """
            # Recorded by cardline --record, \(recorded). Replay it with: cardline replay FILE
            # Each key is followed by what the prompt did. No card data: the card's digits after its
            # first six, its expiry, its code and the holder's name are made up, and behave the same.

            """
        text += "@today \(engine.expiryPolicy.today.description)\n@columns \(engine.columns)\n"
        if let accepted = engine.acceptedNetworks { text += "@networks \(accepted.ids.joined(separator: ","))\n" }
        if script.asksName { text += "@name\n" }
        if let country = script.postalCodeCountry { text += "@postal-code \(country)\n" }
        if let network = engine.form.securityCodeOnly { text += "@cvv-only \(network.id)\n" }
        if !bundledRules { text += "@no-default-rules\n" }
        if retiredNetworks { text += "@retired\n" }
        for folder in ruleFolders {
            // (A line break in a folder's name would end the line: such a folder is named escaped.)
            let breaks = folder.contains { $0.isNewline }
            text += breaks ? "# @rules \(folder.escapingControlCharacters)\n" : "@rules \(folder)\n"
        }
        header = Array(text.utf8)
        replayer = Replayer(
            script: script, rules: engine.rules, today: engine.expiryPolicy.today, accepted: engine.acceptedNetworks,
            reloadingWith: loader, securityCodeOnly: engine.form.securityCodeOnly)
        replayer.perform(.init(line: 0, kind: .columns(engine.columns)), transcript: { _ in })
        self.loader = loader
        columns = engine.columns
    }

    // MARK: - What the prompt saw

    /// `key` was handed to the engine, which did `outcome` and is now `engine`.
    public mutating func note(_ key: Key, _ outcome: Outcome, engine: EntryEngine) {
        var kept = key
        switch key {
        case .swipe(let track):
            current.reads.append(track.map(CardRead.init))
            kept = .swipe(nil)
        case .chip(let card):
            current.reads.append(card.flatMap(CardRead.init))
            kept = .chip(nil)
        default: break
        }
        if kept != key, let read = current.reads.last ?? nil { note(number: read.digits) }
        // Room for a pasted card line at once: a buffer outgrown would be freed holding the
        // typed digits, a key each.
        if current.keys.isEmpty { current.keys.reserveCapacity(64) }
        current.keys.append(kept)
        current.signatures.append(Signature(engine, outcome))
        if let command = engine.command {
            if commandStart == nil { commandStart = waiting.count }
            commandHoldsNumber = commandHoldsNumber || CardNumber.mayHoldCardNumber(command)
            if commandHoldsNumber {
                // Its digits, as a number typed: the leak check looks for them too.
                // (Sized once: no copy left behind by growing.)
                var digits: [UInt8] = []
                digits.reserveCapacity(command.utf8.count)
                for byte in command.utf8 where byte &- 48 < 10 { digits.append(byte &- 48) }
                defer { digits.overwriteAndEmpty() }
                note(number: digits)
            }
        }
        if !engine.numberDigits.isEmpty { note(number: engine.numberDigits) }
        if !engine.cvvDigits.isEmpty { note(code: engine.cvvDigits) }
        atRest =
            engine.command == nil && engine.cardIsEmpty && engine.field == engine.form.firstField
            && engine.activeIsEmpty
    }

    /// The keys noted since the last call came as one paste (`pasted`) or one key: the text
    /// to add to the script, empty while a card is in progress.
    public mutating func endInput(pasted: Bool) -> [UInt8] {
        guard !current.keys.isEmpty else { return [] }
        current.pasted = pasted
        waiting.append(current)
        current = Input()
        if let start = commandStart {
            // A command that holds a number has its keys' digits made up, from the key that
            // made it one: while it is typed (the file is rewritten after each key) as after.
            if commandHoldsNumber {
                for index in start..<waiting.count { waiting[index].inNumberCommand = true }
            }
            // The command ran (or was left).
            if !lastInputIsCommand { (commandStart, commandHoldsNumber) = (nil, false) }
        }
        return atRest ? write() : []
    }

    private var lastInputIsCommand: Bool { waiting.last?.signatures.last?.isCommand ?? false }

    /// The terminal is now `columns` wide.
    public mutating func resized(columns: Int) -> [UInt8] {
        guard columns != self.columns else { return [] }
        self.columns = columns
        waiting.append(Input(columns: columns))
        return atRest ? write() : []
    }

    /// The prompt ended: everything not yet written.
    public mutating func finish() -> [UInt8] {
        if !current.keys.isEmpty { _ = endInput(pasted: false) }
        return write()
    }

    private mutating func note(number digits: [UInt8]) {
        if let last = typedNumbers.indices.last,
            typedNumbers[last].starts(with: digits) || digits.starts(with: typedNumbers[last])
        {
            if digits.count > typedNumbers[last].count {
                typedNumbers[last].overwriteAndEmpty()
                typedNumbers[last].append(contentsOf: digits)
            }
            return
        }
        var copy: [UInt8] = []
        copy.reserveCapacity(CardPolicy.longestNumber)
        copy.append(contentsOf: digits)
        typedNumbers.append(copy)
    }

    private mutating func note(code digits: [UInt8]) {
        if let last = typedCodes.indices.last, digits.starts(with: typedCodes[last]) {
            typedCodes[last].overwriteAndEmpty()
            typedCodes[last].append(contentsOf: digits)
            return
        }
        var copy: [UInt8] = []
        copy.reserveCapacity(CardPolicy.securityCodeLengths.upperBound)
        copy.append(contentsOf: digits)
        typedCodes.append(copy)
    }

    // MARK: - Writing

    /// The waiting inputs as script text (`made`), then everything kept of them overwritten.
    private mutating func write() -> [UInt8] {
        let made = make()
        let text = header + made.text
        header = []
        replayer = made.replayed
        followedEveryKey = followedEveryKey && made.followed
        forgetWaiting()
        return text
    }

    /// What the file holds after the last finished card while a card is in progress: the keys
    /// so far as `write()` would make them (and the header, until it is written), kept nowhere.
    /// A front end writes it after each key in place of the one before, so that a program
    /// killed mid-card leaves the card's keys so far in the file.
    public mutating func unfinished() -> [UInt8] {
        guard !waiting.isEmpty else { return header }
        return header + make().text
    }

    /// The waiting inputs as script text, from `replayer`: made up again (up to eight
    /// times) while any of the card data typed shows through. The replayer after it, and
    /// whether the made-up keys followed every typed one.
    private mutating func make() -> (text: [UInt8], replayed: Replayer, followed: Bool) {
        var made: [UInt8] = []
        var replayed = replayer
        var followed = true
        for attempt in 0..<8 {
            made.removeAll(keepingCapacity: true)
            replayed = replayer
            let choices: [[Choice]]
            (choices, followed) = choose(from: replayer.engine)
            if !followed {
                made += Array("# From here the made-up keys could not all do what the typed ones did.\n".utf8)
            }
            for (input, choices) in zip(waiting, choices) { render(input, choices, on: &replayed, to: &made) }
            if attempt == 7 || !showsTypedData(made) { break }
        }
        return (made, replayed, followed)
    }

    /// Overwrites what was kept of the inputs written.
    private mutating func forgetWaiting() {
        for index in waiting.indices {
            for key in waiting[index].keys.indices { waiting[index].keys[key] = .backspace }
            for read in waiting[index].reads.indices { waiting[index].reads[read]?.wipe() }
        }
        waiting.removeAll()
        for index in typedNumbers.indices { typedNumbers[index].overwriteAndEmpty() }
        for index in typedCodes.indices { typedCodes[index].overwriteAndEmpty() }
        typedNumbers.removeAll()
        typedCodes.removeAll()
    }

    /// Whether `text` shows four digits in a row of a typed number after its first six
    /// (spaces and dashes left out), or a typed code as a number of its own. One pass over the
    /// text: each run of four digits looked up among the typed numbers' runs.
    private func showsTypedData(_ text: [UInt8]) -> Bool {
        var runs = Set<Int>()
        for number in typedNumbers where number.count >= 10 {
            let run = { (start: Int) in number[start..<start + 4].reduce(0) { $0 * 10 + Int($1) } }
            // (A run the first six digits hold too is shown by them, which stay.)
            let kept = Set((0...2).map(run))
            for start in 6...(number.count - 4) where !kept.contains(run(start)) { runs.insert(run(start)) }
        }
        let codes = Set(typedCodes.filter { !$0.isEmpty }.map { $0.map { $0 + UInt8(ascii: "0") } })
        var last4 = 0
        var count = 0
        var token: [UInt8] = []
        for byte in text + [UInt8(ascii: "\n")] {
            if byte &- UInt8(ascii: "0") < 10 {
                last4 = (last4 * 10 + Int(byte &- UInt8(ascii: "0"))) % 10_000
                count += 1
                if count >= 4 && runs.contains(last4) { return true }
                token.append(byte)
                continue
            }
            if !token.isEmpty && codes.contains(token) { return true }
            token.removeAll(keepingCapacity: true)
            // Spaces and dashes do not end a run of the number's digits; anything else does.
            if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "-") { count = 0 }
        }
        return false
    }

    /// Appends `input` as its made-up keys (`choices`) and the expectations after them,
    /// replaying it.
    private func render(_ input: Input, _ choices: [Choice], on replayer: inout Replayer, to text: inout [UInt8]) {
        if let columns = input.columns {
            text += Array("@columns \(columns)\n".utf8)
            replayer.perform(.init(line: 0, kind: .columns(columns)), transcript: { _ in })
            return
        }
        let keys = choices.map(\.key)
        // Each read's line (`@swipe` and its tracks, `@chip` or `@tap` and the answers).
        let readTexts = choices.compactMap(\.line)
        // (Made-up cards: nothing to wipe.)
        let events = choices.compactMap(\.outcome.event)
        var readTextsLeft = readTexts.makeIterator()
        if input.pasted {
            // (A paste holds characters, and at most a swipe at its end.)
            var line = "@paste "
            for key in keys {
                if case .character(let character) = key { line.append(character) }
                if case .swipe = key, let swipe = readTextsLeft.next() { line += swipe.dropFirst("@swipe ".count) }
            }
            text += Array((line + "\n").utf8)
            replayer.perform(.init(line: 0, kind: .paste(keys)), transcript: { _ in })
        } else {
            for key in keys {
                text += Array((Self.line(for: key, read: { readTextsLeft.next() ?? "" }) + "\n").utf8)
            }
            replayer.perform(.init(line: 0, kind: .keys(keys)), transcript: { _ in })
        }
        expect(after: events, on: &replayer, to: &text)
    }

    /// The `@expect` lines for the state `replayer` is in, checked on it.
    private func expect(after events: [Outcome.Event], on replayer: inout Replayer, to text: inout [UInt8]) {
        let engine = replayer.engine
        let view = engine.view
        var expectations: [(String, SessionScript.Expectation)] = [
            ("field \(view.field.rawValue)", .field(view.field)),
            ("text \(Self.quoted(view.text))", .text(view.text)),
            ("network \(engine.network?.id ?? "none")", .network(engine.network?.id)),
            ("logo \(view.logo)", .logo(view.logo)),
            ("refused \(replayer.refusedSinceExpectation)", .refused(replayer.refusedSinceExpectation)),
        ]
        for line in replayer.shownSinceExpectation {
            expectations.append(("message \(Self.quoted(line))", .message(line)))
        }
        if let event = events.last {
            switch event {
            case .accepted(let card):
                expectations.append(
                    (
                        "accepted \(card.network.id) \(card.lastFour)",
                        .accepted(network: card.network.id, lastFour: card.lastFour)
                    ))
                let chip = card.entry == .swipe ? card.chip : nil
                expectations.append(
                    (
                        "entry \(card.entry.rawValue)" + (chip.map { $0 ? " chip" : " no-chip" } ?? ""),
                        .entry(card.entry, chip: chip)
                    ))
                expectations.append(("cards \(engine.tray.count)", .cards(engine.tray.count)))
            case .submitFailed(let fields):
                expectations.append(
                    ("failed \(fields.map(\.rawValue).joined(separator: ","))", .failed(Set(fields))))
            case .quit, .reloadRules:
                break
            }
        }
        for (line, expectation) in expectations {
            text += Array("@expect \(line)\n".utf8)
            replayer.perform(.init(line: 0, kind: .expect(expectation)), transcript: { _ in })
        }
    }

    // MARK: - Made-up keys

    /// The keys to try in place of `key`, in a random order; empty when `key` is written as it is.
    mutating func candidates(for key: Key, on engine: EntryEngine, inNumberCommand: Bool) -> [Key] {
        guard case .character(let character) = key, let scalar = character.unicodeScalars.first else { return [] }
        let isDigit = character.isASCII && character.isNumber
        if engine.command != nil {
            return inNumberCommand && isDigit ? others(scalar, in: "0123456789") : []
        }
        switch engine.field {
        case .number:
            return isDigit && engine.numberDigits.count >= 6 ? others(scalar, in: "0123456789") : []
        case .expiry, .cvv:
            return isDigit ? others(scalar, in: "0123456789") : []
        case .name, .postalCode:
            if isDigit { return others(scalar, in: "0123456789") }
            guard character.isLetter else { return [] }
            return others(
                scalar, in: character.isLowercase ? "abcdefghijklmnopqrstuvwxyz" : "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        }
    }

    private mutating func others(_ scalar: Unicode.Scalar, in alphabet: String) -> [Key] {
        alphabet.unicodeScalars.filter { $0 != scalar }.shuffled(using: &random).map { .character(Character($0)) }
    }

    // MARK: - Script text

    /// The script line that types `key` (`read` gives a swipe's tracks, a chip's answers).
    static func line(for key: Key, read: () -> String) -> String {
        switch key {
        case .character(let character):
            switch character {
            case "<": return "<lt>"
            case " ": return "<Space>"
            case "\t": return "<Tab>"
            case "#": return "<Hash>"
            case "@": return "<At>"
            case "%": return "<Percent>"
            case ";": return "<Semicolon>"
            default:
                // A character of several scalars is one key only in a paste.
                return character.unicodeScalars.count == 1 ? String(character) : "@paste \(character)"
            }
        case .backspace: return "<BS>"
        case .enter: return "<Enter>"
        case .clearLine: return "<C-u>"
        case .cancel: return "<C-c>"
        case .endOfInput: return "<C-d>"
        case .historyPrevious: return "<Up>"
        case .historyNext: return "<Down>"
        case .nextNetwork: return "<C-n>"
        case .other(let name): return "@key \(name)"
        case .swipe, .chip: return read()
        }
    }

    /// `text` in double quotes, with `\"` and `\\`.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}

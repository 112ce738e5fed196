import CEditLine
@_exported import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// Asks a person at the terminal for payment cards: cardline's prompt, for any Swift program.
///
/// Every keystroke is checked against the card-network rules (the bundled ones and the user's
/// rule folders, loaded as `cardline` loads them); the number regroups as it is typed, the
/// expiry is auto-slashed, the security code is echoed as `•` (`*` in a locale without UTF-8). The prompt is drawn on the
/// controlling terminal (`/dev/tty`) when standard input or output is not one, so the program's
/// own standard output stays free. The accepted card comes back whole, and only to the caller.
///
/// ```swift
/// import CardPrompt
///
/// let prompt = try CardPrompt(.init(acceptedNetworks: ["visa", "mastercard"], title: "Card for order 1042"))
/// if var card = try prompt.askForCard() {
///     charge(number: card.number, expiry: card.expiry, code: card.securityCode)
///     card.wipe()
/// }
/// ```
///
/// One prompt runs at a time in a process. Creating a prompt protects the whole process as `ProcessProtection.apply()` describes
/// (no core dumps, memory locked where allowed) unless `Options.protectsProcess` is false.
public final class CardPrompt {
    /// How the prompt behaves: the same choices as `cardline`'s options.
    public struct Options {
        /// Extra rule folders (`--rules`), read after the bundled folder, the user's folder and
        /// `CARDLINE_RULES`; a later file with the same id overrides an earlier one.
        public var ruleFolders: [String]
        /// Whether the bundled networks are loaded (`--no-default-rules` sets this false).
        public var bundledRules: Bool
        /// Whether retired networks (`"status": "retired"`) are matched too (`--retired`).
        public var retiredNetworks: Bool
        /// The networks taken, by id or badge name (`["visa", "mastercard"]`); nil for all.
        public var acceptedNetworks: [String]?
        /// The month that counts as today for expiry checks; nil for the system clock's.
        public var today: YearMonth?
        /// Colour on the terminal; nil decides as `Style.terminalWantsColour()` does (`NO_COLOR`,
        /// `TERM`, `COLORTERM`, the terminal's terminfo entry).
        public var colour: Bool?
        /// A line shown above the first prompt, like "Card for order 1042, €52.00".
        public var title: String?
        /// Earlier `:` command lines, oldest first, for Up recall.
        public var commandHistory: [String]
        /// Called with each `:` command line that runs (to keep a history file, say).
        public var onCommand: ((String) -> Void)?
        /// Whether creating the prompt applies `ProcessProtection` to the process.
        public var protectsProcess: Bool
        /// How long the prompt may wait for a key (or piped input, `readLines(from:…)`) before
        /// it ends with `.timedOut`, the card being entered wiped from the screen and from
        /// memory; nil (the default) waits for ever. It is idle time: every key starts it again.
        public var timeout: Duration?
        /// Whether Ctrl-C and a lone Esc end the prompt with `.cancelled` (the card being entered
        /// wiped), as in one-shot use (`cardline --once`, `--print`); false (the default): Ctrl-C
        /// cancels the card and the prompt asks for the next, Esc does nothing.
        public var endsOnCancel: Bool
        /// How `askForCardAsJSON()`, `askForCardsAsJSON(receipts:)` and `readLinesAsJSON` seal
        /// each card: `CardSeal.CardSealer` encrypts it for a payment processor's public key
        /// (`cardline --encrypt-to`). Read and check its key before making the prompt, so a bad
        /// key is refused before anything is asked. nil (the default): they hand over the
        /// clear JSON `--print` writes. `askForCard()` and `askForCards` always give the clear
        /// card.
        public var sealing: (any CardSealing)?
        /// Whether the cardholder's name is asked for after the security code (`--name`),
        /// delivered as `PaymentCard.holderName` (`holder_name`).
        public var asksName = false
        /// The format of the postal code asked for last (`--postal-code`), delivered as
        /// `PaymentCard.postalCode` (`postal_code`): a country's, like
        /// `PostalCodeFormats.bundled.format(for: "GB")`; nil (the default): none.
        public var postalCode: PostalCodeFormat?
        /// A network id or badge name (`amex`): only the security code of a card of that network
        /// already on file is asked for (`--cvv-only --network`), delivered as
        /// `{"network":…,"cvv":…}` (`PaymentCard.isSecurityCodeOnly`); nil: the whole card.
        public var securityCodeOnlyNetwork: String?
        /// The language of the prompt's words (`fr`, `de_DE.UTF-8`); nil: from `LC_ALL`,
        /// `LC_MESSAGES`, `LANG`, `LANGUAGE` (`MessageSources.language`). No catalog for it: English.
        public var locale: String?
        /// Extra folders holding message catalogs (`<language>.json`), read after the bundled
        /// catalogs, the user's folder and `CARDLINE_MESSAGES` (`--messages DIR`).
        public var messageFolders: [String] = []
        /// The caller's own texts by message id (`MessageID`: `"label.number"`, `"help.number"`,
        /// …), over the catalog's, as pinentry's caller passes its own; the title is `title`.
        public var messages: [String: String] = [:]
        /// Accessible mode (`cardline --accessible`): each field asked on a line of its own and
        /// answered with Enter, nothing redrawn, no colour, the security code not echoed, for a
        /// screen reader or braille display. The same checks, delivery and endings. nil (the
        /// default) decides by the environment: on when `ACCESSIBLE` is set to anything but
        /// empty or `0`.
        public var accessible: Bool?
        /// The chip reader the prompt watches (`cardline --reader`): a card inserted or tapped
        /// at the empty number field is read (`ReaderWatcher`), and the hint says so once a
        /// reader is found. nil (the default for a library): no reader is looked for, no thread
        /// started. `cardline` watches every reader unless told otherwise.
        public var chipReader: ChipReaderChoice?

        /// A recording of the session at the terminal as a `.session` script (`cardline --record
        /// FILE`): the keys as they came and what the prompt did after each, with no card data
        /// (`SessionRecorder`), for `cardline replay`. The prompt says a recording is on. nil
        /// (the default): none. The prompt is recorded in accessible mode too (the keys it hands
        /// the engine); piped input (`readLines`) is not.
        public var recording: Recording?

        /// Where a recording goes.
        public struct Recording {
            /// What the prompt calls the recording when it says one is on: the file's name.
            public var name: String
            /// The file, open for writing: a regular file, written from its start once the prompt
            /// opens (what it held before is replaced then), the card in progress rewritten after
            /// each key in place of the one before.
            public var descriptor: Int32

            /// A recording called `name`, written into `descriptor`.
            public init(name: String, descriptor: Int32) {
                self.name = name
                self.descriptor = descriptor
            }
        }

        /// Which PC/SC reader the prompt watches.
        public enum ChipReaderChoice: Equatable, Sendable {
            /// The first that gets a card (any reader attached).
            case any
            /// The reader of this name only.
            case named(String)
        }

        /// Options; every one has the default `cardline` uses.
        public init(
            ruleFolders: [String] = [], bundledRules: Bool = true, acceptedNetworks: [String]? = nil,
            today: YearMonth? = nil, colour: Bool? = nil, title: String? = nil,
            commandHistory: [String] = [], onCommand: ((String) -> Void)? = nil,
            protectsProcess: Bool = true, retiredNetworks: Bool = false,
            timeout: Duration? = nil, endsOnCancel: Bool = false, sealing: (any CardSealing)? = nil,
            asksName: Bool = false, postalCode: PostalCodeFormat? = nil, securityCodeOnlyNetwork: String? = nil,
            accessible: Bool? = nil, chipReader: ChipReaderChoice? = nil, recording: Recording? = nil
        ) {
            self.ruleFolders = ruleFolders
            self.bundledRules = bundledRules
            self.retiredNetworks = retiredNetworks
            self.acceptedNetworks = acceptedNetworks
            self.today = today
            self.colour = colour
            self.title = title
            self.commandHistory = commandHistory
            self.onCommand = onCommand
            self.protectsProcess = protectsProcess
            self.timeout = timeout
            self.endsOnCancel = endsOnCancel
            self.sealing = sealing
            self.asksName = asksName
            self.postalCode = postalCode
            self.securityCodeOnlyNetwork = securityCodeOnlyNetwork
            self.accessible = accessible
            self.chipReader = chipReader
            self.recording = recording
        }
    }

    /// Why a prompt cannot be made or shown.
    public enum Failure: Error, CustomStringConvertible {
        /// A rule folder or file, or a message catalog, cannot be read.
        case unreadableRules(String)
        /// Rule files are wrong, or the message catalog of the language asked for is
        /// (`MessageSources.load`); every problem with its file, line and column.
        case brokenRules(RuleErrors)
        /// `acceptedNetworks` names a network the rules do not define.
        case unknownNetwork(String)
        /// There is no terminal to ask on (no `/dev/tty`).
        case noTerminal(String)

        /// The problem in words; broken rules as one `file:line:column: error: …` line each.
        public var description: String {
            switch self {
            case .unreadableRules(let reason): return reason
            case .brokenRules(let errors): return errors.description
            case .unknownNetwork(let message): return "accepted networks: \(message)"
            case .noTerminal(let reason): return reason
            }
        }
    }

    /// What the receiver of a card says back.
    public enum Receipt: Equatable, Sendable {
        /// Taken; ask for the next card.
        case more
        /// Taken; end the prompt after the success line.
        case done
        /// The card could not be taken (the reason in words, like "Broken pipe"): the person is
        /// told it was not delivered instead of the success line, and the prompt ends.
        case failed(String)
    }

    /// How a prompt for several cards ended.
    public enum Ending: Equatable, Sendable {
        /// The person left (`:quit`, or Ctrl-D between cards).
        case gaveUp
        /// The terminal closed or could not be read any more.
        case endOfInput
        /// The receiver of the cards asked to stop.
        case finished
        /// Ctrl-C or a lone Esc, with `Options.endsOnCancel`: the card being entered was wiped.
        case cancelled
        /// No key came for `Options.timeout`: the card being entered was wiped.
        case timedOut
    }

    /// The rules in force: every network the prompt detects.
    public let rules: RuleSet
    /// The networks taken, when not all are.
    public let acceptedNetworks: AcceptedNetworks?
    /// The words the prompt speaks: the catalog of `Options.locale` (or the environment's
    /// language), the caller's `Options.messages` over it.
    public let messages: MessageCatalog
    /// What `ProcessProtection` managed, when it was applied.
    public let protection: ProcessProtection.Report?
    private let options: Options
    /// The fields asked for (`Options.asksName`, `postalCode`, `securityCodeOnlyNetwork`).
    public let form: EntryForm
    private let folders: [String]
    /// The prompt at the terminal while `askForCards` runs.
    private weak var editor: InteractiveEditor?
    /// The accessible prompt while `askForCards` runs one (`Options.accessible`).
    private weak var accessiblePrompt: AccessiblePrompt?

    /// Loads the rules and checks the options; throws `.unreadableRules`, `.brokenRules` or
    /// `.unknownNetwork`.
    public init(_ options: Options = Options()) throws(Failure) {
        protection = options.protectsProcess ? ProcessProtection.apply() : nil
        self.options = options
        folders = RuleSources.folders(bundled: options.bundledRules, extra: options.ruleFolders)
        do throws(RuleSources.LoadError) {
            rules = try RuleSources.load(folders: folders, includeRetired: options.retiredNetworks)
        } catch {
            switch error {
            case .unreadable(let reason): throw .unreadableRules(reason)
            case .rules(let errors): throw .brokenRules(errors)
            }
        }
        if let list = options.acceptedNetworks {
            do throws(AcceptedNetworks.UnknownNetwork) {
                acceptedNetworks = try AcceptedNetworks.parse(list.joined(separator: ","), in: rules)
            } catch {
                throw .unknownNetwork(error.message)
            }
        } else {
            acceptedNetworks = nil
        }
        var form = EntryForm(asksName: options.asksName, postalCode: options.postalCode)
        if let name = options.securityCodeOnlyNetwork {
            do throws(AcceptedNetworks.UnknownNetwork) {
                form.securityCodeOnly = try AcceptedNetworks.network(named: name, in: rules)
            } catch {
                throw .unknownNetwork(error.message)
            }
        }
        self.form = form
        do throws(RuleSources.LoadError) {
            messages = try MessageSources.load(
                language: MessageSources.language(locale: options.locale),
                folders: MessageSources.folders(extra: options.messageFolders), overrides: options.messages)
        } catch {
            // (A catalog, like a rule file, is a file read with located errors, exit 65; one
            // that cannot be read, exit 66.)
            switch error {
            case .unreadable(let reason): throw .unreadableRules(reason)
            case .rules(let errors): throw .brokenRules(errors)
            }
        }
    }

    /// Asks for one card. Returns it once accepted, or nil when the person gave up, cancelled
    /// (`Options.endsOnCancel`), the prompt timed out (`Options.timeout`) or the terminal closed
    /// (`askForCards(receipts:)` says which); throws `.noTerminal` when there is no terminal to ask on.
    public func askForCard() throws(Failure) -> PaymentCard? {
        var delivered: PaymentCard?
        _ = try askForCards { card in
            delivered = card
            return false
        }
        return delivered
    }

    /// Asks for cards until `receive` returns false, the person quits, or the terminal closes.
    /// `receive` gets each card the moment it is accepted; the prompt's own copy is wiped when
    /// `receive` returns.
    public func askForCards(_ receive: @escaping (PaymentCard) -> Bool) throws(Failure) -> Ending {
        try askForCards(receipts: { receive($0) ? .more : .done })
    }

    /// Asks for cards as `askForCards(_:)` does; `receive` says with a `Receipt` whether the card
    /// was taken, so that a failure to pass it on is shown to the person.
    public func askForCards(receipts receive: @escaping (PaymentCard) -> Receipt) throws(Failure) -> Ending {
        let device: TerminalDevice
        do {
            device = try TerminalDevice.open()
        } catch {
            throw .noTerminal(error.reason)
        }
        var style = Style(colour: options.colour ?? Style.terminalWantsColour(), ascii: Style.localeWantsASCII())
        style.messages = messages
        let engine = makeEngine()
        let loader = RuleSources.loader(folders: folders, includeRetired: options.retiredNetworks)
        let recording = options.recording.map {
            PromptRecording(
                $0, engine: engine, ruleFolders: Array(folders.dropFirst(options.bundledRules ? 1 : 0)),
                bundledRules: options.bundledRules, retiredNetworks: options.retiredNetworks, loader: loader)
        }
        if options.accessible ?? AccessiblePrompt.environmentAsks() {
            let prompt = AccessiblePrompt(
                engine: engine, style: style, device: device, title: options.title,
                onCommand: options.onCommand ?? { _ in }, onAccepted: receive, reloadingWith: loader,
                timeout: options.timeout, endsOnCancel: options.endsOnCancel, recording: recording)
            accessiblePrompt = prompt
            defer { accessiblePrompt = nil }
            return try ending(prompt.run())
        }
        let editor = InteractiveEditor(
            engine: engine, style: style,
            device: device, title: options.title, onCommand: options.onCommand ?? { _ in },
            onAccepted: receive, reloadingWith: loader,
            timeout: options.timeout, endsOnCancel: options.endsOnCancel, chipReader: options.chipReader,
            recording: recording)
        self.editor = editor
        defer { self.editor = nil }
        return try ending(editor.run())
    }

    /// How a prompt for several cards ended, from how its front end did.
    private func ending(_ ending: InteractiveEditor.Ending) throws(Failure) -> Ending {
        switch ending {
        case .quit: return .gaveUp
        case .endOfInput: return .endOfInput
        case .finished: return .finished
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .noEditor: throw .noTerminal("the terminal could not be set up for editing")
        }
    }

    /// Asks for one card and returns it as JSON (one object, no line break): sealed by
    /// `Options.sealing` when that is set, else the clear JSON `--print` writes
    /// (`PaymentCard.appendJSON`); nil as for `askForCard()`. The prompt's own copies are wiped.
    public func askForCardAsJSON() throws(Failure) -> [UInt8]? {
        var delivered: [UInt8]?
        _ = try askForCardsAsJSON { json in
            delivered = Array(json)
            return .done
        }
        return delivered
    }

    /// Asks for cards as `askForCards(receipts:)` does, handing `receive` each card as JSON
    /// (one object, no line break): sealed by `Options.sealing` when that is set
    /// (`cardline --encrypt-to`), else the clear JSON `--print` writes. The bytes, and the
    /// prompt's clear copy of the card, are wiped once `receive` returns; a card that cannot be
    /// sealed is not delivered, and the person is told so.
    public func askForCardsAsJSON(receipts receive: @escaping ([UInt8]) -> Receipt) throws(Failure) -> Ending {
        try askForCards(receipts: asJSON(receive))
    }

    /// Reads the lines of `fd` as `readLines(from:style:write:receive:stop:)` does, handing
    /// `receive` each card as `askForCardsAsJSON(receipts:)` does.
    public func readLinesAsJSON(
        from fd: Int32 = 0, style: Style, write: @escaping (String) -> Void,
        receive: @escaping ([UInt8]) -> Receipt,
        stop: @escaping () -> Bool = { false }
    ) -> PlainLineReader.Result {
        readLines(from: fd, style: style, write: write, receive: asJSON(receive), stop: stop)
    }

    /// `receive` behind the card's JSON: sealed by `Options.sealing`, or clear.
    private func asJSON(_ receive: @escaping ([UInt8]) -> Receipt) -> (PaymentCard) -> Receipt {
        let sealer = options.sealing
        return { card in
            var json: [UInt8] = []
            defer { json.overwriteAndEmpty() }
            if let sealer {
                do {
                    try sealer.appendSealed(card, to: &json)
                } catch {
                    return .failed("the card could not be encrypted")
                }
            } else {
                // One allocation, sized for this card: growing would leave a copy in freed memory.
                json.reserveCapacity(card.jsonLength)
                card.appendJSON(to: &json)
            }
            return receive(json)
        }
    }

    /// Shows a warning line, like "history is off": above the prompt while one runs at the
    /// terminal (after the output of the key being handled, the prompt drawn again under it),
    /// else on standard error. For callbacks such as `Options.onCommand`, which run while the
    /// prompt holds the terminal and must not write over it.
    public func warn(_ text: String) {
        if let editor {
            editor.warn(text)
        } else if let accessiblePrompt {
            accessiblePrompt.warn(text)
        } else {
            _ = Paths.writeAll(Array((text + "\n").utf8).span, to: 2)
        }
    }

    /// Types each line into the engine, as `cardline` does when standard input is not a
    /// terminal: messages (never a full number or code) go to `write`, each accepted card to
    /// `receive`, which returns false to stop reading.
    public func readLines(
        _ lines: some Sequence<String>, style: Style, write: @escaping (String) -> Void,
        receive: @escaping (PaymentCard) -> Receipt = { _ in .more }
    ) -> PlainLineReader.Result {
        var reader = PlainLineReader(
            engine: makeEngine(), style: style, write: write, title: options.title,
            onCommand: options.onCommand ?? { _ in }, onAccepted: receive,
            reloadingWith: RuleSources.loader(folders: folders, includeRetired: options.retiredNetworks))
        return reader.run(lines: lines)
    }

    /// Reads the lines of `fd` (standard input unless said) as `readLines(_:style:write:receive:)`
    /// does, ending with `.timedOut` when no input comes for `Options.timeout`; `stop` ends the
    /// reading when it returns true (asked before each line).
    public func readLines(
        from fd: Int32 = 0, style: Style, write: @escaping (String) -> Void,
        receive: @escaping (PaymentCard) -> Receipt = { _ in .more },
        stop: @escaping () -> Bool = { false }
    ) -> PlainLineReader.Result {
        var reader = PlainLineReader(
            engine: makeEngine(), style: style, write: write, title: options.title,
            onCommand: options.onCommand ?? { _ in }, onAccepted: receive,
            reloadingWith: RuleSources.loader(folders: folders, includeRetired: options.retiredNetworks))
        return reader.run(input: DescriptorLines(fd: fd, idleTimeout: options.timeout, stop: stop))
    }

    private func makeEngine() -> EntryEngine {
        var engine = EntryEngine(
            rules: rules, expiryPolicy: ExpiryPolicy(today: options.today ?? YearMonth.current()),
            commandHistory: options.commandHistory, acceptedNetworks: acceptedNetworks, form: form)
        engine.messages = messages
        return engine
    }
}

extension YearMonth {
    /// This month in the local time zone.
    public static func current() -> YearMonth {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return YearMonth(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1)
    }
}

extension Style {
    /// Colour on a terminal that has it: never with `NO_COLOR` set (to anything non-empty) or
    /// on a terminal without escape sequences (`terminalUnderstandsEscapes`); else when
    /// `COLORTERM` is set, or when the terminal's terminfo entry gives it 8 colours or more
    /// (xterm, xterm-256color, screen, tmux, linux; not vt100).
    public static func terminalWantsColour() -> Bool {
        if Environment.value("NO_COLOR") != nil { return false }
        guard terminalUnderstandsEscapes(), let term = Environment.value("TERM") else { return false }
        if Environment.value("COLORTERM") != nil { return true }
        return cl_terminal_colours(term) >= 8
    }

    /// False for a terminal that takes no escape sequence at all, only carriage return and
    /// newline: `TERM=dumb`, or no `TERM` (libedit draws for a dumb terminal then too).
    public static func terminalUnderstandsEscapes() -> Bool {
        guard let term = Environment.value("TERM") else { return false }
        return term != "dumb"
    }

    /// True when the locale's character set is not UTF-8 (`LANG=C`, `LC_ALL=C`, no locale at
    /// all, a Latin-1 locale): a terminal there shows `•`, `✓` or `—` as nothing or as
    /// garbage, so the prompt draws them in ASCII (`Style.ascii`). Read from `LC_ALL`,
    /// `LC_CTYPE` and `LANG` as `setlocale` reads them; the process's own locale is left as it
    /// was.
    public static func localeWantsASCII() -> Bool {
        let previous = setlocale(LC_CTYPE, nil).map { String(cString: $0) }
        defer { if let previous { setlocale(LC_CTYPE, previous) } }
        guard setCharacterLocale(), let codeset = nl_langinfo(nl_item(CODESET)) else { return true }
        let name = String(cString: codeset).uppercased()
        return name != "UTF-8" && name != "UTF8"
    }

    /// Sets the process's `LC_CTYPE` from the environment; where the locale named is not
    /// installed, to `C.UTF-8` (unless the name gives a character set other than UTF-8). False
    /// when neither could be set (the `C` locale stays: ASCII). The prompt's libedit and
    /// `localeWantsASCII` both set it so, so the two agree (libedit given UTF-8 text in the
    /// `C` locale crashes).
    static func setCharacterLocale() -> Bool {
        if setlocale(LC_CTYPE, "") != nil { return true }
        return !uninstalledLocaleWantsASCII() && setlocale(LC_CTYPE, "C.UTF-8") != nil
    }

    /// For a locale that is named but not installed (`LANG=fr_FR.UTF-8` on a machine with only
    /// `C.UTF-8`): the character set of `C.UTF-8`, unless the name gives another one
    /// (`de_DE.ISO-8859-1`: ASCII then, as for any character set that is not UTF-8).
    static func uninstalledLocaleWantsASCII() -> Bool {
        let variables: [String] = ["LC_ALL", "LC_CTYPE", "LANG"]
        let name = variables.lazy.compactMap(Environment.value).first ?? ""
        guard let dot = name.firstIndex(of: ".") else { return false }
        let codeset = name[name.index(after: dot)...].prefix { $0 != "@" }.lowercased().filter { $0 != "-" }
        return codeset != "utf8"
    }
}

import ArgumentParser
import CProcessWide
import CardPrompt
import CardReader
import CardSeal

#if canImport(Glibc)
    import Glibc
#endif

/// The default command: the card-entry prompt (or the plain-line path when stdin is not a
/// terminal), optionally handing each accepted card to the caller as a line of JSON.
struct Enter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enter",  // named, not derived from the type: deriving costs start-up time
        abstract: "Open the card-entry prompt (the default command).",
        usage: "cardline [enter] [<options>]",
        discussion: """
            With no subcommand, opens the card-entry prompt. With --print (or --print-fd N) each accepted card is written whole, as one line of JSON, for the calling script (with --encrypt-to FILE, encrypted for that public key instead: the script gets only ciphertext); the prompt is then drawn on the terminal (/dev/tty). When stdin is not a terminal, each input line is typed into the same engine; a line with a refused key, or whose Enter does not take its field, abandons the card being entered (line N: FIELD: reason (card abandoned)), and the next line starts a new card. A co-badged card (Visa and Dankort, say: a rule file's coBadged range) is delivered as its international scheme, its other networks in the JSON's alsoNetworks; Ctrl-N at the prompt, or :network ID, delivers it as another of them.

            Options may come before the subcommand or after it: cardline --rules DIR rules list is cardline rules list --rules DIR.

            Exit status: 0 success (with --print, --print-fd or --once: a card was delivered; piped input: every card started was delivered); 1 with --print, --print-fd or --once the person gave up (:quit, Ctrl-D) or input ended with no card delivered, or (piped input) a card was abandoned or input ended mid-card, even with other cards delivered; 64 bad usage (also an --encrypt-to file that holds no usable key); 65 a rule file is wrong; 66 a rule folder, script, golden, input or --encrypt-to key file cannot be read; 74 there is no terminal to ask on, or (every command) output could not be written: a card not delivered, standard output full or closed (a closed pipe, as with | head -1, ends it without a message), a golden not rewritten by replay --update; 124 --timeout ran out; 130 Ctrl-C or Esc ended a prompt run with --print, --print-fd or --once (in the plain prompt Ctrl-C only cancels the card); 128+N killed by signal N. None of 1, 124 and 130 writes anything to standard output itself; cards delivered before stay delivered.
            """)

    @OptionGroup var options: EntryOptions

    @Flag(help: "Do not read or write the command history file.")
    var noHistory = false

    @Flag(
        name: .customLong("print"),
        help:
            "Write each accepted card, whole, to standard output as one line of JSON (refused when stdout is a terminal)."
    )
    var printCards = false

    @Option(
        name: .customLong("print-fd"),
        help: ArgumentHelp(
            "Write the cards' JSON lines to file descriptor N instead of standard output.", valueName: "N"))
    var printFD: Int32?

    @Option(
        help: ArgumentHelp(
            "Encrypt each card for this public key before --print or --print-fd writes it: a PEM public key, a JWK or Adyen's key text (10001|<hex modulus>); RSA of 2048 bits or more, or EC P-256 (not for adyen). Read and checked before the prompt opens (66 unreadable, 64 unusable).",
            valueName: "FILE"))
    var encryptTo: String?

    @Option(
        help: ArgumentHelp(
            "With --encrypt-to: jwe (one JWE of the card with clear network, family, last4 and expiry) or adyen (Adyen's encryptedCardNumber, encryptedExpiryMonth, encryptedExpiryYear, encryptedSecurityCode).",
            valueName: "jwe|adyen"))
    var encryptFormat: CardSealer.Format?

    @Flag(help: "End after the first accepted card.")
    var once = false

    @Option(
        help: ArgumentHelp(
            "A line shown above the first prompt, like \"Card for order 1042\" (control characters are shown escaped).",
            valueName: "TEXT"))
    var title: String?

    @Option(
        help: ArgumentHelp(
            "End the prompt when no key (or piped input) comes for SECONDS (0.001 to 86400; decimals allowed): the card being entered is wiped, exit 124. Also CARDLINE_TIMEOUT.",
            valueName: "SECONDS"))
    var timeout: String?

    @Flag(
        name: .customLong("name"),
        help: "Also ask for the cardholder's name, after the security code (delivered as holder_name).")
    var asksName = false

    @Option(
        name: .customLong("postal-code"),
        help: ArgumentHelp(
            "Also ask, last, for the billing address's postal code in COUNTRY's format (US, CA, GB, DE, FR, NL, AU, JP, BR, IN), delivered as postal_code.",
            valueName: "COUNTRY"), completion: Completions.postalCountry)
    var postalCode: String?

    @Flag(
        help:
            "Ask only for the security code of a card on file, of the network --network names; delivered as {\"network\": ..., \"cvv\": ...}."
    )
    var cvvOnly = false

    @Option(
        help: ArgumentHelp(
            "With --cvv-only: the card's network (an id or badge name, as --networks takes them: visa, amex...).",
            valueName: "ID"))
    var network: String?

    @Option(
        help: ArgumentHelp(
            "The language of the prompt's words (fr, de, es, en; or a locale name like fr_FR.UTF-8). Default: from LC_ALL, LC_MESSAGES, LANG, LANGUAGE; English when no catalog has it.",
            valueName: "LANG"))
    var locale: String?

    @Option(
        name: .customLong("messages"),
        help: ArgumentHelp(
            "Also read message catalogs (LANG.json) from DIR (repeatable). Also CARDLINE_MESSAGES.", valueName: "DIR"))
    var messageFolders: [String] = []

    @Flag(
        help:
            "Accessible mode, for a screen reader or braille display: each field asked on a line of its own and answered with Enter, nothing redrawn, no colour; the number is echoed as typed, the security code is not. Also ACCESSIBLE (set, and not 0)."
    )
    var accessible = false

    @Option(
        help: ArgumentHelp(
            "Read chip and contactless cards from this PC/SC reader only (`cardline readers` lists them); a reader not attached is a usage error. Default: every reader. Also CARDLINE_READER.",
            valueName: "NAME"))
    var reader: String?

    @Flag(help: "Do not look for a chip reader.")
    var noReader = false

    @Option(
        help: ArgumentHelp(
            "Record the session at the prompt as a .session script for cardline replay (see cardline-session(5)): the keys as they came, each followed by what the prompt did. No card data is written: the card's digits after its first six, its expiry, code and name are made up and behave the same at every key. Written with mode 0600; the prompt says a recording is on. Not with piped input.",
            valueName: "FILE"), completion: .file(extensions: ["session"]))
    var record: String?

    func validate() throws {
        if let problem = settings.deliveryProblem ?? settings.formProblem { throw ValidationError(problem) }
        if let timeout, EnterSettings.timeout(from: timeout) == nil {
            throw ValidationError(EnterSettings.timeoutProblem(timeout, source: "--timeout"))
        }
    }

    /// The parsed arguments as plain values.
    var settings: EnterSettings {
        EnterSettings(
            options: options, noHistory: noHistory, printCards: printCards, printFD: printFD,
            once: once, title: title, timeout: timeout, encryptTo: encryptTo, encryptFormat: encryptFormat,
            asksName: asksName, postalCode: postalCode, cvvOnly: cvvOnly, network: network,
            accessible: accessible, locale: locale, messageFolders: messageFolders, reader: reader,
            noReader: noReader, record: record)
    }

    func run() throws { try settings.run() }
}

/// What `enter` was asked to do, from argument-parser's `Enter`.
struct EnterSettings {
    /// The options `enter` shares with `replay` and `check` (rules, `--today`, `--no-color`,
    /// `--networks`), with their one reading of `CARDLINE_NETWORKS` and `--today`.
    var options: EntryOptions
    var noHistory = false
    var printCards = false
    var printFD: Int32?
    var once = false
    var title: String?
    /// `--timeout`'s text, checked by `timeout(from:)`.
    var timeout: String?
    /// `--encrypt-to`: the recipient's public key file.
    var encryptTo: String?
    /// `--encrypt-format`.
    var encryptFormat: CardSealer.Format?
    /// `--name`, `--postal-code`, `--cvv-only`, `--network`: the fields asked for.
    var asksName = false
    var postalCode: String?
    var cvvOnly = false
    var network: String?
    /// `--accessible` (without it, `ACCESSIBLE` decides: `CardPrompt.Options.accessible` nil).
    var accessible = false

    /// What is wrong with `--postal-code`, `--cvv-only` and `--network` (a network id is
    /// checked once the rules are read).
    var formProblem: String? {
        if let postalCode, PostalCodeFormats.bundled.format(for: postalCode) == nil {
            return "--postal-code: " + PostalCodeFormats.bundled.unknownCountryMessage(postalCode)
        }
        if cvvOnly && network == nil {
            return "--cvv-only needs --network ID, the network of the card on file (like visa or amex)"
        }
        if network != nil && !cvvOnly {
            return
                "--network names the card on file's network for --cvv-only; to accept only some networks use --networks"
        }
        if cvvOnly && options.networks != nil {
            return "--networks does not apply to --cvv-only; --network names the card's network"
        }
        return nil
    }

    /// `--locale`: the prompt's language; nil: the environment's.
    var locale: String?
    /// `--messages`: extra message catalog folders.
    var messageFolders: [String] = []
    /// `--reader`, `--no-reader`.
    var reader: String?
    var noReader = false
    /// `--record FILE`.
    var record: String?

    /// What is wrong with `--print` / `--print-fd` (and `--encrypt-to`, which seals what they
    /// write), in argument-parser's words for `Enter`.
    var deliveryProblem: String? {
        if encryptTo != nil && !printCards && printFD == nil {
            return "--encrypt-to encrypts the cards --print or --print-fd writes; give one of them"
        }
        if encryptFormat != nil && encryptTo == nil { return Sealing.formatWithoutKey }
        if printCards && printFD != nil { return "--print and --print-fd both say where cards go; give one" }
        if let printFD, printFD < 0 { return "--print-fd takes a file descriptor number, 0 or more; got \(printFD)" }
        if printFD == 2 {
            return
                "--print-fd 2 would mix cards with cardline's messages on standard error; use another descriptor, like 3"
        }
        return nil
    }

    /// `--timeout` or `CARDLINE_TIMEOUT`'s value: a number of seconds, whole or with a decimal
    /// point (`90`, `2.5`), from a millisecond (0.001; the wait's resolution) to a day (86400);
    /// nil for anything else.
    static func timeout(from text: String) -> Duration? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let seconds = Double(text), seconds >= 0.001, seconds <= 86_400
        else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The usage error for a timeout `timeout(from:)` refuses, from `source`.
    static func timeoutProblem(_ text: String, source: String) -> String {
        "\(source) takes a number of seconds from 0.001 to 86400, like 60 or 2.5; got `\(text)`"
    }
}

extension EnterSettings {

    /// `--networks`, or `CARDLINE_NETWORKS` when set and not empty; with where it came from.
    var acceptedNetworksText: (text: String, source: String)? { options.acceptedNetworksText(environment: true) }

    /// `--timeout`, or `CARDLINE_TIMEOUT` when set and not empty; a usage error (64) for a value
    /// `timeout(from:)` refuses.
    func idleTimeout() throws -> Duration? {
        let text: String
        let source: String
        if let timeout {
            (text, source) = (timeout, "--timeout")
        } else if let value = Environment.value("CARDLINE_TIMEOUT") {
            (text, source) = (value, "CARDLINE_TIMEOUT")
        } else {
            return nil
        }
        guard let duration = Self.timeout(from: text) else {
            Terminal.writeError("cardline: error: \(Self.timeoutProblem(text, source: source))\n")
            throw ExitStatus.usage
        }
        return duration
    }

    /// `options` with `--locale` and `--messages`.
    func localised(_ options: CardPrompt.Options) -> CardPrompt.Options {
        var options = options
        options.locale = locale
        options.messageFolders = messageFolders
        return options
    }

    /// One-shot use (`--once`, `--print`, `--print-fd`): Ctrl-C and a lone Esc end the prompt
    /// (130), and ending with no card delivered is exit 1.
    var oneShot: Bool { once || deliveryFD != nil }

    /// Where cards are written, if anywhere.
    var deliveryFD: Int32? { printCards ? 1 : printFD }

    /// The reader the prompt watches: none with `--no-reader`; else the one `--reader` or
    /// `CARDLINE_READER` names, which must be attached (else a usage error, 64, naming those
    /// that are); else any.
    func chipReader() throws -> CardPrompt.Options.ChipReaderChoice? {
        if noReader { return nil }
        let source = reader != nil ? "--reader" : "CARDLINE_READER"
        guard let name = reader ?? Environment.value("CARDLINE_READER") else { return .any }
        let attached = (try? PCSC.readers().get())?.map(\.name) ?? []
        guard attached.contains(name) else {
            Complaint.write(
                "\(source): no chip reader named '\(name.escapingControlCharacters)' is attached",
                hint: attached.isEmpty
                    ? "no reader is attached (or pcscd is not running); --no-reader turns the reader off"
                    : "attached: \(attached.map { "'\($0.escapingControlCharacters)'" }.joined(separator: ", "))")
            throw ExitStatus.usage
        }
        return .named(name)
    }

    func run() throws {
        let timeout = try idleTimeout()
        let chipReader = try chipReader()
        if let fd = deliveryFD { try checkDeliveryTarget(fd) }
        let sealer = try Sealing.sealer(keyFile: encryptTo, format: encryptFormat)
        let recording = try recordingFile()
        ProcessProtection.apply(lockingMemory: true)
        let history = noHistory ? nil : CommandHistoryFile.standard()
        let prompt: CardPrompt
        do {
            prompt = try CardPrompt(
                localised(
                    CardPrompt.Options(
                        ruleFolders: options.rules.ruleFolders, bundledRules: !options.rules.noDefaultRules,
                        acceptedNetworks: acceptedNetworksText.map { $0.text.split(separator: ",").map(String.init) },
                        today: options.todayMonth,
                        colour: options.noColor ? false : nil, title: title,
                        commandHistory: history?.load() ?? [], onCommand: { history?.append($0) },
                        protectsProcess: false,
                        retiredNetworks: options.rules.retired, timeout: timeout, endsOnCancel: oneShot,
                        sealing: sealer,
                        asksName: asksName, postalCode: postalCode.flatMap(PostalCodeFormats.bundled.format(for:)),
                        securityCodeOnlyNetwork: cvvOnly ? network : nil,
                        accessible: accessible ? true : nil, chipReader: chipReader, recording: recording)))
        } catch {
            switch error {
            case .brokenRules(let errors): Terminal.writeError(errors.description + "\n")
            case .unknownNetwork(let message):
                Complaint.write("\(cvvOnly ? "--network" : acceptedNetworksText?.source ?? "--networks"): \(message)")
            case .unreadableRules(let reason), .noTerminal(let reason):
                Terminal.writeError("cardline: error: \(reason)\n")
            }
            throw error.exitCode
        }
        if !prompt.rules.warnings.isEmpty {
            Terminal.writeError(prompt.rules.warnings.map { $0.description + "\n" }.joined())
        }
        // From here on every block freed is zeroed first (`CProcessWide`, which only this
        // executable links): Swift frees the strings that held the field (views, display texts,
        // a piped line) without clearing them. After the rules, whose many small frees hold no card.
        cl_wipe_freed_memory()

        // SIGPIPE is ignored (`Cardline.main`): a reader that has gone away (closed pipe) is an
        // error to report, not a reason to die. While the interactive prompt runs, its handler
        // takes SIGPIPE instead: a `kill -PIPE` from outside ends it with the field cleared and
        // the terminal put back, as SIGTERM does, while a delivery's write to a closed pipe
        // (a SIGPIPE the process raised itself) only fails with EPIPE, reported as before.
        var delivery = Delivery(fd: deliveryFD)
        // Each card as the JSON line the caller receives: clear, or sealed with --encrypt-to
        // (`Options.sealing`).
        let receive: ([UInt8]) -> CardPrompt.Receipt = { json in
            guard delivery.deliver(json) else { return .failed(delivery.failure ?? "write failed") }
            return once ? .done : .more
        }
        if isatty(0) == 1 {
            // A history file that cannot be written is said above the prompt, not over it.
            history?.warn = { [weak prompt] text in
                if let prompt { prompt.warn(text) } else { Terminal.writeError(text + "\n") }
            }
            let ending: CardPrompt.Ending
            signal(SIGPIPE, SIG_DFL)
            do {
                // (Ignored again as soon as the prompt has let go: a write after it, to a
                // closed stderr say, is an error to report, not a death by SIGPIPE.)
                defer { Terminal.reportBrokenPipes() }
                ending = try prompt.askForCardsAsJSON(receipts: receive)
            } catch {
                Terminal.writeError("cardline: error: \(error.description)\n")
                throw ExitStatus.ioError
            }
            try delivery.finish()
            switch ending {
            case .cancelled: throw ExitStatus.cancelled
            case .timedOut: throw ExitStatus.timedOut
            case .gaveUp, .endOfInput, .finished: break
            }
            // One-shot use ended (`:quit`, Ctrl-D, the terminal closed) with no card: 1.
            if oneShot && delivery.count == 0 { throw ExitStatus.rejected }
            return
        }
        // Cards on stdout: the messages for people go to stderr.
        let messagesFD: Int32 = deliveryFD == 1 ? 2 : 1
        var style = Style(
            colour: Terminal.wantsColour(disabled: options.noColor, fd: messagesFD), ascii: Style.localeWantsASCII())
        style.columns = Style.terminalColumns(of: messagesFD)
        let result = prompt.readLinesAsJSON(
            style: style,
            write: { Terminal.write($0, to: messagesFD) }, receive: receive,
            stop: { Terminal.outputFailed })
        try delivery.finish()
        // A script must know that a record was lost: 1 when any card was abandoned, even with
        // others delivered; in one-shot use, also when input ended before any card.
        switch result {
        case .timedOut: throw ExitStatus.timedOut
        case .someRejected: throw ExitStatus.rejected
        case .allAccepted: if oneShot && delivery.count == 0 { throw ExitStatus.rejected }
        }
    }

    /// `--record FILE`: the file opened (created if need be, never through a link, mode 0600)
    /// and the recording that writes to it; nil without `--record`. Refused (64) with piped
    /// input, which is not recorded; 74 when the file cannot be opened or is not a regular file.
    private func recordingFile() throws -> CardPrompt.Options.Recording? {
        guard let path = record else { return nil }
        guard isatty(0) == 1 else {
            Complaint.write(
                "--record: standard input is not a terminal; only the prompt at a terminal is recorded",
                hint: "a piped line is already a script: replay it with cardline replay")
            throw ExitStatus.usage
        }
        // Never through a link, never blocking on a FIFO; a regular file only (a device's or a
        // terminal's mode is not cardline's to change). What it held is replaced once the prompt
        // opens (a prompt that cannot start leaves it as it was).
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0o600)
        var info = stat()
        let problem: String? =
            fd < 0 || fstat(fd, &info) != 0
            ? String(cString: strerror(errno))
            : info.st_mode & S_IFMT != S_IFREG
                ? "not a regular file"
                : fchmod(fd, 0o600) != 0 ? String(cString: strerror(errno)) : nil
        if let problem {
            Terminal.writeError("cardline: error: --record \(path.escapingControlCharacters): \(problem)\n")
            if fd >= 0 { close(fd) }
            throw ExitStatus.ioError
        }
        return CardPrompt.Options.Recording(name: path, descriptor: fd)
    }

    /// Refuses a descriptor that is not open for writing, or is a terminal (the whole card would
    /// be shown there): exit 64.
    private func checkDeliveryTarget(_ fd: Int32) throws {
        let name = printCards ? "--print" : "--print-fd \(fd)"
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & O_ACCMODE != O_RDONLY else {
            Terminal.writeError("cardline: error: \(name): file descriptor \(fd) is not open for writing\n")
            throw ExitStatus.usage
        }
        if isatty(fd) == 1 {
            let what = fd == 1 ? "standard output is a terminal" : "file descriptor \(fd) is a terminal"
            Complaint.write(
                "\(name): \(what); the full card number and code must not be shown on it",
                hint: "redirect it to a pipe or a file, as in card=$(cardline --print --once)")
            throw ExitStatus.usage
        }
    }
}

/// Writes accepted cards to the caller, one JSON line each (clear, or sealed with
/// `--encrypt-to`), at the moment they are accepted.
struct Delivery {
    let fd: Int32?
    private(set) var count = 0
    /// Why the last write failed, if one did.
    private(set) var failure: String?

    init(fd: Int32?) { self.fd = fd }

    /// Writes a card's JSON (`CardPrompt.askForCardsAsJSON`: clear, or sealed with
    /// `--encrypt-to`) as a line (when there is somewhere to write it); false when the write
    /// failed.
    mutating func deliver(_ json: [UInt8]) -> Bool {
        guard let fd else {
            count += 1
            return true
        }
        var line: [UInt8] = []
        // One allocation, sized for this card: growing would leave a copy of it in freed memory.
        line.reserveCapacity(json.count + 1)
        line += json
        line.append(UInt8(ascii: "\n"))
        let written = Terminal.writeAll(line, to: fd)
        let error = errno
        line.overwriteAndEmpty()
        guard written else {
            failure = String(cString: strerror(error))
            return false
        }
        count += 1
        return true
    }

    /// Throws exit 74 after a failed write, having said why.
    func finish() throws {
        guard let failure else { return }
        Terminal.writeError(
            "cardline: error: the card could not be delivered to file descriptor \(fd ?? 1): \(failure)\n")
        throw ExitStatus.ioError
    }
}

extension CardPrompt.Failure {
    /// 66 unreadable rules, 65 broken rules, 64 an unknown network, 74 no terminal.
    var exitCode: ExitCode {
        switch self {
        case .unreadableRules: return ExitStatus.unreadable
        case .brokenRules: return ExitStatus.badRules
        case .unknownNetwork: return ExitStatus.usage
        case .noTerminal: return ExitStatus.ioError
        }
    }
}

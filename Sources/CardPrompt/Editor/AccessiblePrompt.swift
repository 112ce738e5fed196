import CEditLine
import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// Accessible mode's front end (`CardPrompt.Options.accessible`, `cardline --accessible`,
/// `ACCESSIBLE`): plain sequential questions for a screen reader or a braille display, which
/// read what is appended to the terminal and lose what is redrawn.
///
/// Each field is asked on a line of its own (`AccessibleSentences.question`) and answered with
/// Enter. Nothing is ever redrawn: no cursor motion, no erasing, no colour, no badge; the only
/// output is text and line breaks (and, for a Backspace, the backspace-space-backspace every
/// terminal's line editing echoes). The answer is echoed as it is typed, the security code
/// excepted (like a password prompt). Nothing moves on before Enter.
///
/// At Enter the line's characters, then Enter, are typed into the same `EntryEngine` every
/// other front end types into, which decides everything; a refused key or a field that is not
/// complete gives one sentence on a line of its own, the field is emptied and asked again. The
/// terminal's settings are put back on every exit path and by the signal handlers of
/// `cl_signals_begin`.
final class AccessiblePrompt {
    private var engine: EntryEngine
    private let device: TerminalDevice
    private let style: Style
    private let title: String?
    private let onCommand: (String) -> Void
    private let onAccepted: (PaymentCard) -> CardPrompt.Receipt
    private let loader: EntryEngine.RuleLoader?
    private let endsOnCancel: Bool
    private let reader: KeyReader
    /// The answer being typed, as UTF-8 (one Unicode scalar per key), until Enter types it into
    /// the engine. Its room is reserved once and it is overwritten in place before it is
    /// emptied: it holds card digits.
    private var line: [UInt8] = []
    /// The most bytes an answer takes; further keys are dropped.
    private static let longestLine = 1024
    /// The field the question on screen asks for (the one `line` is typed into).
    private var asked: Field = .number
    /// The session's recording (`cardline --record`), told of every key the engine takes.
    private let recording: PromptRecording?

    init(
        engine: EntryEngine, style: Style, device: TerminalDevice, title: String?,
        onCommand: @escaping (String) -> Void, onAccepted: @escaping (PaymentCard) -> CardPrompt.Receipt,
        reloadingWith loader: EntryEngine.RuleLoader?, timeout: Duration?, endsOnCancel: Bool,
        recording: PromptRecording? = nil
    ) {
        self.recording = recording
        self.engine = engine
        self.engine.cancelEndsEntry = endsOnCancel
        // No colour, whatever was asked: a screen reader reads the escape codes out.
        var plain = style
        plain.colour = false
        self.style = plain
        self.device = device
        self.title = title
        self.onCommand = onCommand
        self.onAccepted = onAccepted
        self.loader = loader
        self.endsOnCancel = endsOnCancel
        reader = KeyReader(timeout: timeout)
        line.reserveCapacity(Self.longestLine)
    }

    deinit { wipeLine() }

    /// True when accessible mode is asked for by the environment: `ACCESSIBLE` set to anything
    /// but empty or `0`.
    static func environmentAsks() -> Bool {
        guard let value = Environment.value("ACCESSIBLE") else { return false }
        return value != "0"
    }

    /// Asks for cards until `:quit`, Ctrl-D between cards, the end of input, the timeout, or
    /// `onAccepted` answering `.done` or `.failed`.
    func run() -> InteractiveEditor.Ending {
        let input = fileno(device.input)
        guard cl_signals_begin(input, fileno(device.output)) == 0 else { return .noEditor }
        defer { cl_signals_end() }
        // Keys one at a time, unechoed (this front end echoes what it shows), Ctrl-C, Ctrl-Z
        // and Ctrl-D as keys; output processing (a line break as CR LF) as it was.
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else { return .noEditor }
        var keys = settings
        cfmakeraw(&keys)
        keys.c_oflag = settings.c_oflag
        keys.c_cflag = settings.c_cflag
        guard tcsetattr(input, TCSANOW, &keys) == 0 else { return .noEditor }

        if let title { say(style.title(title)) }
        for sentence in AccessibleSentences.introduction(engine: engine) { say(style.drawn(sentence)) }
        if let recording { say(recording.begin(engine.messages).text) }
        defer { recording?.finish() }
        ask()
        reader.startIdleClock()
        while true {
            // A card reader's swipe is read whole and unechoed, wherever it comes in an answer.
            let status = reader.wait(on: input)
            if reader.timedOut {
                return end(
                    .timedOut,
                    saying: AccessibleSentences.timedOut(milliseconds: reader.timeoutMilliseconds ?? 0, engine.messages)
                )
            }
            if status <= 0 {
                // The terminal closed, or cannot be read.
                wipeLine()
                _ = engine.handle(.cancel)
                write("\n")
                return .endOfInput
            }
            reader.resized = false  // nothing is drawn to a width
            if var swipe = reader.takeSwipe() {
                let ending = swiped(swipe)
                swipe?.wipe()
                if let ending { return ending }
            }
            while let key = reader.next() {
                if let ending = take(key) { return ending }
            }
        }
    }

    /// Shows a warning line (a history file that cannot be written) on a line of its own. It
    /// comes from a callback run while an answer's line is handled (`Options.onCommand`), after
    /// that line's break and before the next question.
    func warn(_ text: String) {
        say(style.drawn(text.escapingControlCharacters))
    }

    // MARK: - Keys

    /// Acts on one key; the ending when it ends the prompt.
    private func take(_ key: TerminalKey) -> InteractiveEditor.Ending? {
        if case .control(let byte) = key.base, byte == 0x1A, key.modifiers.isEmpty {
            if cl_can_suspend() == 1 { cl_suspend() }
            return nil
        }
        if case .paste = key.base {
            for case .character(let character) in key.entryKeys { type(character) }
            return nil
        }
        guard let entryKey = key.entryKey else { return nil }
        if endsOnCancel && (entryKey == .cancel || key == TerminalKey(.escape)) {
            return end(.cancelled, saying: AccessibleSentences.cancelled(engine.messages))
        }
        switch entryKey {
        case .character(let character):
            type(character)
        case .backspace:
            guard !line.isEmpty else { return nil }
            let wasEchoed = echoes
            // The last scalar: its continuation bytes (10xxxxxx), then its first byte.
            while let last = line.last {
                line[line.count - 1] = 0
                line.removeLast()
                if last & 0xC0 != 0x80 { break }
            }
            if wasEchoed { write("\u{8} \u{8}") }
        case .clearLine:
            // The answer so far is dropped and the question asked again below it (nothing erased).
            wipeLine()
            write("\n")
            ask()
        case .enter:
            write("\n")
            return submit()
        case .cancel:
            wipeLine()
            write("\n")
            show(handle(.cancel).messages)
            ask()
        case .endOfInput:
            guard line.isEmpty else { return nil }
            write("\n")
            let outcome = handle(.endOfInput)
            if let reason = outcome.refusal { say(AccessibleSentences.sentence(reason.text)) }
            show(outcome.messages)
            if outcome.event == .quit { return .quit }
            ask()
        default:
            // Arrows, recall, function keys: nothing here (there is no line to move in).
            break
        }
        return nil
    }

    /// Whether the characters of the answer are echoed: always, but in the security code's
    /// field, where only a `:` command is.
    private var echoes: Bool { asked != .cvv || line.first == UInt8(ascii: ":") }

    /// Adds a typed character to the answer and echoes it (`echoes`); a character that would
    /// act on the terminal (a control or format character) is echoed as `?`.
    private func type(_ character: Character) {
        guard line.count + character.utf8.count <= Self.longestLine else { return }
        line.append(contentsOf: character.utf8)
        guard echoes else { return }
        if character == "\t" { return write(" ") }
        let shows = character.unicodeScalars.allSatisfy { scalar in
            if scalar.isASCII { return scalar.value >= 0x20 && scalar.value < 0x7F }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                return false
            default: return true
            }
        }
        write(shows ? style.drawn(String(character)) : "?")
    }

    // MARK: - Enter

    /// Types the answer into the engine, then Enter, and says what came of it.
    private func submit() -> InteractiveEditor.Ending? {
        defer { wipeLine() }
        let field = asked
        if [":help", ":h", ":?"].contains(where: { line.elementsEqual($0.utf8) }) {
            onCommand(String(decoding: line, as: UTF8.self))
            for sentence in AccessibleSentences.help(endsOnCancel: endsOnCancel, engine.messages) { say(sentence) }
            ask()
            return nil
        }
        let (messages, refusal) = typeAnswer()
        if let refusal {
            rewind(to: field)
            say(refusal)
            ask()
            return nil
        }
        var outcome = Outcome.ignored
        if engine.command != nil || engine.field == field {
            let wasCommand = engine.command != nil
            outcome = handle(.enter)
            if let command = outcome.command { onCommand(command) }
            if !wasCommand && engine.field == field && outcome.event == nil
                && outcome.messages.contains(where: { $0.kind == .error })
            {
                // Not complete, or not valid: said, emptied, asked again.
                say(problemSentence(field, outcome))
                rewind(to: field)
                ask()
                return nil
            }
        }
        if case .submitFailed = outcome.event {
            show(outcome.messages)
            if engine.field == field {
                rewind(to: field)
            } else {
                // An earlier field no longer holds (the rules were reloaded): the fields after it
                // hold answers too, so the whole card is emptied and asked again.
                _ = handle(.cancel)
                say(AccessibleSentences.startAgain(engine.messages))
            }
            ask()
            return nil
        }
        if field == .number && engine.field > .number {
            say(
                AccessibleSentences.numberTaken(
                    network: engine.network, count: engine.numberDigits.count,
                    ending: CardNumber.string(CardPolicy.lastShownDigits(of: engine.numberDigits)), engine.messages))
        }
        let receipt = outcome.deliverAcceptedCard(to: onAccepted, messages: engine.messages)
        show(messages + outcome.messages)
        if outcome.event == .quit { return .quit }
        if let receipt, receipt != .more { return .finished }
        ask()
        return nil
    }

    /// A swipe (its Enter included): the characters typed before it on the answer's line go to
    /// the engine first, then the swipe, which the engine takes at an empty card number and
    /// refuses anywhere else (after those characters, in a `:` command, another field);
    /// nothing of it was echoed. A refusal empties the field and asks it again.
    private func swiped(_ swipe: TrackData?) -> InteractiveEditor.Ending? {
        let field = asked
        write("\n")
        let typed = typeAnswer()
        wipeLine()
        let outcome = typed.refusal == nil ? handle(.swipe(swipe)) : .ignored
        if let reason = typed.refusal ?? outcome.refusal.map({ AccessibleSentences.sentence($0.text) }) {
            rewind(to: field)
            say(reason)
        } else {
            if field == .number && engine.field > .number {
                say(
                    AccessibleSentences.numberTaken(
                        network: engine.network, count: engine.numberDigits.count,
                        ending: CardNumber.string(CardPolicy.lastShownDigits(of: engine.numberDigits)), engine.messages)
                )
            }
            show(outcome.messages)
        }
        ask()
        return nil
    }

    /// The sentence for a field Enter did not take: for a number of a right length whose check
    /// digit fails, in words; else the engine's problem with the field (or its message).
    private func problemSentence(_ field: Field, _ outcome: Outcome) -> String {
        if field == .number, let network = engine.detection.network,
            case .failsLuhn = engine.detection.verdict(engine.numberDigits)
        {
            return AccessibleSentences.checkDigitFails(
                count: engine.numberDigits.count, network: network, engine.messages)
        }
        let problem = (engine.problem(in: field) ?? outcome.messages.first { $0.kind == .error })?.text ?? ""
        return AccessibleSentences.sentence(problem)
    }

    /// Types the answer's characters into the engine (not Enter): the messages worth saying,
    /// and the sentence for the first refused key, which stops it.
    private func typeAnswer() -> (messages: [Message], refusal: String?) {
        let field = asked
        var messages: [Message] = []
        // (the iterator, which shares the line's storage, is gone before the line is wiped)
        var bytes = line.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&bytes) {
            let character = Character(scalar)
            // The field moved on by itself (a whole number or expiry) and more follows: one
            // line answers one field.
            if engine.command == nil && engine.field != field {
                if character == " " || character == "\t" { continue }
                return (messages, AccessibleSentences.moreThanTheField(engine.fieldName(field), engine.messages))
            }
            let outcome = handle(.character(character))
            if let reason = outcome.refusal { return (messages, AccessibleSentences.sentence(reason.text)) }
            // A problem a key shows as it is typed (a number failing its check) is said once,
            // by Enter; what a field moving on by itself says (the summary) is kept.
            messages += outcome.messages.filter { $0.kind == .success || $0.kind == .info }
        }
        return (messages, nil)
    }

    /// Takes the engine back to `field`, emptied (a command being typed dropped, fields it
    /// moved on to emptied), through its own keys, which overwrite the digits.
    private func rewind(to field: Field) {
        if engine.command != nil { _ = handle(.clearLine) }
        while engine.field > field {
            if !engine.activeIsEmpty { _ = handle(.clearLine) }
            _ = handle(.backspace)
        }
        if !engine.activeIsEmpty { _ = handle(.clearLine) }
    }

    /// The one place this prompt hands the engine a key: the recording, if any, is told of it
    /// (and says so once when it has stopped).
    private func handle(_ key: Key) -> Outcome {
        let outcome = engine.handle(key, reloadingWith: loader)
        if let recording {
            recording.note(key, outcome, engine: engine)
            recording.endInput(pasted: false)
            if let stopped = recording.takeFailure(engine.messages) { say(stopped.text) }
        }
        return outcome
    }

    // MARK: - Output

    /// Asks for the engine's active field.
    private func ask() {
        asked = engine.field
        write(AccessibleSentences.question(asked, engine: engine))
    }

    /// Each message on a line of its own: an error or a result as a sentence (no mark), other
    /// lines as they are; the field's help line (the question says it) is left out.
    private func show(_ messages: [Message]) {
        for message in messages {
            switch message.kind {
            case .help: continue
            case .error, .success: say(style.drawn(AccessibleSentences.sentence(message.text)))
            case .info: say(style.drawn(message.text))
            }
        }
    }

    /// Ends the prompt: the card being entered wiped through the engine's cancel key, `text`
    /// said on a line of its own.
    private func end(_ ending: InteractiveEditor.Ending, saying text: String) -> InteractiveEditor.Ending {
        wipeLine()
        _ = engine.handle(.cancel)
        write("\n")
        say(text)
        return ending
    }

    /// Writes `text`, its masked numbers and expiry dates in words, in lines that fit the
    /// terminal, and a line break.
    private func say(_ text: String) {
        let spoken = AccessibleSentences.spoken(text, engine.messages, century: engine.expiryPolicy.fullYear)
        let columns = Int(cl_columns(fileno(device.output)))
        write(Style.wrapped(spoken, columns: columns).joined(separator: "\n") + "\n")
    }

    /// Writes to the terminal straight, no stdio buffer left holding an echoed digit.
    private func write(_ text: String) {
        var text = text
        text.makeContiguousUTF8()
        _ = Paths.writeAll(text.utf8.span, to: fileno(device.output))
    }

    /// Overwrites the answer's characters in place, then empties it.
    private func wipeLine() {
        line.overwriteAndEmpty()
    }
}

import CEditLine
import CardKit

#if canImport(Glibc)
import Glibc
#endif

/// The REPL at a real terminal. libedit reads the keys; every key that matters is bound to a
/// function here that hands it to the engine and then replaces libedit's buffer with the
/// engine's display text, so the engine alone decides what the line shows.
///
/// Output (help, refusal reasons, results) is written above the prompt from inside a key
/// binding, which then returns `CC_REDISPLAY` so libedit redraws prompt and line below it: the
/// same way libedit shows completion lists. `el_gets` therefore returns only on quit or end
/// of input.
///
/// Signal keys are off while editing (`setty -d -isig`): Ctrl-C is an ordinary key bound to
/// "cancel the card". With ISIG on, a Ctrl-C that lands while the program is between reads
/// leaves libedit reading in cooked mode and the prompt stops responding; as a key there is no
/// such race. A SIGINT, SIGTERM or SIGHUP sent from outside still ends the program, after the
/// handlers of `cl_signals_begin` have put the terminal back; they act on this process only,
/// where libedit's EL_SIGNAL would re-send the signal to the caller's whole process group.
/// One prompt runs at a time in a process (the handlers keep their state in C globals).
final class InteractiveEditor {
    private var engine: EntryEngine
    private let style: Style
    private let device: TerminalDevice
    private let title: String?
    private let onCommand: (String) -> Void
    /// Receives each accepted card, whole, and says whether to go on.
    private let onAccepted: (PaymentCard) -> CardPrompt.Receipt
    private var editLine: OpaquePointer?
    /// C copies of the current prompts, alive until replaced (libedit keeps the pointers).
    private var promptText: UnsafeMutablePointer<CChar>?
    private var rightPromptText: UnsafeMutablePointer<CChar>?
    /// A burst of refused keys prints one reason (the same rule as replay's transcript).
    private var refusals = RefusalBurst()
    private var quitRequested = false
    /// Set once `onAccepted` asked to stop: the prompt ends after the success line.
    private var endAfterOutput = false
    private var ending = Ending.quit
    /// The text last put in libedit's buffer, to spot characters libedit inserted by itself.
    private var drawnText = ""
    /// Output waiting for the flush key that a field change pushes.
    private var pendingOutput: String?

    /// Marks the start and end of escape sequences in prompts, so libedit does not count them.
    private static let invisible: CChar = 1

    private let loader: EntryEngine.RuleLoader?

    init(engine: EntryEngine, style: Style, device: TerminalDevice, title: String? = nil,
         onCommand: @escaping (String) -> Void = { _ in },
         onAccepted: @escaping (PaymentCard) -> CardPrompt.Receipt = { _ in .more },
         reloadingWith loader: EntryEngine.RuleLoader? = nil) {
        self.engine = engine
        self.style = style
        self.device = device
        self.title = title
        self.onCommand = onCommand
        self.onAccepted = onAccepted
        self.loader = loader
    }

    /// Why the prompt ended.
    enum Ending: Equatable {
        /// `:quit`, or Ctrl-D on an empty field.
        case quit
        /// The terminal closed or could not be read.
        case endOfInput
        /// `onAccepted` answered `.done` or `.failed`.
        case finished
        /// The terminal could not be set up.
        case noEditor
    }

    deinit {
        if let editLine { el_end(editLine) }
        free(promptText)
        free(rightPromptText)
    }

    /// Runs until `:quit`, Ctrl-D on an empty field, the end of input, or `onAccepted`
    /// returning false.
    func run() -> Ending {
        // libedit drops non-ASCII bytes without a character-type locale; the host's own
        // setting is put back when the prompt ends.
        let previousLocale = setlocale(LC_CTYPE, nil).map { String(cString: $0) }
        setlocale(LC_CTYPE, "")
        defer { if let previousLocale { setlocale(LC_CTYPE, previousLocale) } }
        cl_signals_begin(fileno(device.input))
        defer { cl_signals_end() }
        guard let el = device.isStandard ? cl_init("cardline") : cl_init_files("cardline", device.input, device.output) else {
            return .noEditor
        }
        editLine = el
        // libedit puts its own saved settings back first, then cl_signals_end the original ones.
        defer {
            el_end(el)
            editLine = nil
        }
        cl_set_client_data(el, Unmanaged.passUnretained(self).toOpaque())
        cl_set_editor(el, "emacs")
        // Not EL_SIGNAL: cl_signals_begin handles signals for this process only.
        cl_set_tty_flag(el, "-d", "-isig")
        cl_set_prompt(el, { el in InteractiveEditor.from(el)?.promptText }, Self.invisible)
        cl_set_rprompt(el, { el in InteractiveEditor.from(el)?.rightPromptText }, Self.invisible)
        installBindings(el)
        updatePrompts()

        if let title { write(style.title(title) + "\n") }
        write(style.message(Message(.help, engine.help)) + "\n")
        while !quitRequested {
            var count: Int32 = 0
            let line = el_gets(el, &count)
            if line == nil && !quitRequested {
                // End of input without our binding (stdin closed, read error): leave cleanly.
                write("\n")
                return .endOfInput
            }
        }
        return ending
    }

    // MARK: - Key bindings

    private enum Action: CaseIterable {
        case key, backspace, enter, clear, cancel, suspend, endOfInput, previous, next, stay, flush

        /// Pushed into libedit's input to print pending output after a redraw (Ctrl-^).
        static let flushKey = "\u{1E}"

        var name: String {
            switch self {
            case .key: return "cl-key"
            case .backspace: return "cl-backspace"
            case .enter: return "cl-enter"
            case .clear: return "cl-clear"
            case .cancel: return "cl-cancel"
            case .suspend: return "cl-suspend"
            case .endOfInput: return "cl-eof"
            case .previous: return "cl-previous"
            case .next: return "cl-next"
            case .stay: return "cl-stay"
            case .flush: return "cl-flush"
            }
        }

        /// The C function libedit calls; it cannot capture, so it finds the editor by client data.
        var function: cl_key_fn {
            switch self {
            case .key: return { el, ch in InteractiveEditor.dispatch(el, .key, ch) }
            case .backspace: return { el, ch in InteractiveEditor.dispatch(el, .backspace, ch) }
            case .enter: return { el, ch in InteractiveEditor.dispatch(el, .enter, ch) }
            case .clear: return { el, ch in InteractiveEditor.dispatch(el, .clear, ch) }
            case .cancel: return { el, ch in InteractiveEditor.dispatch(el, .cancel, ch) }
            case .suspend: return { el, ch in InteractiveEditor.dispatch(el, .suspend, ch) }
            case .endOfInput: return { el, ch in InteractiveEditor.dispatch(el, .endOfInput, ch) }
            case .previous: return { el, ch in InteractiveEditor.dispatch(el, .previous, ch) }
            case .next: return { el, ch in InteractiveEditor.dispatch(el, .next, ch) }
            case .stay: return { el, ch in InteractiveEditor.dispatch(el, .stay, ch) }
            case .flush: return { el, ch in InteractiveEditor.dispatch(el, .flush, ch) }
            }
        }

        /// The key strings bound to this action (libedit bind syntax).
        var keys: [String] {
            switch self {
            case .key:
                // Every printable ASCII character, and the control characters that have no
                // meaning here, so that libedit's own editing never changes the line. A bind
                // string is parsed like an option: '-', '^' and '\' must be escaped.
                let printable = (0x20...0x7E).map { code -> String in
                    let c = String(UnicodeScalar(UInt8(code)))
                    return c == "-" || c == "^" || c == "\\" ? "\\" + c : c
                }
                let controls = ["^I", "^K", "^O", "^R", "^S", "^T", "^V", "^W", "^X", "^Y", "^]", "^_", "^G"]
                return printable + controls
            case .backspace: return ["^?", "^H"]
            case .enter: return ["^M", "^J"]
            case .clear: return ["^U"]
            case .cancel: return ["^C"]
            case .suspend: return ["^Z"]
            case .endOfInput: return ["^D"]
            case .previous: return ["^P", "\\e[A", "\\eOA"]
            case .next: return ["^N", "\\e[B", "\\eOB"]
            // The cursor stays at the end of the field: movement keys do nothing.
            case .flush: return ["^^"]
            case .stay: return ["^A", "^B", "^E", "^F", "\\e[C", "\\e[D", "\\eOC", "\\eOD", "\\e[H", "\\e[F", "\\eb", "\\ef", "\\ed", "\\e^?"]
            }
        }
    }

    private func installBindings(_ el: OpaquePointer) {
        for action in Action.allCases {
            cl_add_function(el, action.name, action.name, action.function)
            for key in action.keys { cl_bind(el, key, action.name) }
        }
    }

    private static func from(_ el: OpaquePointer?) -> InteractiveEditor? {
        guard let el, let data = cl_client_data(el) else { return nil }
        return Unmanaged<InteractiveEditor>.fromOpaque(data).takeUnretainedValue()
    }

    private static func dispatch(_ el: OpaquePointer?, _ action: Action, _ ch: Int32) -> UInt8 {
        guard let el, let editor = from(el) else { return UInt8(CC_ERROR) }
        return editor.perform(action, character: ch, on: el)
    }

    private func perform(_ action: Action, character: Int32, on el: OpaquePointer) -> UInt8 {
        // Without EL_SIGNAL libedit does not hear of a resize: tell it before drawing.
        if cl_take_resized() == 1 { el_resize(el) }
        let key: Key
        switch action {
        case .key:
            guard let scalar = Unicode.Scalar(UInt32(bitPattern: character)) else { return UInt8(CC_ERROR) }
            key = .character(Character(scalar))
        case .backspace: key = .backspace
        case .enter: key = .enter
        case .clear: key = .clearLine
        case .cancel: key = .cancel
        case .suspend:
            // libedit's SIGTSTP handling restores the terminal, and raw mode and the line on SIGCONT.
            cl_suspend()
            // Back from `fg`: the shell has written below the line, so draw it again in full.
            write("\r")
            return UInt8(CC_REDISPLAY)
        case .endOfInput: key = .endOfInput
        case .previous: key = .historyPrevious
        case .next: key = .historyNext
        case .stay:
            replaceBuffer(el)
            return UInt8(CC_REFRESH)
        case .flush:
            guard let output = pendingOutput else { return UInt8(CC_NORM) }
            pendingOutput = nil
            if endAfterOutput {
                // The card went to the caller: leave the success line as the last thing shown.
                write(output)
                replaceBuffer(el, with: "")
                quitRequested = true
                ending = .finished
                return UInt8(CC_EOF)
            }
            return printAbovePrompt(output, el)
        }
        let viewBefore = engine.view
        // Characters libedit inserted without asking (those above U+00FF never reach a
        // binding) go to the engine first, which refuses them with a reason like any key.
        let strays = strayCharacters(el)
        var outcome = Self.combine(strays.map { engine.handle(.character($0)) } + [engine.handle(key, reloadingWith: loader)])
        if let command = outcome.command { onCommand(command) }
        if let card = outcome.takeAcceptedCard() {
            switch deliver(card) {
            case .more: break
            case .done: endAfterOutput = true
            case .failed(let reason):
                endAfterOutput = true
                outcome.messages = [Message(.error, "The card was not delivered: \(reason)")]
            }
        }
        if outcome.event == .quit {
            quitRequested = true
            replaceBuffer(el)
            write("\n")
            return UInt8(CC_EOF)
        }

        var lines: [String] = []
        if let reason = refusals.reasonToShow(outcome) {
            lines.append(style.refusal(reason))
        } else if outcome.refusal != nil {
            replaceBuffer(el)
            return UInt8(CC_ERROR)  // the bell; the reason is already on screen
        }
        lines += outcome.messages.map(style.message)

        guard !lines.isEmpty else {
            updatePrompts()
            replaceBuffer(el)
            return UInt8(CC_REFRESH)
        }
        // First let libedit draw the line as it stands with this key applied (the digit that
        // completed the field), then print below it when the pushed flush key comes round. The
        // line left above is no longer the live field, so a number on it is masked.
        let finished = engine.finishedView(before: viewBefore)
        updatePrompts(finished)
        replaceBuffer(el, with: finished.maskedText)
        pendingOutput = (outcome.refusal != nil ? "\u{7}" : "") + "\r\n" + lines.joined(separator: "\r\n") + "\r\n"
        el_push(el, Action.flushKey)
        return UInt8(CC_REFRESH)
    }

    /// Hands the card to the caller at the moment it is accepted, then overwrites this copy.
    private func deliver(_ card: consuming PaymentCard) -> CardPrompt.Receipt {
        var card = card
        let receipt = onAccepted(card)
        card.wipe()
        return receipt
    }

    /// Writes output below the current line and has libedit redraw the active field under it.
    private func printAbovePrompt(_ output: String, _ el: OpaquePointer) -> UInt8 {
        write(output)
        updatePrompts()
        replaceBuffer(el)
        return UInt8(CC_REDISPLAY)
    }

    /// The characters in libedit's buffer beyond what was last drawn there.
    private func strayCharacters(_ el: OpaquePointer) -> [Character] {
        guard let info = el_wline(el)?.pointee else { return [] }
        let count = info.lastchar - info.buffer
        var text = ""
        for i in 0..<count {
            if let scalar = Unicode.Scalar(UInt32(bitPattern: Int32(info.buffer[i]))) { text.unicodeScalars.append(scalar) }
        }
        guard text != drawnText else { return [] }
        return text.hasPrefix(drawnText) ? Array(text.dropFirst(drawnText.count)) : Array(text)
    }

    /// One outcome for several keys handled together: the first refusal, every message.
    static func combine(_ outcomes: [Outcome]) -> Outcome {
        guard outcomes.count > 1, var combined = outcomes.last else { return outcomes.last ?? .ignored }
        combined.disposition = outcomes.first { $0.refusal != nil }?.disposition ?? combined.disposition
        combined.messages = outcomes.flatMap(\.messages)
        combined.fieldChanged = outcomes.contains { $0.fieldChanged }
        combined.event = outcomes.last { $0.event != nil }?.event
        combined.command = outcomes.last { $0.command != nil }?.command
        return combined
    }

    /// Makes libedit's buffer equal the engine's display text, cursor at the end.
    private func replaceBuffer(_ el: OpaquePointer, with text: String? = nil) {
        if let info = el_wline(el)?.pointee {
            el_cursor(el, Int32(info.lastchar - info.cursor))
            el_deletestr(el, Int32(info.lastchar - info.buffer))
        }
        let text = text ?? engine.view.text
        if !text.isEmpty { el_insertstr(el, text) }
        drawnText = text
    }

    private func updatePrompts(_ view: EntryView? = nil) {
        let view = view ?? engine.view
        free(promptText)
        free(rightPromptText)
        promptText = strdup(invisibleEscapes(style.prompt(view)))
        rightPromptText = strdup(invisibleEscapes(style.badge(view)))
    }

    /// Wraps each escape sequence in the invisible-marker character libedit was given.
    private func invisibleEscapes(_ text: String) -> String {
        var result = ""
        var inEscape = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{1B}" { result.unicodeScalars.append("\u{1}"); inEscape = true }
            result.unicodeScalars.append(scalar)
            if inEscape && scalar == "m" { result.unicodeScalars.append("\u{1}"); inEscape = false }
        }
        return result
    }

    private func write(_ text: String) { device.write(text) }
}

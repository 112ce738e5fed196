import CEditLine
import CardKit

#if canImport(Glibc)
import Glibc
#endif

/// The REPL at a real terminal. cardline reads the terminal itself (libedit's EL_GETCFN) and
/// decodes whole key sequences with `KeyDecoder`: an escape sequence becomes one named key,
/// a bracketed paste one burst, never stray characters. libedit sees a single dispatch
/// character per key, bound to a function here that hands the key to the engine and then
/// replaces libedit's buffer with the engine's display text, so the engine alone decides
/// what the line holds and shows; libedit's own editing keys never run.
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
    /// Output waiting for the flush key that a field change pushes.
    private var pendingOutput: String?
    /// Turns the terminal's bytes into keys.
    private var decoder = KeyDecoder()
    /// Where the terminal's bytes are read, wiped after each read.
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    /// Keys read from the terminal and not yet handed to libedit, and whether it has ended.
    private var inputs: [Input] = []
    private var inputIndex = 0
    private var inputEnded = false
    /// The terminal's width, read at start and after each resize.
    private var columns = 80

    /// What the reader hands the dispatch binding: a key, or news of a resize.
    private enum Input {
        case key(TerminalKey)
        case resized
    }

    /// Bracketed paste on (`ESC [ ? 2004 h`) while the prompt runs; off, and the live field
    /// cleared, whenever it lets go of the terminal.
    private static let enterModes = "\u{1B}[?2004h"
    private static let leaveModes = "\r\u{1B}[J\u{1B}[?2004l"
    /// How long an escape sequence may pause before what came is taken as it stands (a lone
    /// Esc, an Alt chord): long enough for a slow link, short enough not to be felt.
    private static let escapeTimeout: Int32 = 100
    /// How long after such a pause the next bytes may still be the rest of the sequence (a key
    /// split by a slow link), rather than keys of their own.
    private static let cutShortTimeout: Int32 = 1000
    /// How long a bracketed paste may pause before it is taken as ended.
    private static let pasteTimeout: Int32 = 3000

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
        /// `:quit`, or Ctrl-D between cards.
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

    /// Runs until `:quit`, Ctrl-D between cards, the end of input, or `onAccepted`
    /// returning false.
    func run() -> Ending {
        // libedit drops non-ASCII bytes without a character-type locale; the host's own
        // setting is put back when the prompt ends.
        let previousLocale = setlocale(LC_CTYPE, nil).map { String(cString: $0) }
        setlocale(LC_CTYPE, "")
        defer { if let previousLocale { setlocale(LC_CTYPE, previousLocale) } }
        cl_signals_begin(fileno(device.input), fileno(device.output))
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
        cl_set_getcfn(el) { el, character in
            guard let editor = InteractiveEditor.from(el) else { return -1 }
            return editor.readCharacter(character)
        }
        columns = Int(cl_columns(fileno(device.output)))
        updatePrompts()
        cl_set_terminal_modes(Self.enterModes, Self.leaveModes)
        write(Self.enterModes)
        defer { write("\u{1B}[?2004l") }

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
        case input, flush

        /// The one character the reader gives libedit for every key (Ctrl-_), and the one
        /// pushed to print pending output after a redraw (Ctrl-^).
        static let inputKey: wchar_t = 0x1F
        static let flushKey = "\u{1E}"

        var name: String { self == .input ? "cl-input" : "cl-flush" }
        var binding: String { self == .input ? "^_" : "^^" }

        /// The C function libedit calls; it cannot capture, so it finds the editor by client data.
        var function: cl_key_fn {
            switch self {
            case .input: return { el, _ in InteractiveEditor.from(el)?.nextInput(el!) ?? UInt8(CC_ERROR) }
            case .flush: return { el, _ in InteractiveEditor.from(el)?.flush(el!) ?? UInt8(CC_ERROR) }
            }
        }
    }

    private func installBindings(_ el: OpaquePointer) {
        for action in Action.allCases {
            cl_add_function(el, action.name, action.name, action.function)
            cl_bind(el, action.binding, action.name)
        }
        cl_bind(el, "^L", "ed-clear-screen")
    }

    // MARK: - Reading the terminal

    /// libedit's character reader: waits for the next whole key, queues it, and answers with
    /// the dispatch character; 0 at the end of input, -1 on a read error.
    private func readCharacter(_ character: UnsafeMutablePointer<wchar_t>?) -> Int32 {
        // libedit has just finished drawing. When it redraws only the changed cells of the
        // badge it leaves the badge's colour on (the reset at the span's end is unchanged, so
        // not sent), and the next digit it echoes would take that colour: reset it here.
        if style.colour { write("\u{1B}[0m") }
        let fd = fileno(device.input)
        while inputIndex == inputs.count {
            inputs.removeAll(keepingCapacity: true)
            inputIndex = 0
            if inputEnded { return 0 }
            let timeout = decoder.isInPaste ? Self.pasteTimeout
                : decoder.isPending ? Self.escapeTimeout : decoder.isHoldingCutShort ? Self.cutShortTimeout : -1
            let ready = cl_wait_input(fd, timeout)
            if ready == 2 { inputs.append(.resized); break }
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if ready == 0 {
                if decoder.isInPaste {
                    // A paste start with no end (typed by hand, or cut): end it, so keys work again.
                    inputs += decoder.finish().map(Input.key)
                } else if decoder.isPending {
                    inputs += decoder.flush().map(Input.key)
                } else {
                    decoder.forgetCutShort()
                }
                continue
            }
            let count = read(fd, &readBuffer, readBuffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return -1
            }
            if count == 0 {
                inputEnded = true
                inputs += decoder.finish().map(Input.key)
                continue
            }
            inputs += decoder.feed(readBuffer[0..<count]).map(Input.key)
            // The keys typed are not left behind in the buffer.
            readBuffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, count) }
        }
        character?.pointee = Action.inputKey
        return 1
    }

    /// The dispatch binding: takes the next queued input and acts on it.
    private func nextInput(_ el: OpaquePointer) -> UInt8 {
        guard inputIndex < inputs.count else { return UInt8(CC_NORM) }
        let input = inputs[inputIndex]
        inputs[inputIndex] = .resized  // the key's text is not kept in the queue
        inputIndex += 1
        switch input {
        case .resized:
            el_resize(el)
            columns = Int(cl_columns(fileno(device.output)))
            // The old line may be longer than the new width: clear it, then draw afresh.
            write("\r\u{1B}[J")
            updatePrompts()
            replaceBuffer(el)
            return UInt8(CC_REDISPLAY)
        case .key(let key):
            if key.modifiers.isEmpty && key.base == .control(0x1A) { return suspend(el) }
            if key.modifiers.isEmpty && key.base == .control(0x0C) {
                // Ctrl-L: libedit's own clear-and-redraw, reached through the one binding
                // left to it; the line it draws is still the engine's.
                el_push(el, "\u{0C}")
                return UInt8(CC_NORM)
            }
            let keys = key.entryKeys
            return keys.isEmpty ? UInt8(CC_NORM) : perform(keys, on: el)
        }
    }

    /// Ctrl-Z: the signal handler clears the live field and puts the terminal back before the
    /// shell's prompt appears; after `fg` the line is drawn again in full.
    private func suspend(_ el: OpaquePointer) -> UInt8 {
        // A caller that ignores SIGTSTP (a program embedding the prompt) does not want to stop.
        guard cl_can_suspend() == 1 else { return perform([.other("Ctrl-Z")], on: el) }
        cl_suspend()
        write("\r")
        return UInt8(CC_REDISPLAY)
    }

    private static func from(_ el: OpaquePointer?) -> InteractiveEditor? {
        guard let el, let data = cl_client_data(el) else { return nil }
        return Unmanaged<InteractiveEditor>.fromOpaque(data).takeUnretainedValue()
    }

    /// The flush binding: prints the output a key left pending, below the line it drew.
    private func flush(_ el: OpaquePointer) -> UInt8 {
        guard let output = pendingOutput else { return UInt8(CC_NORM) }
        pendingOutput = nil
        if endAfterOutput || quitRequested {
            // The card went to the caller, or the session ends: the output is the last thing shown.
            write(output)
            replaceBuffer(el, with: "")
            quitRequested = true
            if endAfterOutput { ending = .finished }
            return UInt8(CC_EOF)
        }
        return printAbovePrompt(output, el)
    }

    /// Hands keys to the engine as one burst (a paste is one burst: one refusal reason at most).
    private func perform(_ keys: [Key], on el: OpaquePointer) -> UInt8 {
        let viewBefore = engine.view
        var outcome = Outcome.combined(keys.map { engine.handle($0, reloadingWith: loader) })
        if let command = outcome.command { onCommand(command) }
        if let receipt = outcome.deliverAcceptedCard(to: onAccepted), receipt != .more { endAfterOutput = true }
        if outcome.event == .quit {
            quitRequested = true
            ending = .quit
            if outcome.messages.isEmpty {
                replaceBuffer(el)
                write("\n")
                return UInt8(CC_EOF)
            }
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
        // libedit redraws from the first row of the line it drew; when a long command wrapped
        // that line over several rows, as many blank rows keep it off the output.
        let extraRows = String(repeating: "\r\n", count: max(0, layout.rows(text: finished.maskedText) - 1))
        pendingOutput = (outcome.refusal != nil ? "\u{7}" : "") + "\r\n" + lines.joined(separator: "\r\n") + "\r\n" + extraRows
        el_push(el, Action.flushKey)
        return UInt8(CC_REFRESH)
    }

    /// Writes output below the current line and has libedit redraw the active field under it.
    private func printAbovePrompt(_ output: String, _ el: OpaquePointer) -> UInt8 {
        write(output)
        updatePrompts()
        replaceBuffer(el)
        return UInt8(CC_REDISPLAY)
    }

    /// Makes libedit's buffer equal the engine's display text, cursor at the end.
    private func replaceBuffer(_ el: OpaquePointer, with text: String? = nil) {
        if let info = el_wline(el)?.pointee {
            el_cursor(el, Int32(info.lastchar - info.cursor))
            el_deletestr(el, Int32(info.lastchar - info.buffer))
        }
        let text = text ?? engine.view.text
        if !text.isEmpty { el_insertstr(el, text) }
        // What the signal handlers clear: every row the line takes, the cursor being on its last.
        let rowsAbove = layout.rows(text: text) - 1
        cl_set_terminal_modes(Self.enterModes, "\r" + (rowsAbove > 0 ? "\u{1B}[\(rowsAbove)A" : "") + "\u{1B}[J\u{1B}[?2004l")
    }

    /// The prompts as last laid out for the terminal's width.
    private var layout = Style.Layout(prompt: "", badge: "", promptWidth: 0, columns: 80)

    private func updatePrompts(_ view: EntryView? = nil) {
        let view = view ?? engine.view
        layout = style.layout(view, columns: columns)
        free(promptText)
        free(rightPromptText)
        promptText = strdup(invisibleEscapes(layout.prompt))
        rightPromptText = strdup(invisibleEscapes(layout.badge))
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

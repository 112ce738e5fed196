import CEditLine
import CardKit
import CardReader

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
///
/// One way to draw a key (issue 37): every key goes through libedit's dispatch to the engine
/// (`nextInput`), and nothing reaches the terminal before the engine has taken it. On every
/// terminal that takes escape sequences cardline draws the badge itself (`BadgePainter`, with
/// VT100 cursor motions), and a line that takes one row is brought up to date by writing only
/// the cells that differ between the row on screen and the row wanted (`LineCells`: an
/// ordinary digit writes the digit and the counter's changed characters), libedit being told
/// the new screen without drawing (`cl_refresh_silently`). A line that wraps, or one with
/// output above it, is drawn by libedit (its buffer replaced, its own redraw), and the badge
/// then drawn whole. On a terminal without escape sequences (TERM=dumb) libedit draws the
/// badge as its right prompt and the whole line.
///
/// The jobs are split: `KeyReader` reads and decodes the terminal's keys (libedit's reader is
/// in `InteractiveEditor+Typing.swift`), `BadgePainter` draws the badge, `LineCells` works out
/// the cells of a one-row line that changed, `PromptTexts` holds the prompts libedit draws,
/// `TerminalState` knows the terminal and how to erase the live line, `ShownLine` what
/// libedit's line holds; this class drives libedit and the engine and presents what the
/// engine did. What a key leaves for libedit's next call is one `Step`; why the prompt ends,
/// `ending`.
final class InteractiveEditor {
    var engine: EntryEngine
    var style: Style
    let device: TerminalDevice
    /// What the host asked for: a title, what to do with commands and accepted cards.
    private let settings: Settings
    private var editLine: OpaquePointer?
    /// The prompts as libedit draws them.
    let prompts = PromptTexts()
    /// A burst of refused keys prints one reason (the same rule as replay's transcript).
    var refusals = RefusalBurst()
    /// Why the prompt ends, once it is to end (after the output waiting, when there is some).
    private var ending: Ending?
    /// What the next dispatch or flush key finishes (`Step`).
    private var step = Step.none
    /// Key input: the terminal's bytes, decoded, queued, wiped.
    let reader: KeyReader
    /// What the terminal is and how to erase the live line on it.
    var terminal = TerminalState()
    /// The engine's view after the last key (what the line shows, unless a finished line does).
    var currentView: EntryView
    /// What libedit's buffer holds: the text last put there.
    var shown = ShownLine()
    /// The layout choices the prompts were last built for.
    var choice: Style.LayoutChoice?
    /// True when cardline draws the badge itself (`painter`), on every terminal that takes
    /// escape sequences and can clear a line's end; else libedit draws it as its right prompt.
    var drawsBadge = false
    /// Drawing: the badge.
    var painter = BadgePainter()
    /// Warnings waiting to be shown above the prompt (`warn`).
    var warnings: [String] = []
    /// The session's recording (`cardline --record`), told of every key the engine takes.
    private let recording: PromptRecording?

    /// The host's choices for the prompt, fixed when it starts.
    struct Settings {
        let title: String?
        let onCommand: (String) -> Void
        /// Receives each accepted card, whole, and says whether to go on.
        let onAccepted: (PaymentCard) -> CardPrompt.Receipt
        let loader: EntryEngine.RuleLoader?
        /// Whether Ctrl-C and a lone Esc end the prompt (one-shot use) rather than cancel the card.
        let endsOnCancel: Bool
    }

    /// What a key left for libedit's next call into the editor, once libedit has drawn the line.
    enum Step {
        case none
        /// Output to print below the line just drawn (the flush key: `flush`); `wipingName`:
        /// that line holds a name or postal code in clear, whose copies in libedit's buffers
        /// are wiped once it is drawn.
        case printing(String, wipingName: Bool)
        /// The field drawn masked (`drawMasked`) before a full clear or a suspend, which the
        /// next dispatch does.
        case drawnMasked(MaskedStep)
    }

    init(
        engine: EntryEngine, style: Style, device: TerminalDevice, title: String? = nil,
        onCommand: @escaping (String) -> Void = { _ in },
        onAccepted: @escaping (PaymentCard) -> CardPrompt.Receipt = { _ in .more },
        reloadingWith loader: EntryEngine.RuleLoader? = nil,
        timeout: Duration? = nil, endsOnCancel: Bool = false,
        chipReader: CardPrompt.Options.ChipReaderChoice? = nil, recording: PromptRecording? = nil
    ) {
        self.recording = recording
        reader = KeyReader(
            timeout: timeout, chip: chipReader.flatMap { ChipWatch($0, known: engine.rules.knownAIDs) })
        settings = Settings(
            title: title, onCommand: onCommand, onAccepted: onAccepted, loader: loader, endsOnCancel: endsOnCancel)
        self.engine = engine
        // `:help` and the Ctrl-D refusal name what Ctrl-C and Esc do here.
        self.engine.cancelEndsEntry = endsOnCancel
        self.style = style
        self.device = device
        currentView = engine.view
    }

    /// Why the prompt ended.
    enum Ending: Equatable {
        /// `:quit`, or Ctrl-D between cards.
        case quit
        /// The terminal closed or could not be read.
        case endOfInput
        /// `onAccepted` answered `.done` or `.failed`.
        case finished
        /// Ctrl-C or a lone Esc with `endsOnCancel`.
        case cancelled
        /// No key for the timeout.
        case timedOut
        /// The terminal could not be set up.
        case noEditor
    }

    deinit {
        if let editLine { el_end(editLine) }
    }

    /// Runs until `:quit`, Ctrl-D between cards, the end of input, or `onAccepted`
    /// returning false.
    func run() -> Ending {
        // libedit drops non-ASCII bytes without a character-type locale; the host's own
        // setting is put back when the prompt ends.
        let previousLocale = setlocale(LC_CTYPE, nil).map { String(cString: $0) }
        _ = Style.setCharacterLocale()
        defer { if let previousLocale { setlocale(LC_CTYPE, previousLocale) } }
        cl_signals_begin(fileno(device.input), fileno(device.output))
        defer { cl_signals_end() }
        guard let el = device.isStandard ? cl_init("cardline") : cl_init_files("cardline", device.input, device.output)
        else {
            return .noEditor
        }
        editLine = el
        // libedit puts its own saved settings back first, then cl_signals_end the original ones.
        defer {
            el_end(el)
            editLine = nil
        }
        // unsafe: libedit's C callbacks find the editor by its client data (not retained:
        // the editor outlives its EditLine, which `run` ends).
        cl_set_client_data(el, Unmanaged.passUnretained(self).toOpaque())
        Self.running = (el, Unmanaged.passUnretained(self))
        defer { Self.running = nil }
        cl_set_editor(el, "emacs")
        // Not EL_SIGNAL: cl_signals_begin handles signals for this process only.
        cl_set_tty_flag(el, "-d", "-isig")
        cl_set_prompt(
            el, { el in InteractiveEditor.with(el, nil) { editor, _ in editor.prompts.leftText } },
            PromptTexts.invisible)
        // cardline draws the badge, and the changed cells of a one-row line, where libedit can
        // be told the screen without drawing (`cl_refresh_silently`).
        drawsBadge = terminal.escapes && cl_terminal_string(el, "ce") != nil && cl_silent_refresh_ready() == 0
        if !drawsBadge {
            cl_set_rprompt(
                el, { el in InteractiveEditor.with(el, nil) { editor, _ in editor.prompts.rightText } },
                PromptTexts.invisible)
        }
        installBindings(el)
        cl_set_getcfn(el) { el, character in
            var given = Action.inputKey
            let status = InteractiveEditor.with(el, -1) { editor, el in editor.readCharacter(el, giving: &given) }
            if status == 1 { character?.pointee = given }  // pointer: libedit's out-parameter for the character read
            return status
        }
        terminal.columns = Int(cl_columns(fileno(device.output)))
        style.columns = terminal.columns
        engine.columns = terminal.columns
        recording?.resized(columns: terminal.columns)
        updatePrompts()
        terminal.lineTakes(rowsAboveCursor: 0)
        write(terminal.enterModes)
        defer { write(terminal.leaveModes) }

        if let title = settings.title { write(style.title(title) + "\n") }
        write(style.message(engine.help) + "\n")
        if let recording { write(style.message(recording.begin(engine.messages)) + "\n") }
        reader.startIdleClock()
        defer { reader.chip?.stop() }
        defer { recording?.finish() }
        while ending == nil {
            painter.forget()  // el_gets draws the line afresh
            var count: Int32 = 0
            let line = el_gets(el, &count)
            if line == nil && ending == nil {
                // End of input without our binding (stdin closed, read error): leave cleanly,
                // the card being entered overwritten (libedit's buffers are wiped as `el_end`
                // frees them).
                _ = engine.handle(.cancel)
                write("\n")
                return .endOfInput
            }
        }
        return ending ?? .quit
    }

    // MARK: - Key bindings

    enum Action: CaseIterable {
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
            case .input:
                return { el, _ in InteractiveEditor.with(el, UInt8(CC_ERROR)) { editor, el in editor.nextInput(el) } }
            case .flush:
                return { el, _ in InteractiveEditor.with(el, UInt8(CC_ERROR)) { editor, el in editor.flush(el) } }
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

    // MARK: - Reading the terminal (the method: InteractiveEditor+Typing.swift)

    /// The dispatch binding: takes the next queued input and acts on it.
    private func nextInput(_ el: OpaquePointer) -> UInt8 {
        if case .drawnMasked(let masked) = step {
            // libedit has drawn the field masked (`drawMasked`): now what it was drawn for.
            step = .none
            switch masked {
            case .clearScreen:
                // The field whole again in libedit's buffer, not drawn (CC_NORM): the clear
                // pushed next draws it in full on the cleared screen.
                replaceBuffer(el)
                el_push(el, "\u{0C}")
                painter.forget()
                return UInt8(CC_NORM)
            case .suspend:
                cl_suspend()
                write("\r")
                replaceBuffer(el)
                return redrawn(CC_REDISPLAY)
            }
        }
        if reader.timedOut {
            return end(
                .timedOut, saying: engine.messages.timedOut(milliseconds: reader.timeoutMilliseconds ?? 0), on: el)
        }
        if reader.resized {
            reader.resized = false
            // The rows above the cursor that the line took as drawn, at the old width.
            let rowsAboveDrawn = max(0, terminal.rowsAbove)
            el_resize(el)
            terminal.columns = Int(cl_columns(fileno(device.output)))
            style.columns = terminal.columns
            engine.columns = terminal.columns
            recording?.resized(columns: terminal.columns)
            guard terminal.escapes else {
                // A dumb terminal cannot clear; libedit's redraw starts a new line there.
                updatePrompts()
                replaceBuffer(el)
                return redrawn(CC_REDISPLAY)
            }
            // The old line is cleared, every row of it, before it is drawn afresh. A terminal
            // that reflows (tmux, VTE, kitty, iTerm2) has rewrapped it to the new width, the
            // cursor still at its end: shrunk, it takes more rows above the cursor than it was
            // drawn with, and clearing only the cursor's row would leave the label and the
            // number's first groups above the new prompt, to scroll into the history. One that
            // does not (xterm) keeps the rows as drawn, cut. Which one this is cannot be told,
            // so the clear starts at the higher of the two first rows: a number left behind is
            // worse than a row of earlier output erased when the guess overshoots (the upward
            // move stops at the screen's top row).
            let rowsAboveNow = rowsAboveCursor()
            write(terminal.eraseLine(rowsAbove: max(rowsAboveDrawn, rowsAboveNow)))
            updatePrompts()
            replaceBuffer(el)
            // libedit draws from here, the line's first column, having forgotten where it drew
            // before (`EL_REFRESH`); its own redisplay would first move up and clear the rows it
            // drew at the old width, counted from a cursor that is no longer where it thinks.
            cl_refresh(el)
            return redrawn(CC_REFRESH)
        }
        let chipEvents = reader.takeChipEvents()
        if !chipEvents.isEmpty { return takeChip(chipEvents, on: el) }
        if var swipe = reader.takeSwipe() {
            // The engine copies the number into its own storage; this copy is wiped.
            let drawn = perform(.swipe(swipe), on: el)
            swipe?.wipe()
            return drawn
        }
        guard let key = reader.next() else { return UInt8(CC_NORM) }
        do {
            if case .control(let byte) = key.base, byte == 0x1A, key.modifiers.isEmpty { return suspend(el) }
            if case .control(let byte) = key.base, byte == 0x0C, key.modifiers.isEmpty {
                // Ctrl-L: libedit's own clear-and-redraw, reached through the one binding
                // left to it; the line it draws is still the engine's. Terminals that keep a
                // cleared screen in their scrollback (tmux) keep the field as it was drawn:
                // masked first, whole again after the clear.
                if drawMasked(el, then: .clearScreen) {
                    el_push(el, "\u{1F}")  // the input key: `.clearScreen` once it is drawn
                    return redrawn(CC_REFRESH)
                }
                el_push(el, "\u{0C}")
                painter.forget()
                return UInt8(CC_NORM)
            }
            if case .paste = key.base {
                let keys = key.entryKeys
                return keys.isEmpty ? UInt8(CC_NORM) : perform(keys, pasted: true, on: el)
            }
            guard let entryKey = key.entryKey else { return UInt8(CC_NORM) }
            // One-shot use: Ctrl-C or a lone Esc (the decoder told it from a sequence by its
            // short timeout) ends the prompt.
            if settings.endsOnCancel && (entryKey == .cancel || key == TerminalKey(.escape)) {
                return end(.cancelled, saying: engine.messages.text(.promptCancelled), on: el)
            }
            return perform(entryKey, on: el)
        }
    }

    /// Ends the prompt with `reason`: the card being entered is cleared through the engine's
    /// cancel key (which overwrites its digits, name and postal code) and from libedit's
    /// buffers (`wipeEntry`) and the stack below this binding, the live field is erased from
    /// the screen (every row it takes) and `text` is shown in its place.
    private func end(_ reason: Ending, saying text: String, on el: OpaquePointer) -> UInt8 {
        _ = engine.handle(.cancel)
        currentView = engine.currentView()
        let rowsAbove = wipeEntry(el) ?? terminal.rowsAbove
        cl_wipe_stack(Self.stackWiped)
        // A dumb terminal cannot erase: the message goes on the next line.
        write(terminal.eraseLine(rowsAbove: rowsAbove))
        replaceBuffer(el, with: "")
        write(style.messageLines(Message(.error, text)).joined(separator: "\r\n") + "\r\n")
        step = .none
        ending = reason
        return UInt8(CC_EOF)
    }

    /// Ctrl-Z: the signal handler clears the live field and puts the terminal back before the
    /// shell's prompt appears; after `fg` the line is drawn again in full.
    private func suspend(_ el: OpaquePointer) -> UInt8 {
        // A caller that ignores SIGTSTP (a program embedding the prompt) does not want to stop.
        guard cl_can_suspend() == 1 else { return perform(.other("Ctrl-Z"), on: el) }
        // What the terminal shows while stopped (and may keep) holds the field masked.
        if drawMasked(el, then: .suspend) {
            el_push(el, "\u{1F}")
            return redrawn(CC_REFRESH)
        }
        cl_suspend()
        write("\r")
        return redrawn(CC_REDISPLAY)
    }

    /// What waits for libedit to have drawn the field masked: a full clear (which draws the
    /// field whole again), or a suspend.
    enum MaskedStep { case clearScreen, suspend }

    /// Before anything that can push the screen into a terminal's scrollback (a full clear, a
    /// suspend): puts the field masked in libedit's buffer, for the caller to return
    /// `CC_REFRESH` (libedit draws it) having pushed the keys that do `step` next. False, doing
    /// nothing, when masking hides nothing.
    private func drawMasked(_ el: OpaquePointer, then step: MaskedStep) -> Bool {
        // A terminal without escapes (TERM=dumb) cannot take back what it showed: the field
        // stays as typed there, and a masked copy would only add a line.
        guard terminal.escapes else { return false }
        let masked = currentView.maskedText
        guard masked != currentView.text else { return false }
        replaceBuffer(el, with: masked)
        self.step = .drawnMasked(step)
        return true
    }

    /// The running prompt's EditLine and editor (one prompt runs at a time in a process): a
    /// callback finds its editor here without an `el_get` for the client data (100
    /// instructions a call, two calls a key).
    nonisolated(unsafe) private static var running: (el: OpaquePointer, editor: Unmanaged<InteractiveEditor>)?

    /// Calls `body` with the editor of `el` (its client data), or returns `fallback` when it has
    /// none. The editor is not retained and released around the call (170 instructions a call):
    /// it outlives its EditLine (`run` ends it).
    @inline(__always)
    private static func with<Result>(
        _ el: OpaquePointer?, _ fallback: Result,
        _ body: (InteractiveEditor, OpaquePointer) -> Result
    ) -> Result {
        guard let el else { return fallback }
        // pointer: the editor from libedit's client data (set in `run`), unretained.
        let editor: Unmanaged<InteractiveEditor>
        if let running, running.el == el {
            editor = running.editor
        } else {
            guard let data = cl_client_data(el) else { return fallback }
            editor = Unmanaged<InteractiveEditor>.fromOpaque(data)  // pointer: as above
        }
        return editor._withUnsafeGuaranteedRef { body($0, el) }
    }

    /// The flush binding: prints the output a key left pending, below the line it drew.
    private func flush(_ el: OpaquePointer) -> UInt8 {
        guard case .printing(let output, let wipingName) = step else { return UInt8(CC_NORM) }
        step = .none
        // The line above the output is finished: its badge is drawn before the output. libedit,
        // drawing it as its right prompt, may have left its colour on (see `readCharacter`):
        // off, so that the output does not take it.
        if drawsBadge {
            device.wipeOutputBuffer()  // (libedit's drawing first: the badge is written past the stream)
            drawBadge()
        } else if style.colour {
            write("\u{1B}[0m")
        }
        if wipingName {
            // The finished line held a name or postal code in clear and is on screen: libedit's
            // copies are overwritten without drawing, and so is the stack below this binding,
            // where the key's handling (the engine, the views, the delivery) made its copies.
            wipeEntry(el, drawing: false)
            cl_wipe_stack(Self.stackWiped)
        }
        if ending != nil {
            // The card went to the caller, or the session ends: the output is the last thing shown.
            write(output)
            replaceBuffer(el, with: "")
            return UInt8(CC_EOF)
        }
        return printAbovePrompt(output, el)
    }

    /// What the chip reader's watcher said (`ChipWatch`): a reader found (the hint then says a
    /// card may be inserted or tapped, `EntryEngine.chipReaderAttached`), a card read (handed to
    /// the engine as `Key.chip`, as a swipe is: drawn masked from the start), or a read that
    /// failed (the engine's one message; the fields stay as they were).
    private func takeChip(_ events: [ReaderWatcher.Event], on el: OpaquePointer) -> UInt8 {
        var outcomes: [Outcome] = []
        for event in events {
            switch event {
            case .readers(let attached):
                guard attached != engine.chipReaderAttached else { continue }
                engine.chipReaderAttached = attached
                if attached && engine.field == .number && engine.activeIsEmpty {
                    outcomes.append(Outcome(messages: [engine.help]))
                }
            case .reading:
                continue
            case .read(var card):
                // The engine copies the number into its own storage; this copy is wiped.
                outcomes.append(handle(.chip(card)))
                card.wipe()
            case .failed:
                outcomes.append(handle(.chip(nil)))
            }
        }
        guard !outcomes.isEmpty else { return UInt8(CC_NORM) }
        return present(Outcome.combined(outcomes), on: el)
    }

    /// Hands keys to the engine as one burst (a paste is one burst: one refusal reason at most).
    /// The line libedit leaves is the field the burst started in; each later field it leaves
    /// (a paste's expiry) has its line put above the output, as a typed one leaves it.
    private func perform(_ keys: [Key], pasted: Bool, on el: OpaquePointer) -> UInt8 {
        var movedOn = false
        let outcomes = keys.map { key in
            let before = movedOn ? engine.currentView() : nil
            var outcome = handle(key, endingInput: false)
            if let before, outcome.fieldChanged {
                outcome.messages.insert(Message(.info, engine.finishedView(before: before).transcriptLine), at: 0)
            }
            movedOn = movedOn || outcome.fieldChanged
            return outcome
        }
        endRecordedInput(pasted: pasted)
        return present(.combined(outcomes), on: el)
    }

    /// Hands one key to the engine (`perform(_:pasted:on:)` without the arrays of a burst).
    private func perform(_ key: Key, on el: OpaquePointer) -> UInt8 {
        present(handle(key), on: el)
    }

    /// The one place the prompt hands the engine a key: the recording, if any, is told of it
    /// and, unless the key is part of a burst (`endingInput`), that the input ended with it.
    private func handle(_ key: Key, endingInput: Bool = true) -> Outcome {
        let outcome = engine.handle(key, reloadingWith: settings.loader)
        recording?.note(key, outcome, engine: engine)
        if endingInput { endRecordedInput(pasted: false) }
        return outcome
    }

    /// Tells the recording, if any, that the keys since the last input were one key or paste;
    /// a recording that stopped (its file could not be written) is said above the prompt, once.
    private func endRecordedInput(pasted: Bool) {
        guard let recording else { return }
        recording.endInput(pasted: pasted)
        if let stopped = recording.takeFailure(engine.messages) { warnings.append(stopped.text) }
    }

    /// Shows what a burst of keys did: the line, and any output above it.
    private func present(_ outcome: consuming Outcome, on el: OpaquePointer) -> UInt8 {
        var view = engine.currentView()
        // The view before the keys, moved out as the new one goes in.
        swap(&view, &currentView)
        let viewBefore = consume view
        if let command = outcome.command { settings.onCommand(command) }
        if let receipt = outcome.deliverAcceptedCard(to: settings.onAccepted, messages: engine.messages),
            receipt != .more
        {
            ending = .finished
        }
        if outcome.event == .quit {
            ending = ending ?? .quit
            if outcome.messages.isEmpty {
                replaceBuffer(el)
                write("\n")
                return UInt8(CC_EOF)
            }
        }

        // A key read with the one before it is part of its burst: one reason for the burst.
        let reason = refusals.reasonToShow(outcome, inBurst: reader.inBurst)
        if reason == nil && outcome.refusal != nil {
            replaceBuffer(el)
            return UInt8(CC_ERROR)  // the bell; the reason is already on screen
        }
        // The field is empty again (accepted, cancelled, emptied, a command run): nothing it
        // held stays in libedit's buffers.
        if currentView.text.isEmpty { _ = wipeEntry(el) }

        guard reason != nil || !outcome.messages.isEmpty || !warnings.isEmpty else {
            let promptBefore = prompts.left
            let textBefore = shown.text
            let promptChanged = updatePrompts()
            if let drawn = redrawInPlace(promptBefore: promptBefore, textBefore: textBefore, el) { return drawn }
            replaceBuffer(el)
            return redrawn(promptChanged ? promptRedraw : CC_REFRESH)
        }
        var lines: [String] = []
        if let reason { lines += style.messageLines(reason) }
        lines += outcome.messages.flatMap(style.messageLines)
        // Warnings that came while the key was handled (the command history could not be
        // written, say), above the prompt like the messages.
        lines += warnings.flatMap { style.messageLines(Message(.info, $0)) }
        warnings.removeAll()
        // First let libedit draw the line as it stands with this key applied (the digit that
        // completed the field), then print below it when the pushed flush key comes round. The
        // line left above is no longer the live field, so a number on it is masked.
        let finished = engine.finishedView(before: viewBefore)
        let promptChanged = updatePrompts(finished)
        replaceBuffer(el, with: finished.maskedText)
        // A name or postal code is left on screen as typed: libedit's copies of it are wiped
        // once it is drawn (`flush`).
        let wipingName = !finished.isCommand && (finished.field == .name || finished.field == .postalCode)
        // libedit redraws from the first row of the line it drew; when a long command wrapped
        // that line over several rows, as many blank rows keep it off the output.
        let extraRows = String(repeating: "\r\n", count: max(0, rows(text: finished.maskedText) - 1))
        step = .printing(
            (outcome.refusal != nil ? "\u{7}" : "") + "\r\n" + lines.joined(separator: "\r\n") + "\r\n" + extraRows,
            wipingName: wipingName)
        el_push(el, Action.flushKey)
        return redrawn(promptChanged ? promptRedraw : CC_REFRESH)
    }

}

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
///
/// Drawing costs little per key (issue 13). The prompt's text is built again only when the
/// label or hint shown changes. On a terminal with ANSI column addressing (xterm and its kin)
/// the badge is drawn by cardline, not as libedit's right prompt: libedit then draws only the
/// prompt and the field, so a key that only appends to the field goes through libedit's own
/// insert path (the key is pushed back to it, and libedit writes the character and nothing
/// else), and the badge is brought up to date by rewriting just the cells that changed
/// (`syncBadge`). Any other change replaces libedit's buffer and lets libedit redraw the
/// difference; the badge is then drawn whole, since libedit's redraw may have moved or
/// erased it.
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
    /// Keys read from the terminal and not yet handed to libedit (one array, kept from read
    /// to read), whether a resize waits before them, and whether the input has ended.
    private var keys: [TerminalKey] = []
    private var keyIndex = 0
    private var resized = false
    private var inputEnded = false
    /// The terminal's width, read at start and after each resize.
    private var columns = 80
    /// The engine's view after the last key (what the line shows, unless a finished line does).
    private var currentView: EntryView
    /// What libedit's buffer holds: the text last put there.
    private var shownText = ""
    /// The layout choices the prompts were last built for.
    private var choice: Style.LayoutChoice?
    /// The rows above the cursor that the signal handlers were last told to clear.
    private var leaveRowsAbove = -1
    /// True when cardline draws the badge itself (the terminal moves to a column with
    /// `ESC [ n G` and clears a line's end with `ESC [ K`); else libedit draws it as its right
    /// prompt.
    private var drawsBadge = false
    /// The badge wanted now: its cells and its colour (SGR parameters; nil without colour).
    private var badgeWanted: [UInt8] = []
    /// The cells `badgeWanted` takes.
    private var badgeWantedCells = 0
    /// The bytes and cells of the badge's start (` VISA`) at the head of `badgeWanted`; 0
    /// bytes when it does not hold it.
    private var badgeLogoBytes = 0
    private var badgeLogoCells = 0
    private var badgeColour: String?
    /// `ESC [ badgeColour m`, ready to write.
    private var badgeColourBytes: [UInt8] = []
    /// The columns `shownText` takes.
    private var shownWidth = 0
    /// The badge as cardline last drew it on the line's first row (an empty badge: none);
    /// nil when unknown, after libedit redrew the line.
    private var badgeOnScreen: (start: Int, cells: Int, colour: String?)?
    /// The text of `badgeOnScreen`, UTF-8 (kept apart from `badgeWanted`, so that neither
    /// array is shared and each key refills them in place).
    private var badgeTextOnScreen: [UInt8] = []
    /// Where `syncBadge` builds what it writes.
    private var badgeBytes: [UInt8] = []

    /// Bracketed paste on (`ESC [ ? 2004 h`) while the prompt runs; off, and the live field
    /// cleared, whenever it lets go of the terminal. Neither on a terminal without escape
    /// sequences (`escapes` false: TERM=dumb), where leaving only ends the line.
    private var enterModes: String { escapes ? "\u{1B}[?2004h" : "" }
    private var leaveModes: String { escapes ? "\r\u{1B}[J\u{1B}[?2004l" : "\r\n" }
    /// False on a terminal that takes no escape sequence but carriage return and newline
    /// (`Style.terminalUnderstandsEscapes`): cardline then writes none (libedit itself draws
    /// with carriage returns, backspaces and spaces there).
    private let escapes = Style.terminalUnderstandsEscapes()
    /// Warnings waiting to be shown above the prompt (`warn`).
    private var warnings: [String] = []
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

    /// The idle timeout in milliseconds (nil: none), and when it runs out (`monotonicMilliseconds`),
    /// moved on by every read that brings bytes; set once it has run out.
    private let timeoutMilliseconds: Int64?
    private var idleDeadline: Int64 = 0
    private var timedOut = false
    /// Whether Ctrl-C and a lone Esc end the prompt (one-shot use) rather than cancel the card.
    private let endsOnCancel: Bool

    init(engine: EntryEngine, style: Style, device: TerminalDevice, title: String? = nil,
         onCommand: @escaping (String) -> Void = { _ in },
         onAccepted: @escaping (PaymentCard) -> CardPrompt.Receipt = { _ in .more },
         reloadingWith loader: EntryEngine.RuleLoader? = nil,
         timeout: Duration? = nil, endsOnCancel: Bool = false) {
        timeoutMilliseconds = timeout.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
        self.endsOnCancel = endsOnCancel
        self.engine = engine
        // `:help` and the Ctrl-D refusal name what Ctrl-C and Esc do here.
        self.engine.cancelEndsEntry = endsOnCancel
        self.style = style
        self.device = device
        self.title = title
        self.onCommand = onCommand
        self.onAccepted = onAccepted
        self.loader = loader
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
        free(promptText)
        free(rightPromptText)
    }

    /// Runs until `:quit`, Ctrl-D between cards, the end of input, or `onAccepted`
    /// returning false.
    func run() -> Ending {
        // Every block freed from here on is zeroed first: Swift frees the strings that held the
        // field (views, display texts) without clearing them.
        cl_wipe_freed_memory()
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
        drawsBadge = cl_terminal_string(el, "ch").map { String(cString: $0) } == "\u{1B}[%i%p1%dG"
            && cl_terminal_string(el, "ce").map { String(cString: $0) } == "\u{1B}[K"
        if !drawsBadge {
            cl_set_rprompt(el, { el in InteractiveEditor.from(el)?.rightPromptText }, Self.invisible)
        }
        installBindings(el)
        cl_set_getcfn(el) { el, character in
            guard let editor = InteractiveEditor.from(el) else { return -1 }
            return editor.readCharacter(character)
        }
        columns = Int(cl_columns(fileno(device.output)))
        updatePrompts()
        cl_set_terminal_modes(enterModes, leaveModes)
        write(enterModes)
        defer { if escapes { write("\u{1B}[?2004l") } }

        if let title { write(style.title(title) + "\n") }
        write(style.message(Message(.help, engine.help)) + "\n")
        if let timeoutMilliseconds { idleDeadline = Self.monotonicMilliseconds() + timeoutMilliseconds }
        while !quitRequested {
            badgeOnScreen = nil  // el_gets draws the line afresh
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
        // libedit has just finished drawing. When it redraws only the changed cells of its
        // right prompt it leaves the badge's colour on (the reset at the span's end is
        // unchanged, so not sent), and the next digit it echoes would take that colour: reset
        // it here. When cardline draws the badge, it brings it up to date here, and resets
        // the colour after any redraw of libedit's.
        if drawsBadge {
            syncBadge()
        } else if style.colour {
            write("\u{1B}[0m")
        }
        // Everything drawn is written: the field's characters are not left in the buffer.
        device.wipeOutputBuffer()
        let fd = fileno(device.input)
        while keyIndex == keys.count && !resized {
            keys.removeAll(keepingCapacity: true)
            keyIndex = 0
            if inputEnded { return 0 }
            var timeout = decoder.isInPaste ? Self.pasteTimeout
                : decoder.isPending ? Self.escapeTimeout : decoder.isHoldingCutShort ? Self.cutShortTimeout : -1
            if timeoutMilliseconds != nil {
                // Idle time: the wait is cut at the deadline, which every read that brings bytes
                // moves on; a sequence or paste in progress is finished first.
                let left = max(0, idleDeadline - Self.monotonicMilliseconds())
                if left == 0 && timeout < 0 {
                    timedOut = true
                    break
                }
                timeout = timeout < 0 ? Int32(clamping: left) : min(timeout, Int32(clamping: left))
            }
            let ready = cl_wait_input(fd, timeout)
            if ready == 2 { resized = true; break }
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if ready == 0 {
                if decoder.isInPaste {
                    // A paste start with no end (typed by hand, or cut): end it, so keys work again.
                    keys += decoder.finish()
                } else if decoder.isPending {
                    keys += decoder.flush()
                } else {
                    decoder.forgetCutShort()
                }
                continue
            }
            let count = readBuffer.withUnsafeMutableBufferPointer { buffer in
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count > 0 {
                    if let timeoutMilliseconds { idleDeadline = Self.monotonicMilliseconds() + timeoutMilliseconds }
                    decoder.feed(UnsafeBufferPointer(rebasing: buffer[0..<count]), into: &keys)
                    // The keys typed are not left behind in the buffer.
                    explicit_bzero(buffer.baseAddress!, count)
                }
                return count
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return -1
            }
            if count == 0 {
                inputEnded = true
                keys += decoder.finish()
            }
        }
        character?.pointee = Action.inputKey
        return 1
    }

    /// The dispatch binding: takes the next queued input and acts on it.
    private func nextInput(_ el: OpaquePointer) -> UInt8 {
        if let step = maskedStep {
            // libedit has drawn the field masked (`drawMasked`): now what it was drawn for.
            maskedStep = nil
            switch step {
            case .clearScreen:
                // The field whole again in libedit's buffer, not drawn (CC_NORM): the clear
                // pushed next draws it in full on the cleared screen.
                replaceBuffer(el)
                el_push(el, "\u{0C}")
                badgeOnScreen = nil
                return UInt8(CC_NORM)
            case .suspend:
                cl_suspend()
                write("\r")
                replaceBuffer(el)
                return redrawn(CC_REDISPLAY)
            }
        }
        if timedOut {
            let seconds = Double(timeoutMilliseconds ?? 0) / 1000
            let amount = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
            return end(.timedOut, saying: "Timed out: no key for \(amount) second\(seconds == 1 ? "" : "s"); the card being entered was wiped", on: el)
        }
        if resized {
            resized = false
            // The rows above the cursor that the line took as drawn, at the old width.
            let rowsAboveDrawn = max(0, leaveRowsAbove)
            el_resize(el)
            columns = Int(cl_columns(fileno(device.output)))
            guard escapes else {
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
            let rowsAboveNow = rowsAboveCursor(columns: columns)
            let up = max(rowsAboveDrawn, rowsAboveNow)
            write("\r" + (up > 0 ? "\u{1B}[\(up)A" : "") + "\u{1B}[J")
            updatePrompts()
            replaceBuffer(el)
            // libedit draws from here, the line's first column, having forgotten where it drew
            // before (`EL_REFRESH`); its own redisplay would first move up and clear the rows it
            // drew at the old width, counted from a cursor that is no longer where it thinks.
            cl_refresh(el)
            return redrawn(CC_REFRESH)
        }
        guard keyIndex < keys.count else { return UInt8(CC_NORM) }
        let key = keys[keyIndex]
        keys[keyIndex] = TerminalKey(.control(0))  // the key's text is not kept in the queue
        keyIndex += 1
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
                badgeOnScreen = nil
                return UInt8(CC_NORM)
            }
            if case .paste = key.base {
                let keys = key.entryKeys
                return keys.isEmpty ? UInt8(CC_NORM) : perform(keys, on: el)
            }
            guard let entryKey = key.entryKey else { return UInt8(CC_NORM) }
            // One-shot use: Ctrl-C or a lone Esc (the decoder told it from a sequence by its
            // short timeout) ends the prompt.
            if endsOnCancel && (entryKey == .cancel || key == TerminalKey(.escape)) {
                return end(.cancelled, saying: "Cancelled: the card being entered was wiped", on: el)
            }
            return perform(entryKey, on: el)
        }
    }

    /// Ends the prompt with `reason`: the card being entered is cleared through the engine's
    /// cancel key (which overwrites its digits), the live field is erased from the screen (every
    /// row it takes) and `text` is shown in its place.
    private func end(_ reason: Ending, saying text: String, on el: OpaquePointer) -> UInt8 {
        _ = engine.handle(.cancel)
        currentView = engine.currentView()
        // A dumb terminal cannot erase: the message goes on the next line.
        write(escapes ? "\r" + (leaveRowsAbove > 0 ? "\u{1B}[\(leaveRowsAbove)A" : "") + "\u{1B}[J" : "\r\n")
        replaceBuffer(el, with: "")
        write(style.message(Message(.error, text)) + "\r\n")
        pendingOutput = nil
        quitRequested = true
        ending = reason
        return UInt8(CC_EOF)
    }

    /// Milliseconds of the monotonic clock, for the idle timeout.
    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Ctrl-Z: the signal handler clears the live field and puts the terminal back before the
    /// shell's prompt appears; after `fg` the line is drawn again in full.
    private func suspend(_ el: OpaquePointer) -> UInt8 {
        // A caller that ignores SIGTSTP (a program embedding the prompt) does not want to stop.
        guard cl_can_suspend() == 1 else { return perform([.other("Ctrl-Z")], on: el) }
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
    private enum MaskedStep { case clearScreen, suspend }
    private var maskedStep: MaskedStep?

    /// Before anything that can push the screen into a terminal's scrollback (a full clear, a
    /// suspend): puts the field masked in libedit's buffer, for the caller to return
    /// `CC_REFRESH` (libedit draws it) having pushed the keys that do `step` next. False, doing
    /// nothing, when masking hides nothing.
    private func drawMasked(_ el: OpaquePointer, then step: MaskedStep) -> Bool {
        // A terminal without escapes (TERM=dumb) cannot take back what it showed: the field
        // stays as typed there, and a masked copy would only add a line.
        guard escapes else { return false }
        let masked = currentView.maskedText
        guard masked != currentView.text else { return false }
        replaceBuffer(el, with: masked)
        maskedStep = step
        return true
    }

    private static func from(_ el: OpaquePointer?) -> InteractiveEditor? {
        guard let el, let data = cl_client_data(el) else { return nil }
        return Unmanaged<InteractiveEditor>.fromOpaque(data).takeUnretainedValue()
    }

    /// The flush binding: prints the output a key left pending, below the line it drew.
    private func flush(_ el: OpaquePointer) -> UInt8 {
        guard let output = pendingOutput else { return UInt8(CC_NORM) }
        pendingOutput = nil
        // The line above the output is finished: its badge is drawn before the output. libedit,
        // drawing it as its right prompt, may have left its colour on (see `readCharacter`):
        // off, so that the output does not take it.
        if drawsBadge { syncBadge() } else if style.colour { write("\u{1B}[0m") }
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
        let outcome = Outcome.combined(keys.map { engine.handle($0, reloadingWith: loader) })
        return present(outcome, on: el)
    }

    /// Hands one key to the engine (`perform(_:on:)` without the arrays of a burst).
    private func perform(_ key: Key, on el: OpaquePointer) -> UInt8 {
        let outcome = engine.handle(key, reloadingWith: loader)
        return present(outcome, on: el)
    }

    /// Shows what a burst of keys did: the line, and any output above it.
    private func present(_ outcome: consuming Outcome, on el: OpaquePointer) -> UInt8 {
        // The view before the keys, moved out as the new one goes in.
        var viewBefore = engine.currentView()
        swap(&viewBefore, &currentView)
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
        // A key read with the one before it is part of its burst: one reason for the burst.
        if let reason = refusals.reasonToShow(outcome, inBurst: keyIndex > 1) {
            lines.append(style.refusal(reason))
        } else if outcome.refusal != nil {
            replaceBuffer(el)
            return UInt8(CC_ERROR)  // the bell; the reason is already on screen
        }
        lines += outcome.messages.map(style.message)
        // Warnings that came while the key was handled (the command history could not be
        // written, say), above the prompt like the messages.
        lines += warnings.map { style.message(Message(.info, $0)) }
        warnings.removeAll()
        // The field is empty again (accepted, cancelled, emptied, a command run): nothing it
        // held stays in libedit's buffers.
        if currentView.text.isEmpty { wipeEntry(el) }

        guard !lines.isEmpty else {
            let promptChanged = updatePrompts()
            if !promptChanged, pushAppendedText(el) {
                // Only characters added at the end: libedit's own insert path writes them and
                // nothing else, and keeps its picture of the screen right.
                show(currentView.text)
                return UInt8(CC_NORM)
            }
            replaceBuffer(el)
            return redrawn(promptChanged ? promptRedraw : CC_REFRESH)
        }
        // First let libedit draw the line as it stands with this key applied (the digit that
        // completed the field), then print below it when the pushed flush key comes round. The
        // line left above is no longer the live field, so a number on it is masked.
        let finished = engine.finishedView(before: viewBefore)
        let promptChanged = updatePrompts(finished)
        replaceBuffer(el, with: finished.maskedText)
        // libedit redraws from the first row of the line it drew; when a long command wrapped
        // that line over several rows, as many blank rows keep it off the output.
        let extraRows = String(repeating: "\r\n", count: max(0, rows(text: finished.maskedText) - 1))
        pendingOutput = (outcome.refusal != nil ? "\u{7}" : "") + "\r\n" + lines.joined(separator: "\r\n") + "\r\n" + extraRows
        el_push(el, Action.flushKey)
        return redrawn(promptChanged ? promptRedraw : CC_REFRESH)
    }

    /// How libedit redraws after the left prompt changed. With colour, libedit keeps each of
    /// the prompt's escape sequences together with the character after it as one cell, and
    /// tells such cells apart by their place in the prompt, not by what they hold: redrawing
    /// only the difference would leave the old character there (`Card number:(#### …): `
    /// when the format hint came or went). The whole line is drawn again instead.
    private var promptRedraw: Int32 { style.colour ? CC_REDISPLAY : CC_REFRESH }

    /// Shows `text` above the prompt, after the output of the key being handled, and draws
    /// the prompt again under it.
    func warn(_ text: String) { warnings.append(text) }

    /// Pushes to libedit what the engine's text adds at the end of its buffer, when that is all
    /// that changed and it is one or two printable ASCII characters (a digit, or a group's
    /// space and a digit); false, pushing nothing, otherwise.
    private func pushAppendedText(_ el: OpaquePointer) -> Bool {
        guard drawsBadge else { return false }
        let pushed: Bool? = currentView.text.utf8.withContiguousStorageIfAvailable { text in
            shownText.utf8.withContiguousStorageIfAvailable { shown in
                guard text.count > shown.count, text.count <= shown.count + 2,
                      memcmp(text.baseAddress!, shown.baseAddress!, shown.count) == 0 else { return false }
                let appended = UnsafeBufferPointer(rebasing: text[shown.count...])
                guard appended.allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
                return withUnsafeTemporaryAllocation(of: wchar_t.self, capacity: 3) { characters in
                    characters.initialize(repeating: 0)
                    for (index, byte) in appended.enumerated() { characters[index] = wchar_t(byte) }
                    el_wpush(el, characters.baseAddress)
                    // The digits pushed are not left behind in the buffer.
                    explicit_bzero(characters.baseAddress!, 3 * MemoryLayout<wchar_t>.stride)
                    return true
                }
            } ?? false
        }
        return pushed == true
    }

    /// `result`, for a key after which libedit redraws the line: the badge is then drawn whole.
    private func redrawn(_ result: Int32) -> UInt8 {
        badgeOnScreen = nil
        return UInt8(result)
    }

    /// Writes output below the current line and has libedit redraw the active field under it.
    private func printAbovePrompt(_ output: String, _ el: OpaquePointer) -> UInt8 {
        write(output)
        updatePrompts()
        replaceBuffer(el)
        return redrawn(CC_REDISPLAY)
    }

    /// Makes libedit's buffer equal the engine's display text, cursor at the end.
    private func replaceBuffer(_ el: OpaquePointer, with text: String? = nil) {
        if let info = el_wline(el)?.pointee {
            el_cursor(el, Int32(info.lastchar - info.cursor))
            el_deletestr(el, Int32(info.lastchar - info.buffer))
        }
        let text = style.drawn(text ?? currentView.text)
        if !text.isEmpty { el_insertstr(el, text) }
        show(text)
    }

    /// Notes that libedit's buffer holds `text`.
    private func show(_ text: String) {
        shownText = text
        defer {
            wipeScalars = max(wipeScalars, shownScalars)
            wipeCells = max(wipeCells, (choice?.promptWidth ?? 0) + shownScalars)
        }
        let ascii: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 >= 0x7F }) else { return false }
            shownWidth = bytes.count
            shownScalars = bytes.count
            return true
        }
        if ascii != true {
            shownWidth = 0
            shownScalars = 0
            for scalar in text.unicodeScalars {
                shownWidth += scalar.value < 0x7F ? 1 : max(0, Int(cl_wcwidth(Int32(bitPattern: scalar.value))))
                shownScalars += 1
            }
        }
        updateLeaveModes()
    }

    /// The Unicode scalars `shownText` holds.
    private var shownScalars = 0

    // MARK: - Wiping

    /// The most characters libedit's line has held, and the most cells prompt and line have
    /// taken on screen, since the last wipe: what the filler must cover.
    private var wipeScalars = 0
    private var wipeCells = 0

    /// Overwrites what libedit keeps of the field: call when an entry ends (accepted,
    /// cancelled, emptied, timed out) or the field is left empty, from inside a key binding,
    /// before the buffer is given its next text (`replaceBuffer`). libedit has no wipe call:
    /// its line buffer (and the wide copy `el_insertstr` decodes into) is overwritten by a
    /// filler of spaces as long as anything the line held, and its two screen buffers by
    /// having it draw that filler (`EL_REFRESH`, from the line's first column) over every cell
    /// the prompt and line took; the caller's next refresh draws the real text over the
    /// filler. The terminal's output buffer is wiped as each key is read, and freed heap as it
    /// is freed (`cl_wipe_freed_memory`). Nothing is drawn on a terminal that cannot clear a
    /// line's end or move up (`TERM=dumb`): there only the line buffer is overwritten.
    func wipeEntry(_ el: OpaquePointer) {
        let promptWidth = choice?.promptWidth ?? 0
        let filler = max(wipeScalars, wipeCells - promptWidth)
        guard filler > 0 else { return }
        let rowsUp = rows(text: shownText) - 1
        let canRedraw = escapes && cl_terminal_string(el, "ce") != nil && (rowsUp == 0 || cl_terminal_string(el, "up") != nil)
        replaceBuffer(el, with: String(repeating: " ", count: filler))
        if canRedraw {
            // libedit's cursor is at the end of the line (where cardline keeps it): to the
            // line's first column, where a full redraw starts.
            write("\r" + (rowsUp > 0 ? "\u{1B}[\(rowsUp)A" : ""))
            cl_refresh(el)
            badgeOnScreen = nil
        }
        replaceBuffer(el, with: "")
        wipeScalars = 0
        wipeCells = 0
        device.wipeOutputBuffer()
    }

    /// Tells the signal handlers what to clear: every row the line takes, the cursor being on
    /// its last.
    private func updateLeaveModes() {
        let rowsAbove = rowsAboveCursor(columns: columns)
        guard rowsAbove != leaveRowsAbove else { return }
        leaveRowsAbove = rowsAbove
        guard escapes else { return }
        cl_set_terminal_modes(enterModes, "\r" + (rowsAbove > 0 ? "\u{1B}[\(rowsAbove)A" : "") + "\u{1B}[J\u{1B}[?2004l")
    }

    /// The rows above the cursor (at the end of the line, where cardline keeps it) that the
    /// prompt and `shownText` take on a terminal `columns` wide.
    private func rowsAboveCursor(columns: Int) -> Int {
        Style.Layout.rows(promptWidth: choice?.promptWidth ?? 0, scalars: shownScalars, columns: columns) - 1
    }

    /// The rows a line holding `text` takes with the current prompt.
    private func rows(text: String) -> Int {
        Style.Layout.rows(promptWidth: choice?.promptWidth ?? 0, text: text, columns: columns)
    }

    /// Lays out the prompts for the engine's current view and builds again what changed; true
    /// when the left prompt's text changed.
    @discardableResult
    private func updatePrompts() -> Bool { updatePrompts(currentView) }

    /// Lays out the prompts for `view` and builds again what changed; true when the left
    /// prompt's text changed.
    @discardableResult
    private func updatePrompts(_ view: EntryView) -> Bool {
        let next = style.layoutChoice(view, columns: columns)
        let promptChanged: Bool
        if let choice {
            promptChanged = next.label != choice.label || next.hint != choice.hint || promptText == nil
        } else {
            promptChanged = true
        }
        if promptChanged {
            free(promptText)
            promptText = strdup(invisibleEscapes(style.prompt(next)))
        }
        if drawsBadge {
            if let progress = next.progress {
                // The badge's start (` VISA`) is kept while the logo stays; the progress after it
                // is written afresh.
                if view.logo != badgeLogo || badgeLogoBytes == 0 {
                    badgeWanted.removeAll(keepingCapacity: true)
                    badgeLogoCells = Style.appendBadgeStart(logo: style.drawn(view.logo), to: &badgeWanted)
                    badgeLogoBytes = badgeWanted.count
                } else {
                    badgeWanted.removeSubrange(badgeLogoBytes...)
                }
                badgeWantedCells = badgeLogoCells + Style.appendBadgeEnd(progress: progress, to: &badgeWanted)
            } else {
                badgeWanted.removeAll(keepingCapacity: true)
                badgeWantedCells = 0
                badgeLogoBytes = 0
            }
            if view.logo != badgeLogo || badgeColourBytes.isEmpty {
                badgeColour = style.colour ? Style.badgeColour(view.logo) : nil
                badgeColourBytes = badgeColour.map { [0x1B, 0x5B] + Array($0.utf8) + [0x6D] } ?? []
            }
        } else if next != choice || rightPromptText == nil || view.logo != badgeLogo {
            var badgeView = view
            badgeView.progress = next.progress ?? ""
            free(rightPromptText)
            rightPromptText = strdup(invisibleEscapes(next.progress == nil ? "" : style.badge(badgeView)))
        }
        badgeLogo = view.logo
        choice = next
        return promptChanged
    }

    /// The logo the right prompt was last built for.
    private var badgeLogo = ""

    /// Brings the badge on the line's first row up to date: only the cells that changed when
    /// it keeps its place, else cleared from the end of the text and drawn whole. The cursor is
    /// left where libedit keeps it, at the end of the text.
    private func syncBadge() {
        let end = (choice?.promptWidth ?? 0) + shownWidth
        guard end < columns else {
            // A wrapped line: the first row is all text, and a badge is left out (`layout`).
            badgeOnScreen = (columns, 0, nil)
            badgeTextOnScreen.removeAll(keepingCapacity: true)
            return
        }
        let start = badgeWanted.isEmpty ? columns : columns - badgeWantedCells - 2
        var out = badgeBytes
        badgeBytes = []
        out.removeAll(keepingCapacity: true)
        defer { badgeBytes = out }
        if let shown = badgeOnScreen, shown.start == start, shown.cells == badgeWantedCells, shown.colour == badgeColour {
            guard badgeTextOnScreen != badgeWanted else { return }
            // The logo and progress are rewritten whole (`VISA 12/16`, not just `2`), so the
            // terminal's stream always holds the badge as it reads; the spaces around them
            // stay.
            Self.appendColumn(start + 1, to: &out)
            appendBadge(badgeWanted[1..<(badgeWanted.count - 1)], to: &out)
        } else {
            // After a redraw of libedit's, its colour may be left on (it redraws only the
            // changed cells of the prompt): off before anything is cleared or drawn.
            if badgeOnScreen == nil && style.colour { out += [0x1B, 0x5B, 0x6D] }
            let clearFrom = max(end, min(badgeOnScreen?.start ?? end, start))
            if clearFrom != end { Self.appendColumn(clearFrom, to: &out) }
            out += [0x1B, 0x5B, 0x4B]  // ESC [ K
            if !badgeWanted.isEmpty {
                if start != clearFrom { Self.appendColumn(start, to: &out) }
                appendBadge(badgeWanted[...], to: &out)
            }
        }
        Self.appendColumn(end, to: &out)
        device.write(bytes: out)
        badgeOnScreen = (start, badgeWantedCells, badgeColour)
        badgeTextOnScreen.removeAll(keepingCapacity: true)
        badgeTextOnScreen.append(contentsOf: badgeWanted)
    }

    /// Badge text in the badge's colour, then the colour off.
    private func appendBadge(_ text: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out += badgeColourBytes
        out += text
        if badgeColour != nil { out += [0x1B, 0x5B, 0x6D] }  // ESC [ m
    }

    /// `ESC [ n G`: to column `column` (counted from 0).
    private static func appendColumn(_ column: Int, to out: inout [UInt8]) {
        out.append(0x1B)
        out.append(0x5B)
        let number = column + 1
        var divisor = 1
        while divisor * 10 <= number { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(48 + number / divisor % 10))
            divisor /= 10
        }
        out.append(0x47)
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

import CEditLine
import CardKit
import CardReader

#if canImport(Glibc)
    import Glibc
#endif

/// Key input for `InteractiveEditor`: reads the terminal's bytes and turns them into whole keys
/// with `KeyDecoder` (an escape sequence one named key, a bracketed paste one burst), waits
/// out the pauses inside a sequence or paste, keeps the idle timeout, and notices a resize.
/// It owns the bytes read and the keys queued, and leaves none of them behind: the read buffer
/// is wiped after each read and each key is blanked in the queue as it is taken. A read that
/// starts with `%` or `;` is a card reader's swipe: its bytes go to `SwipeCollector`, not the
/// decoder, and come out as one `Key.swipe`.
final class KeyReader {
    /// Turns the terminal's bytes into keys.
    private var decoder = KeyDecoder()
    /// Where the terminal's bytes are read, wiped after each read.
    private var readBuffer = [UInt8](repeating: 0, count: KeyReader.readSize)
    private static let readSize = 4096
    /// Keys read from the terminal and not yet taken (one array, kept from read to read).
    private var keys: [TerminalKey] = []
    private var keyIndex = 0
    /// A resize waits before the queued keys.
    var resized = false
    /// The input has ended (the terminal closed): what is queued is all that comes.
    private var inputEnded = false
    /// The idle timeout in milliseconds (nil: none), and when it runs out (`monotonicMilliseconds`),
    /// moved on by every read that brings bytes; `timedOut` is set once it has run out.
    let timeoutMilliseconds: Int64?
    private var idleDeadline: Int64 = 0
    private(set) var timedOut = false

    /// How long an escape sequence may pause before what came is taken as it stands (a lone
    /// Esc, an Alt chord): long enough for a slow link, short enough not to be felt.
    private static let escapeTimeout: Int32 = 100
    /// How long after such a pause the next bytes may still be the rest of the sequence (a key
    /// split by a slow link), rather than keys of their own.
    private static let cutShortTimeout: Int32 = 1000
    /// How long a bracketed paste may pause before it is taken as ended.
    private static let pasteTimeout: Int32 = 3000

    /// The swipe being collected (a read that starts with `%` or `;`, in every field and state:
    /// a `:` command, accessible mode after other characters; the engine refuses it but at an
    /// empty number) (`SwipeCollector`), never echoed, never decoded into keys.
    private var swipe = SwipeCollector()

    /// The chip reader watched while keys are awaited (`ChipWatch`), if any; started at the
    /// first wait, after the prompt's first draw.
    let chip: ChipWatch?
    /// The watcher has events waiting (`takeChipEvents`).
    private var chipWaiting = false

    init(timeout: Duration?, chip: ChipWatch? = nil) {
        self.chip = chip
        timeoutMilliseconds = timeout.map {
            $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000
        }
    }

    /// Starts the idle clock (when the prompt first waits for a key).
    func startIdleClock() {
        if let timeoutMilliseconds { idleDeadline = Self.monotonicMilliseconds() + timeoutMilliseconds }
    }

    /// The key taken last was read together with the one before it (part of its burst).
    var inBurst: Bool { keyIndex > 1 }

    /// Waits until a key is queued, a resize came, or the idle timeout ran out: 1 then; 0 at
    /// the end of input; -1 on a read error.
    func wait(on fd: Int32) -> Int32 {
        chip?.startOnce()
        while keyIndex == keys.count && !resized && !swipe.isRead && !chipWaiting {
            // Emptied from the end (the keys were blanked as taken): `removeAll(keepingCapacity:)`
            // cost 150 instructions for the one key a digit leaves.
            while keys.popLast() != nil {}
            keyIndex = 0
            if inputEnded { return 0 }
            var timeout =
                swipe.isCollecting
                ? SwipeCollector.gapTimeout
                : decoder.isInPaste
                    ? Self.pasteTimeout
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
            let ready = cl_wait_inputs(fd, chip?.wakeDescriptor ?? -1, timeout)
            if ready == 2 {
                resized = true
                break
            }
            if ready == 3 {
                chip?.drainWakes()
                chipWaiting = true
                break
            }
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if ready == 0 {
                if swipe.isCollecting {
                    // A pause inside a swipe: a lone sentinel was typed by hand (the key it is),
                    // anything longer is a swipe cut short.
                    if let byte = swipe.endWithoutEnter() { keys += decoder.feed([byte]) }
                } else if decoder.isInPaste {
                    // A paste start with no end (typed by hand, or cut): end it, so keys work again.
                    keys += decoder.finish()
                } else if decoder.isPending {
                    keys += decoder.flush()
                } else {
                    decoder.forgetCutShort()
                }
                continue
            }
            let count = read(fd)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return -1
            }
            if count == 0 {
                inputEnded = true
                if swipe.isCollecting, let byte = swipe.endWithoutEnter() { keys += decoder.feed([byte]) }
                keys += decoder.finish()
            }
        }
        return 1
    }

    /// One read of the terminal into the queue; the bytes read are wiped at once.
    private func read(_ fd: Int32) -> Int {
        let count = Glibc.read(fd, &readBuffer, Self.readSize)
        guard count > 0 else { return count }
        if let timeoutMilliseconds { idleDeadline = Self.monotonicMilliseconds() + timeoutMilliseconds }
        // A swipe takes the bytes up to its Enter; the decoder reads the rest where they were
        // read (no copy is left unwiped).
        var start = 0
        if swipe.isCollecting
            || (keyIndex == keys.count && !decoder.isPending && !decoder.isInPaste
                && !decoder.isHoldingCutShort && TrackData.isStartSentinel(readBuffer[0]))
        {
            start = swipe.collect(readBuffer, count: count)
        }
        if start < count {
            // (The bytes read decoded in place; the buffer is wiped just after.)
            decoder.feed(readBuffer.span.extracting(start..<count), into: &keys)
        }
        explicit_bzero(&readBuffer, count)
        return count
    }

    /// The swipe read, if one is waiting: it comes before the queued keys (which were read after
    /// it). `.swipe(nil)` for one that could not be read. The caller wipes the track data once
    /// the engine has taken it.
    func takeSwipe() -> TrackData?? { swipe.take() }

    /// What the chip reader's watcher reported since the last call (empty when nothing).
    func takeChipEvents() -> [ReaderWatcher.Event] {
        guard chipWaiting, let chip else { return [] }
        chipWaiting = false
        return chip.watcher.takeEvents()
    }

    /// The next queued key, taken (its text is not kept in the queue); nil when none is.
    func next() -> TerminalKey? {
        guard keyIndex < keys.count else { return nil }
        let key = keys[keyIndex]
        keys[keyIndex] = TerminalKey(.control(0))
        keyIndex += 1
        return key
    }

    /// Milliseconds of the monotonic clock, for the idle timeout.
    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}

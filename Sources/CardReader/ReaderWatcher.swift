import CPCSC
import CardChip
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the PC/SC readers on a thread of its own while the prompt waits for keys, and reads
/// a card when one is inserted or tapped. The prompt is told by a byte on `wakeDescriptor`,
/// then takes what happened with `takeEvents()`; typing is never blocked.
///
/// Each read runs on a thread of its own with a time limit (`timeLimit`): pcsc-lite's
/// SCardTransmit has none, and a mute card would hold it. A read past the limit is reported
/// failed and left to end by itself (its card wiped, its result dropped); the watcher goes on
/// with its own context, so the next card is read once the mute one is removed.
///
/// Without libpcsclite, without pcscd or without a reader, it reports no reader and keeps
/// looking (every `retryInterval`), saying nothing.
public final class ReaderWatcher: Sendable {
    /// What the prompt hears.
    public enum Event: Sendable {
        /// Whether a reader (the one named, or any) is attached: the first time it is known,
        /// and whenever that changes.
        case readers(Bool)
        /// A card was inserted or tapped; it is being read.
        case reading
        /// The card was read. The receiver wipes it (`ChipCard.wipe()`) once the engine has it.
        case read(ChipCard)
        /// The card could not be read (removed mid-read, mute past the time limit, an answer
        /// that ends the flow, a reader or pcscd gone during the read).
        case failed
    }

    /// The reader to use (`--reader`, `CARDLINE_READER`); nil for any.
    public let reader: String?
    let known: [ChipReadFlow.KnownAID]
    let wakeDescriptor: Int32
    /// The longest a read may take, in milliseconds.
    let timeLimit: Int32
    static let retryInterval: Int32 = 2000
    /// pcsc-lite's pseudo-reader whose state changes when a reader is attached or removed.
    static let notificationReader = "\\\\?PnP?\\Notification"

    private struct State: Sendable {
        var events: [Event] = []
        var stopped = false
        var context: Int?
        var hadReaders: Bool?
    }
    private let state = Mutex(State())
    /// Written to by `stop()`, so the watcher's pauses between attempts end at once.
    private let stopPipe: (read: Int32, write: Int32)

    /// A watcher for `reader` (nil: any) that reads with the rules' `known` AIDs and writes a
    /// byte to `wakeDescriptor` (non-blocking) whenever it has an event.
    public init(reader: String?, known: [ChipReadFlow.KnownAID], wakeDescriptor: Int32, timeLimit: Int32 = 10_000) {
        self.reader = reader
        self.known = known
        self.wakeDescriptor = wakeDescriptor
        self.timeLimit = timeLimit
        stopPipe = makePipe(nonBlocking: true)
    }

    /// (The wake descriptor is the caller's to close, once `stop()` has returned.)
    deinit {
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// Starts watching; false when the library cannot be loaded or no thread started (then
    /// there is nothing to watch, and nothing is said).
    @discardableResult
    public func start() -> Bool {
        guard PCSC.isLoaded else { return false }
        return startThread { self.watch() }  // (the thread holds the watcher until its loop ends)
    }

    /// Stops watching: the watcher's wait is cancelled (SCardCancel) and its loop ends.
    public func stop() {
        let context = state.withLock { state in
            state.stopped = true
            return state.context
        }
        if let context { _ = cl_pcsc_cancel(context) }
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// The events since the last call, oldest first.
    public func takeEvents() -> [Event] {
        state.withLock { state in
            defer { state.events.removeAll() }
            return state.events
        }
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    /// Queues `event` and wakes the prompt, under the lock: once `stop()` has returned, the
    /// wake descriptor is never written again (its reader may close it).
    private func post(_ event: Event) {
        state.withLock { state in
            if case .readers(let present) = event {
                guard state.hadReaders != present else { return }
                state.hadReaders = present
            }
            guard !state.stopped else { return }
            state.events.append(event)
            var byte: UInt8 = 1
            _ = write(wakeDescriptor, &byte, 1)
        }
    }

    /// Waits `milliseconds`, or less when `stop()` is called.
    private func pause(_ milliseconds: Int32) {
        var descriptor = pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)
    }

    // MARK: - The watcher's thread

    private func watch() {
        while !stopped {
            guard let context = try? PCSC.Context() else {
                post(.readers(false))
                pause(Self.retryInterval)
                continue
            }
            state.withLock { $0.context = context.handle }
            watchReaders(with: context)
            state.withLock { $0.context = nil }
            if !stopped { pause(Self.retryInterval) }
        }
    }

    /// Watches with one context until it fails (pcscd stopped or restarted) or `stop()`.
    private func watchReaders(with context: PCSC.Context) {
        var known: [String: UInt] = [:]
        var notification = UInt(CL_SCARD_STATE_UNAWARE)
        var firstLook = true
        while !stopped {
            var names: [String]
            do throws(PCSC.Status) {
                names = try context.readerNames()
            } catch {
                guard error == .noReaders else { return }
                names = []
            }
            if let reader { names = names.filter { $0 == reader } }
            names = Array(names.prefix(Int(CL_PCSC_MOST_READERS) - 1))
            post(.readers(!names.isEmpty))
            let watched = names + [Self.notificationReader]
            var states = names.map { known[$0] ?? UInt(CL_SCARD_STATE_UNAWARE) } + [notification]
            let before = states
            let atrs: [[UInt8]]
            do throws(PCSC.Status) {
                atrs = try context.wait(watched, current: &states, timeout: firstLook ? 0 : 0xFFFF_FFFF)
            } catch {
                if error == .timeout { continue }
                return  // cancelled, or pcscd gone: the caller decides
            }
            notification = states[names.count]
            known = [:]
            for (index, name) in names.enumerated() {
                let now = states[index] & ~UInt(CL_SCARD_STATE_CHANGED)
                known[name] = now
                let present = now & UInt(CL_SCARD_STATE_PRESENT) != 0
                let wasPresent = before[index] & UInt(CL_SCARD_STATE_PRESENT) != 0
                // A card already in a reader when the prompt starts is not read: only one
                // inserted or tapped while it waits.
                if present, !wasPresent, !firstLook {
                    read(in: name, atr: atrs[index], mute: now & UInt(CL_SCARD_STATE_MUTE) != 0)
                }
            }
            firstLook = false
        }
    }

    /// Reads the card in `name` on a thread of its own, for at most `timeLimit`.
    private func read(in name: String, atr: [UInt8], mute: Bool) {
        post(.reading)
        guard !mute else {
            post(.failed)
            return
        }
        let job = ReadJob(reader: name, atr: atr, known: known)
        guard job.start() else {
            post(.failed)
            return
        }
        var descriptor = pollfd(fd: job.done.read, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeLimit)
        if ready > 0, var card = job.take() {
            if stopped { card.wipe() } else { post(.read(card)) }
        } else {
            job.abandon()
            post(.failed)
        }
    }
}

/// One card read on a thread of its own (`PCSC.readCard`), its result taken by the watcher or,
/// once abandoned, wiped.
private final class ReadJob: Sendable {
    let reader: String
    let atr: [UInt8]
    let known: [ChipReadFlow.KnownAID]
    let done: (read: Int32, write: Int32)
    private let result = Mutex<(card: ChipCard?, abandoned: Bool, finished: Bool)>((nil, false, false))

    init(reader: String, atr: [UInt8], known: [ChipReadFlow.KnownAID]) {
        self.reader = reader
        self.atr = atr
        self.known = known
        done = makePipe(nonBlocking: false)
    }

    deinit {
        close(done.read)
        close(done.write)
    }

    func start() -> Bool {
        guard done.read >= 0 else { return false }
        return startThread { self.run() }  // (the thread holds the job until the read ends)
    }

    private func run() {
        var card = PCSC.readCard(in: reader, atr: atr, known: known)
        let keep = result.withLock { result -> Bool in
            result.finished = true
            guard !result.abandoned else { return false }
            result.card = card
            return true
        }
        if !keep { card?.wipe() }
        var byte: UInt8 = 1
        _ = write(done.write, &byte, 1)
    }

    /// The card read, once the thread has finished; nil when it could not be read.
    func take() -> ChipCard? {
        result.withLock { result in
            defer { result.card = nil }
            return result.card
        }
    }

    /// The watcher stops waiting: a result that comes later is wiped.
    func abandon() {
        result.withLock { result in
            result.abandoned = true
            result.card?.wipe()
            result.card = nil
        }
    }
}

/// A pipe whose ends close on exec (the write end non-blocking when asked); -1s when none
/// could be made.
func makePipe(nonBlocking: Bool) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return (-1, -1) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    if nonBlocking { _ = fcntl(ends[1], F_SETFL, O_NONBLOCK) }
    return (ends[0], ends[1])
}

/// Runs `body` on a thread of its own (`cl_start_thread`), which holds it, and what it holds,
/// until it returns; false when no thread could be started (`body` is then dropped unrun).
func startThread(_ body: @escaping () -> Void) -> Bool {
    final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    // (Unmanaged: the reference is handed to the thread, which releases it.)
    let retained = Unmanaged.passRetained(Body(body))
    let started = cl_start_thread(
        { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        }, retained.toOpaque())
    if started != 0 { retained.release() }
    return started == 0
}

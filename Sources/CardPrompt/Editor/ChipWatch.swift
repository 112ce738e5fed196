import CardChip
import CardReader

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt's chip reader: a `ReaderWatcher` on its own thread and the pipe that wakes the
/// prompt's wait for keys (`KeyReader`) when it has something to say. Started at the first
/// wait for a key, so the prompt is drawn before any reader is looked for; stopped when the
/// prompt ends (`stop`, SCardCancel on the watcher's wait).
final class ChipWatch {
    let watcher: ReaderWatcher
    /// Read by the prompt's wait; written (one byte an event) by the watcher.
    let wakeDescriptor: Int32
    private let wakeWriter: Int32
    private var started = false

    /// A watch of `choice`'s reader(s), reading with `known` AIDs; nil when no pipe can be made.
    init?(_ choice: CardPrompt.Options.ChipReaderChoice, known: [ChipReadFlow.KnownAID]) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (wakeDescriptor, wakeWriter) = (ends[0], ends[1])
        var name: String?
        if case .named(let reader) = choice { name = reader }
        watcher = ReaderWatcher(reader: name, known: known, wakeDescriptor: wakeWriter)
    }

    deinit {
        // After `stop()` the watcher writes no more (`ReaderWatcher.post` writes under the lock
        // `stop()` takes), so both ends can go.
        watcher.stop()
        close(wakeDescriptor)
        close(wakeWriter)
    }

    /// Starts the watcher the first time it is called.
    func startOnce() {
        guard !started else { return }
        started = true
        watcher.start()
    }

    /// Empties the wake pipe.
    func drainWakes() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Stops the watcher; a card it reads after this is wiped, not reported.
    func stop() { watcher.stop() }
}

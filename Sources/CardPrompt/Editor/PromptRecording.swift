import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt's recording (`CardPrompt.Options.recording`, `cardline --record`): a
/// `SessionRecorder` that the editor tells of every key it hands the engine and every resize,
/// and the host's file it writes into. The file holds the finished cards' script and, after
/// them, the card in progress as far as it has come (`SessionRecorder.unfinished`, rewritten
/// after each key), so that a program killed mid-card leaves its keys so far. When a write
/// fails, the recording stops (the prompt says so once) and the prompt goes on.
final class PromptRecording {
    private var recorder: SessionRecorder
    private let recording: CardPrompt.Options.Recording
    /// Where the finished cards' script ends in the file.
    private var finishedEnd: off_t
    /// Why the sink failed, once it has: nothing more is recorded.
    private(set) var failure: String?
    /// The failure is to be said (`takeFailure`).
    private var failureUnsaid = false

    /// A recording of a prompt whose engine starts as `engine`, with these rule folders besides
    /// the bundled ones (written as absolute paths: the script is replayed from elsewhere).
    init(
        _ recording: CardPrompt.Options.Recording, engine: EntryEngine, ruleFolders: [String], bundledRules: Bool,
        retiredNetworks: Bool, loader: EntryEngine.RuleLoader?
    ) {
        self.recording = recording
        finishedEnd = 0
        let directory = getcwd(nil, 0).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)  // pointer: getcwd's string, freed here
        }
        let folders = ruleFolders.map { $0.hasPrefix("/") || directory == nil ? $0 : directory! + "/" + $0 }
        recorder = SessionRecorder(
            engine: engine, ruleFolders: folders, bundledRules: bundledRules, retiredNetworks: retiredNetworks,
            recorded: Self.now(), reloadingWith: loader)
    }

    /// The local date and time, `2026-12-07 01:40`.
    private static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }

    /// The prompt opens: the file gets the script's header (what it held before is replaced),
    /// and this is what the prompt says.
    func begin(_ messages: MessageCatalog) -> Message {
        keep([])
        return Message(
            .info, .promptRecording, [("file", .text(recording.name.escapingControlCharacters))], in: messages)
    }

    /// `key` was handed to the engine, which did `outcome`.
    func note(_ key: Key, _ outcome: Outcome, engine: EntryEngine) {
        guard failure == nil else { return }
        recorder.note(key, outcome, engine: engine)
    }

    /// The keys noted since the last call were one paste, or one key.
    func endInput(pasted: Bool) {
        guard failure == nil else { return }
        keep(recorder.endInput(pasted: pasted))
    }

    /// The terminal is now `columns` wide.
    func resized(columns: Int) {
        guard failure == nil else { return }
        keep(recorder.resized(columns: columns))
    }

    /// The prompt ended.
    func finish() {
        guard failure == nil else { return }
        keep(recorder.finish())
    }

    /// The message that the recording stopped, once, if it has.
    func takeFailure(_ messages: MessageCatalog) -> Message? {
        guard failureUnsaid, let failure else { return nil }
        failureUnsaid = false
        return Message(
            .error, .promptRecordingStopped,
            [("file", .text(recording.name.escapingControlCharacters)), ("reason", .text(failure))], in: messages)
    }

    /// Writes `finished` after the finished cards' script, then the card in progress after it,
    /// the file cut where that ends.
    private func keep(_ finished: [UInt8]) {
        let unfinished = recorder.unfinished()
        guard
            let reason = write(finished, at: finishedEnd) ?? write(unfinished, at: finishedEnd + off_t(finished.count))
        else {
            finishedEnd += off_t(finished.count)
            if ftruncate(recording.descriptor, finishedEnd + off_t(unfinished.count)) == 0 { return }
            return stop(String(cString: strerror(errno)))
        }
        stop(reason)
    }

    /// Writes all of `bytes` at `offset`; nil, or why not.
    private func write(_ bytes: [UInt8], at offset: off_t) -> String? {
        guard lseek(recording.descriptor, offset, SEEK_SET) == offset,
            Paths.writeAll(bytes.span, to: recording.descriptor)
        else { return String(cString: strerror(errno)) }
        return nil
    }

    private func stop(_ reason: String) {
        failure = reason
        failureUnsaid = true
    }
}

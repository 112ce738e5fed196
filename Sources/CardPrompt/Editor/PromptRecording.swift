import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt's recording (`CardPrompt.Options.recording`, `cardline --record`): a
/// `SessionRecorder` that the editor tells of every key it hands the engine and every resize,
/// and the host's sink that keeps the script text it makes. When the sink fails, the
/// recording stops (the prompt says so once) and the prompt goes on.
final class PromptRecording {
    private var recorder: SessionRecorder
    private let recording: CardPrompt.Options.Recording
    /// Why the sink failed, once it has: nothing more is recorded.
    private(set) var failure: String?
    /// The failure is to be said (`takeFailure`).
    private var failureUnsaid = false

    /// A recording of a prompt whose engine starts as `engine`, with these rule folders besides
    /// the bundled ones (written as absolute paths: the script is replayed from elsewhere).
    init(
        _ recording: CardPrompt.Options.Recording, engine: EntryEngine, ruleFolders: [String],
        loader: EntryEngine.RuleLoader?
    ) {
        self.recording = recording
        let directory = getcwd(nil, 0).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)  // pointer: getcwd's string, freed here
        }
        let folders = ruleFolders.map { $0.hasPrefix("/") || directory == nil ? $0 : directory! + "/" + $0 }
        recorder = SessionRecorder(
            engine: engine, ruleFolders: folders, recorded: Self.now(), reloadingWith: loader)
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

    /// What the prompt says at the start.
    func announcement(_ messages: MessageCatalog) -> Message {
        Message(.info, .promptRecording, [("file", .text(recording.name.escapingControlCharacters))], in: messages)
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

    private func keep(_ text: [UInt8]) {
        guard !text.isEmpty, let reason = recording.write(text) else { return }
        failure = reason
        failureUnsaid = true
    }
}

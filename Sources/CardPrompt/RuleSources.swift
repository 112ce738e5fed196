import CardKit
import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where rule files come from, in priority order (later overrides earlier by id): the bundled
/// rules (an installed `share/cardline/rules` folder, or the copy compiled into this library), `$XDG_CONFIG_HOME/cardline/rules` (if it exists), each folder of
/// `CARDLINE_RULES` (colon-separated), then each `--rules DIR`. `replay` leaves out the two
/// personal sources (the user's folder and `CARDLINE_RULES`).
public enum RuleSources {
    /// The folders to read, in priority order: the bundled one (when `bundled`: an installed
    /// folder, or `compiledIn`), the user's (when it exists) and those in `CARDLINE_RULES` (both only when
    /// `personal`), then `extra`. `replay` passes `personal: false`: a `.session` script must
    /// replay the same on every machine, whatever its user keeps in their own folders.
    public static func folders(bundled: Bool, extra: [String], personal: Bool = true) -> [String] {
        var folders: [String] = []
        if bundled { folders.append(bundledFolder() ?? compiledIn) }
        if personal {
            let user = userFolder()
            if FileManager.default.fileExists(atPath: user) { folders.append(user) }
            // (`Environment`, getenv: not ProcessInfo's environment, which copies every
            // variable into a dictionary first, a tenth of the prompt's own start-up work.)
            if let list = Environment.value("CARDLINE_RULES") {
                folders += list.split(separator: ":").map(String.init)
            }
        }
        return folders + extra
    }

    /// A folder that cannot be read, or rule files that are wrong.
    public enum LoadError: Error, CustomStringConvertible {
        /// A folder or file cannot be read (or there is no folder at all); the reason in words.
        case unreadable(String)
        /// Rule files are wrong: every problem, located.
        case rules(RuleErrors)

        /// `cardline: error: …`, or one `file:line:column: error: …` line per problem.
        public var description: String {
            switch self {
            case .unreadable(let reason): return "cardline: error: \(reason)"
            case .rules(let errors): return errors.description
            }
        }

        /// The same problem as rule errors, for `:reload` and `rules lint`.
        public var ruleErrors: RuleErrors {
            switch self {
            case .unreadable(let reason): return RuleErrors(errors: [RuleError(file: "cardline", location: .init(line: 0, column: 0), message: reason)])
            case .rules(let errors): return errors
            }
        }
    }

    /// Reads every rule file of `folders` (in priority order) into one rule set; retired
    /// networks are matched only when `includeRetired`.
    public static func load(folders: [String], includeRetired: Bool = false) throws(LoadError) -> RuleSet {
        guard !folders.isEmpty else {
            throw .unreadable("no rule folders to read (--no-default-rules was given); pass --rules DIR")
        }
        let decoded: [[RuleSet.DecodedFile]]
        do {
            decoded = try decode(folders: folders, onTwoThreads: nil)
        } catch {
            throw .unreadable(error.description)
        }
        do {
            return try RuleSet.load(decoded: decoded, includeRetired: includeRetired, splitting: { onAnotherThread($0) })
        } catch {
            throw .rules(error)
        }
    }

    /// The rule files of `folders` (`read(folder:)` of each), each decoded (`RuleSet.decode`) as
    /// soon as it is read, so that only one file's text is held at a time (a bank's thousand
    /// files: 3 MB and about 740 page faults less than reading them all first). The same
    /// files, in the same order, and the same first unreadable folder or file as reading the
    /// folders one after another. With many files (`decodingOnTwoThreads`), two threads read
    /// and decode them, each taking the next file not yet taken, and the results are put back
    /// in file order; with fewer, this thread alone (a thread costs more than it saves).
    /// `onTwoThreads` decides instead, and `startingOther` starts the other thread's work, for
    /// the tests.
    static func decode(folders: [String], onTwoThreads: Bool?,
                       startingOther: (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global().async(execute: $0) })
        throws(UnreadableFolder) -> [[RuleSet.DecodedFile]] {
        // Each folder's files, in order, up to the first folder that cannot be listed.
        var listed: [[RuleFileSource]] = []
        var unlisted: UnreadableFolder?
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        for folder in folders {
            if folder == compiledIn {
                listed.append(compiledInTexts().map(RuleFileSource.text))
                continue
            }
            do {
                let files = try ruleFiles(folder)
                if files.folder != AT_FDCWD { opened.append(files.folder) }
                // (Each file's whole path is put together by the thread that reads it.)
                listed.append(files.names.map { .file(prefix: files.prefix, name: $0, folder: files.folder) })
            } catch {
                unlisted = error
                break
            }
        }
        let sources = listed.flatMap { $0 }
        var results: [Result<RuleSet.DecodedFile, UnreadableFolder>]
        if onTwoThreads ?? (sources.count >= decodingOnTwoThreads) {
            results = decodeOnTwoThreads(sources, closing: opened, startingOther: startingOther)
            opened = []  // (closed when neither thread needs them)
        } else {
            results = []
            results.reserveCapacity(sources.count)
            var buffer: [UInt8] = []  // (each file read into the same array)
            for source in sources {
                let result = source.decoded(reading: &buffer)
                results.append(result)
                if case .failure = result { break }  // (nothing after it is looked at)
            }
        }
        var decoded: [[RuleSet.DecodedFile]] = []
        var next = 0
        for folder in listed {
            var files: [RuleSet.DecodedFile] = []
            files.reserveCapacity(folder.count)
            for _ in folder {
                files.append(try results[next].get())
                next += 1
            }
            decoded.append(files)
        }
        if let unlisted { throw unlisted }
        return decoded
    }

    /// How many rule files make `decode(folders:)` use a second thread. Below it, starting a
    /// thread costs more than it saves (the bundled rules are 36 files); at 100,000 ranges in
    /// 1,000 files the other thread takes half of them, 34M instructions of the 68M reading and
    /// decoding them took on the thread that then draws the prompt (callgrind).
    static let decodingOnTwoThreads = 128

    /// One rule file to read and decode: a file in an open folder (`ruleFiles`: its path is
    /// `prefix` and `name`), or one of the compiled-in files.
    private enum RuleFileSource: Sendable {
        case file(prefix: String, name: String, folder: Int32)
        case text(RuleSet.FileText)

        func decoded() -> Result<RuleSet.DecodedFile, UnreadableFolder> {
            var buffer: [UInt8] = []
            return decoded(reading: &buffer)
        }

        /// `decoded()`, the file read into `buffer` (the caller's, read into again for the
        /// next file: no new array each time; the decoded file keeps none of its bytes).
        func decoded(reading buffer: inout [UInt8]) -> Result<RuleSet.DecodedFile, UnreadableFolder> {
            switch self {
            case .file(let prefix, let name, let folder):
                let path = prefix + name
                do throws(UnreadableFolder) {
                    try RuleSources.readRuleFile(path, name: name, in: folder, into: &buffer)
                } catch {
                    return .failure(error)
                }
                return .success(RuleSet.decode(RuleSet.FileText(path: path, bytes: buffer)))
            case .text(let text):
                return .success(RuleSet.decode(text))
            }
        }
    }

    /// `sources` read and decoded by this thread and one more, each taking the next file no
    /// thread has taken: the results in the order of `sources`. This thread never waits for
    /// the other (which may get no processor for milliseconds on a busy machine): when no file
    /// is left to take, it decodes itself any the other has taken and not finished, and the
    /// first result for a file is kept (the other thread's later one is dropped).
    /// The folders `folders` are closed once neither thread needs them.
    private static func decodeOnTwoThreads(_ sources: [RuleFileSource], closing folders: [Int32],
                                           startingOther: (@escaping @Sendable () -> Void) -> Void) -> [Result<RuleSet.DecodedFile, UnreadableFolder>] {
        let work = SharedDecoding(sources, closing: folders)
        startingOther { work.takeFiles() }
        work.takeFiles()
        for index in work.unfinished() { work.finish(index, with: sources[index].decoded()) }
        return work.results()
    }

    /// Rule files two threads read and decode (`decodeOnTwoThreads`): which is the next to
    /// take, and the first result for each. The open folders the files are read from are
    /// closed when both threads are done with them (the other may still be reading a file when
    /// this one has the results).
    private final class SharedDecoding: Sendable {
        let sources: [RuleFileSource]
        private let folders: [Int32]
        private let taken = Atomic<Int>(0)
        private let finished: Mutex<[Result<RuleSet.DecodedFile, UnreadableFolder>?]>

        init(_ sources: [RuleFileSource], closing folders: [Int32]) {
            self.sources = sources
            self.folders = folders
            finished = Mutex([Result<RuleSet.DecodedFile, UnreadableFolder>?](repeating: nil, count: sources.count))
        }

        deinit { for fd in folders { close(fd) } }

        /// Takes and decodes the next file until none is left to take.
        func takeFiles() {
            var buffer: [UInt8] = []  // (each file read into the same array)
            while true {
                let index = taken.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < sources.count else { return }
                finish(index, with: sources[index].decoded(reading: &buffer))
            }
        }

        /// Keeps `result` for file `index` unless it has one already.
        func finish(_ index: Int, with result: Result<RuleSet.DecodedFile, UnreadableFolder>) {
            finished.withLock { if $0[index] == nil { $0[index] = result } }
        }

        /// The files taken and not yet finished (once none is left to take).
        func unfinished() -> [Int] {
            finished.withLock { all in all.indices.filter { all[$0] == nil } }
        }

        /// Every file's result, in order (once each is finished).
        func results() -> [Result<RuleSet.DecodedFile, UnreadableFolder>] {
            finished.withLock { all in all.map { $0! } }
        }
    }

    /// Starts `job` on another thread (Dispatch's pool) and gives back what waits for it to be
    /// done: waiting for the other thread once it has started the job, or doing the job on
    /// the calling thread when no other thread has started it yet (a busy machine may give the
    /// pool no processor for milliseconds). `RuleSet.Splitting`, for the index.
    /// `starting` starts the other thread's part instead, for the tests.
    static func onAnotherThread(_ job: @escaping @Sendable () -> Void,
                                starting: (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global().async(execute: $0) }) -> () -> Void {
        let shared = SharedJob(job)
        starting { shared.run() }
        return { shared.finish() }
    }

    /// A job that whichever thread claims first does (`onAnotherThread`).
    private final class SharedJob: Sendable {
        private let job: @Sendable () -> Void
        private let claimed = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(_ job: @escaping @Sendable () -> Void) { self.job = job }

        /// True for the first thread to ask.
        private func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }

        /// Does the job, unless another thread has claimed it.
        func run() {
            guard claim() else { return }
            job()
            done.signal()
        }

        /// Returns once the job is done: done here if no thread has claimed it, else waited for.
        func finish() {
            if claim() { return job() }
            done.wait()
        }
    }

    /// A loader that reads `folders` again each time it is called (for `:reload`).
    public static func loader(folders: [String], includeRetired: Bool = false) -> EntryEngine.RuleLoader {
        return {
            do throws(LoadError) {
                return .success(try load(folders: folders, includeRetired: includeRetired))
            } catch {
                return .failure(error.ruleErrors)
            }
        }
    }

    /// A rule folder, or a file in it, that cannot be read.
    public struct UnreadableFolder: Error, CustomStringConvertible {
        /// The folder or file.
        public var path: String
        /// Why, in words.
        public var reason: String
        /// `cannot read rule folder PATH: REASON` (`rule file` for a `.json` file).
        public var description: String {
            "cannot read rule \(path.hasSuffix(".json") ? "file" : "folder") \(path.escapingControlCharacters): \(reason)"
        }
    }

    /// The name that stands for the rule files compiled into this library (rules/*.json of the
    /// source tree when it was built): its files are named `<bundled>/visa.json` and so on in
    /// `rules` listings and in errors.
    public static let compiledIn = "<bundled>"

    /// The `*.json` files of a folder (not `schema.json`), sorted by name; for `compiledIn`, the
    /// compiled-in files.
    public static func read(folder: String) throws(UnreadableFolder) -> [RuleSet.FileText] {
        if folder == compiledIn { return compiledInTexts() }
        let files = try ruleFiles(folder)
        defer { if files.folder != AT_FDCWD { close(files.folder) } }
        return try files.names.map { name throws(UnreadableFolder) in try readRuleFile(files.prefix + name, name: name, in: files.folder) }
    }

    /// The compiled-in rule files, named `<bundled>/visa.json` and so on.
    private static func compiledInTexts() -> [RuleSet.FileText] {
        compiledInFiles.map { file in
            // unsafe: the compiled-in file's bytes copied out in one go.
            RuleSet.FileText(path: compiledIn + "/" + file.name, bytes: file.text.withUTF8Buffer { [UInt8]($0) })
        }
    }

    /// A folder's `*.json` files (not `schema.json`), sorted by name: their names, the folder's
    /// path with a `/` to put before them, and the folder opened (`AT_FDCWD` when it cannot be
    /// opened: then each file is opened by its whole path), for the caller to close. A file
    /// opened by its name in an open folder has one name for the kernel to look up rather
    /// than every folder on its path (a bank's thousand files: about a tenth of their start).
    private static func ruleFiles(_ folder: String) throws(UnreadableFolder) -> (names: [String], prefix: String, folder: Int32) {
        guard Paths.isDirectory(folder) == true else {
            throw UnreadableFolder(path: folder, reason: "no such folder")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw UnreadableFolder(path: folder, reason: "permission denied or not a folder")
        }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        return (names.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted(), prefix, fd >= 0 ? fd : AT_FDCWD)
    }

    /// One rule file's text: `name` in the open `folder` (`ruleFiles`), or `path` when the
    /// folder is `AT_FDCWD`; `path` is the name messages give it.
    private static func readRuleFile(_ path: String, name: String, in folder: Int32) throws(UnreadableFolder) -> RuleSet.FileText {
        var bytes: [UInt8] = []
        try readRuleFile(path, name: name, in: folder, into: &bytes)
        return RuleSet.FileText(path: path, bytes: bytes)
    }

    /// `readRuleFile(_:name:in:)` into `buffer` (`Paths.read(_:in:into:)`: a decoding thread
    /// reads every file into one array). Read straight into bytes: through Foundation's Data
    /// and a copy, reading 100,000 ranges cost 8 million instructions more.
    /// A file that is not a regular file (a FIFO, `/dev/zero`, a folder named `x.json`), or
    /// larger than `largestFile`, is refused with what it is (`Paths.read`).
    private static func readRuleFile(_ path: String, name: String, in folder: Int32, into buffer: inout [UInt8]) throws(UnreadableFolder) {
        do throws(Paths.Unreadable) {
            try folder == AT_FDCWD ? Paths.read(path, into: &buffer, limit: largestFile)
                : Paths.read(name, in: folder, into: &buffer, limit: largestFile)
        } catch {
            throw UnreadableFolder(path: path, reason: error.reason)
        }
    }

    /// The largest rule file read, 16 MiB: about 500,000 ranges (a bank's whole table is
    /// usually a few thousand); a larger file is refused rather than read whole.
    public static let largestFile = 16 << 20

    /// An installed copy of the bundled rules, read in place of the compiled-in one so that an
    /// installed `cardline` uses (and names) the files installed with it: `rules/` beside the
    /// executable, or `../share/cardline/rules` (`make install`, the Debian package). nil
    /// elsewhere (a build in the source tree, any program built on this library): then the
    /// compiled-in files are read. The source tree is never looked for, so a program behaves
    /// the same wherever it was built and whatever folder it runs in.
    public static func bundledFolder() -> String? { Paths.installedFolder("rules", holding: "visa.json") }

    /// `$XDG_CONFIG_HOME/cardline/rules` (default `~/.config/cardline/rules`; a relative
    /// `XDG_CONFIG_HOME` is ignored).
    public static func userFolder() -> String {
        Paths.xdgFolder("XDG_CONFIG_HOME", default: ".config") + "/cardline/rules"
    }
}

import CardKit
import FoundationEssentials

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
            case .unreadable(let reason):
                return RuleErrors(errors: [
                    RuleError(file: "cardline", location: .init(line: 0, column: 0), message: reason)
                ])
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
            decoded = try decode(folders: folders)
        } catch {
            throw .unreadable(error.description)
        }
        do {
            return try RuleSet.load(decoded: decoded, includeRetired: includeRetired)
        } catch {
            throw .rules(error)
        }
    }

    /// The rule files of `folders` (`read(folder:)` of each), each decoded (`RuleSet.decode`) as
    /// soon as it is read, so that only one file's text is held at a time (a bank's thousand
    /// files: 3 MB and about 740 page faults less than reading them all first). The same
    /// files, in the same order, and the same first unreadable folder or file as reading the
    /// folders one after another.
    static func decode(folders: [String]) throws(UnreadableFolder) -> [[RuleSet.DecodedFile]] {
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
        var results: [Result<RuleSet.DecodedFile, UnreadableFolder>] = []
        results.reserveCapacity(sources.count)
        var buffer: [UInt8] = []  // (each file read into the same array)
        for source in sources {
            let result = source.decoded(reading: &buffer)
            results.append(result)
            if case .failure = result { break }  // (nothing after it is looked at)
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

    /// One rule file to read and decode: a file in an open folder (`ruleFiles`: its path is
    /// `prefix` and `name`), or one of the compiled-in files.
    private enum RuleFileSource {
        case file(prefix: String, name: String, folder: Int32)
        case text(RuleSet.FileText)

        /// The file decoded, read into `buffer` (the caller's, read into again for the next
        /// file: no new array each time; the decoded file keeps none of its bytes).
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
        return try files.names.map { name throws(UnreadableFolder) in
            try readRuleFile(files.prefix + name, name: name, in: files.folder)
        }
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
    private static func ruleFiles(_ folder: String) throws(UnreadableFolder) -> (
        names: [String], prefix: String, folder: Int32
    ) {
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
    private static func readRuleFile(_ path: String, name: String, in folder: Int32) throws(UnreadableFolder)
        -> RuleSet.FileText
    {
        var bytes: [UInt8] = []
        try readRuleFile(path, name: name, in: folder, into: &bytes)
        return RuleSet.FileText(path: path, bytes: bytes)
    }

    /// `readRuleFile(_:name:in:)` into `buffer` (`Paths.read(_:in:into:)`: a decoding thread
    /// reads every file into one array). Read straight into bytes: through Foundation's Data
    /// and a copy, reading 100,000 ranges cost 8 million instructions more.
    /// A file that is not a regular file (a FIFO, `/dev/zero`, a folder named `x.json`), or
    /// larger than `largestFile`, is refused with what it is (`Paths.read`).
    private static func readRuleFile(_ path: String, name: String, in folder: Int32, into buffer: inout [UInt8])
        throws(UnreadableFolder)
    {
        do throws(Paths.Unreadable) {
            try folder == AT_FDCWD
                ? Paths.read(path, into: &buffer, limit: largestFile)
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

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
            // getenv, not ProcessInfo's environment, which copies every variable into a
            // dictionary first (a tenth of the prompt's own start-up work).
            if let list = getenv("CARDLINE_RULES").map({ String(cString: $0) }) {
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
        var decoded: [[RuleSet.DecodedFile]] = []
        for folder in folders {
            do {
                decoded.append(try decode(folder: folder))
            } catch {
                throw .unreadable(error.description)
            }
        }
        do {
            return try RuleSet.load(decoded: decoded, includeRetired: includeRetired)
        } catch {
            throw .rules(error)
        }
    }

    /// The rule files of a folder (`read(folder:)`), each decoded (`RuleSet.decode`) as soon
    /// as it is read, so that only one file's text is held at a time (a bank's thousand files:
    /// 3 MB and about 740 page faults less than reading them all first). The same files, in
    /// the same order, and the same first unreadable one as `read(folder:)`. (Decoding on
    /// both cores was tried: on this two-core machine, shared with other work, the first
    /// prompt came no sooner and took up to a fifth more processor time.)
    static func decode(folder: String) throws(UnreadableFolder) -> [RuleSet.DecodedFile] {
        if folder == compiledIn { return try read(folder: folder).map(RuleSet.decode) }
        return try ruleFilePaths(folder).map { path throws(UnreadableFolder) in RuleSet.decode(try readRuleFile(path)) }
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
        /// `cannot read rule folder PATH: REASON`.
        public var description: String { "cannot read rule folder \(path.escapingControlCharacters): \(reason)" }
    }

    /// The name that stands for the rule files compiled into this library (rules/*.json of the
    /// source tree when it was built): its files are named `<bundled>/visa.json` and so on in
    /// `rules` listings and in errors.
    public static let compiledIn = "<bundled>"

    /// The `*.json` files of a folder (not `schema.json`), sorted by name; for `compiledIn`, the
    /// compiled-in files.
    public static func read(folder: String) throws(UnreadableFolder) -> [RuleSet.FileText] {
        if folder == compiledIn {
            return compiledInFiles.map { file in
                RuleSet.FileText(path: compiledIn + "/" + file.name,
                                 bytes: file.text.withUTF8Buffer { [UInt8]($0) })
            }
        }
        return try ruleFilePaths(folder).map { path throws(UnreadableFolder) in try readRuleFile(path) }
    }

    /// The paths of a folder's `*.json` files (not `schema.json`), sorted by name.
    private static func ruleFilePaths(_ folder: String) throws(UnreadableFolder) -> [String] {
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
        return names.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted().map { prefix + $0 }
    }

    /// One rule file's text.
    private static func readRuleFile(_ path: String) throws(UnreadableFolder) -> RuleSet.FileText {
        // Read straight into bytes: through Foundation's Data and a copy, reading 100,000
        // ranges cost 8 million instructions more.
        guard let bytes = Paths.contents(of: path) else {
            throw UnreadableFolder(path: path, reason: "the file cannot be read")
        }
        return RuleSet.FileText(path: path, bytes: bytes)
    }

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

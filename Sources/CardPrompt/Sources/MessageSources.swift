import CardKit
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where the prompt's words come from, for one language, in priority order (later overrides
/// earlier by message id): English built in, the bundled catalog of the language (compiled
/// in), an installed `share/cardline/messages` folder, `$XDG_CONFIG_HOME/cardline/messages`,
/// each folder of `CARDLINE_MESSAGES` (colon-separated), each `--messages DIR`; in each
/// folder the file `<language>.json` (`fr.json`), when there is one. A library caller's
/// texts (`CardPrompt.Options.messages`) go over all of them.
public enum MessageSources {
    /// The language asked for: `locale` (`--locale`, `Options.locale`), else `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`, `LANGUAGE` from the environment (`MessageCatalog.languageCode`).
    public static func language(locale: String?) -> String {
        MessageCatalog.languageCode(locale: locale) { name in getenv(name).map { String(cString: $0) } }
    }

    /// The folders to look in for `<language>.json`, in priority order (`personal`: the user's
    /// folder and `CARDLINE_MESSAGES`).
    public static func folders(extra: [String], personal: Bool = true) -> [String] {
        var folders: [String] = []
        if let installed = installedFolder() { folders.append(installed) }
        if personal {
            folders.append(userFolder())
            if let list = Environment.value("CARDLINE_MESSAGES") {
                folders += list.split(separator: ":").map(String.init)
            }
        }
        return folders + extra
    }

    /// The catalog of `language` from `folders` (a folder without the language's file is
    /// skipped), `overrides` over it. A language with no bundled catalog and no file is
    /// English, without a warning. Throws `.rules` with every problem of a file that is refused
    /// (errors located `file:line:column`), `.unreadable` for a file that cannot be read: not a
    /// regular file (a FIFO, `/dev/zero`, a folder) or larger than `largestFile` (`Paths.read`).
    public static func load(language: String, folders: [String], overrides: [String: String] = [:]) throws(RuleSources
        .LoadError) -> MessageCatalog
    {
        var texts: [String: String] = [:]
        var problems: [RuleError] = []
        var found = MessageCatalog.bundledLanguages.contains(language)
        // Only a plain code names a file: a `--locale ../x` never reaches outside the folder.
        let isFileName = !language.isEmpty && language.allSatisfy { ("a"..."z").contains($0) }
        for folder in folders where isFileName {
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + language + ".json"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let bytes: [UInt8]
            do throws(Paths.Unreadable) {
                bytes = try Paths.contents(of: path, limit: largestFile)
            } catch {
                throw .unreadable(unreadable(path, error))
            }
            let contents = MessageCatalog.read(bytes, file: path)
            if contents.isRefused {
                problems += contents.problems
                continue
            }
            found = true
            texts.merge(contents.texts) { $1 }
        }
        if problems.contains(where: { $0.severity == .error }) { throw .rules(RuleErrors(errors: problems)) }
        return MessageCatalog(language: found ? language : "en", texts: texts).overriding(overrides)
    }

    /// The largest catalog read, 1 MiB (a whole catalog is about 10 KiB); a larger file is
    /// refused rather than read whole.
    public static let largestFile = 1 << 20

    /// `cannot read message catalog PATH: REASON`, the path escaped.
    public static func unreadable(_ path: String, _ problem: Paths.Unreadable) -> String {
        "cannot read message catalog \(path.escapingControlCharacters): \(problem.reason)"
    }

    /// An installed copy of the bundled catalogs: `messages/` beside the executable, or
    /// `../share/cardline/messages`; nil elsewhere (the compiled-in ones are used then).
    public static func installedFolder() -> String? { Paths.installedFolder("messages", holding: "en.json") }

    /// `$XDG_CONFIG_HOME/cardline/messages` (default `~/.config/cardline/messages`).
    public static func userFolder() -> String {
        Paths.xdgFolder("XDG_CONFIG_HOME", default: ".config") + "/cardline/messages"
    }
}

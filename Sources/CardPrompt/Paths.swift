#if canImport(Glibc)
import Glibc
#endif

/// File-system paths, without Foundation's NSString (cardline links only
/// FoundationEssentials, which starts faster).
public enum Paths {
    /// The folder part of a path: "/a/b/c.json" → "/a/b", "c.json" → "".
    public static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// true for a folder, false for anything else that exists, nil when nothing is there.
    public static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// An XDG base folder: `$variable` when it is set to an absolute path, else `fallback`
    /// below the home folder (`".config"`, `".local/state"`). The XDG Base Directory
    /// specification makes a relative path invalid, to be ignored: `XDG_STATE_HOME=state`
    /// would otherwise put the history wherever the program happens to start.
    public static func xdgFolder(_ variable: String, default fallback: String) -> String {
        // 0x2F: "/", an absolute path.
        if let value = getenv(variable), value.pointee == 0x2F { return String(cString: value) }
        return home + "/" + fallback
    }

    /// $HOME, or the user database's home folder.
    public static var home: String {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }
}

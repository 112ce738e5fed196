import CardPrompt

#if canImport(Glibc)
    import Glibc
#endif

/// How `rules list` says where a rule file is: the number of the rule folder it was read from
/// (1 for the first read), and its path inside that folder when it is not `ID.json`; each
/// folder is named once, under the table (`shownFolder`), resolved.
enum RuleFolderPaths {
    static func shown(_ file: String, id: String, folders: [String]) -> String {
        guard let index = folderIndex(of: file, folders: folders) else { return normalised(file) }
        let inside = String(file.dropFirst(trimmed(folders[index]).count + 1))
        return inside == id + ".json" ? "\(index + 1)" : "\(index + 1) \(inside)"
    }

    /// The index in `folders` of the folder `file` is in (the longest that holds it: folders
    /// may nest).
    static func folderIndex(of file: String, folders: [String]) -> Int? {
        folders.indices.filter { file.hasPrefix(trimmed(folders[$0]) + "/") }.max {
            trimmed(folders[$0]).count < trimmed(folders[$1]).count
        }
    }

    /// A folder as named under the table: its real path (`/usr/local/bin/../share/…` is
    /// `/usr/local/share/…`, links followed), or normalised when it cannot be resolved; the
    /// copy compiled into cardline in words.
    static func shownFolder(_ folder: String) -> String {
        if folder == RuleSources.compiledIn { return "the rules compiled into cardline" }
        guard let resolved = realpath(folder, nil) else { return normalised(trimmed(folder)) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `folder` without trailing slashes (`/` stays).
    private static func trimmed(_ folder: String) -> String {
        var folder = folder
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        return folder
    }

    /// `path` with `.` parts, empty parts and `x/..` pairs taken out (as text: a link is not
    /// followed), `.` when nothing is left.
    static func normalised(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else if part == ".." && absolute && parts.isEmpty {
                continue
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}

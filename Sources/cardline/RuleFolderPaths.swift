/// How `rules list` names a rule file: by its path inside the rule folder it was read from
/// (`visa.json`), that folder written in front (normalised: `./mine/../mine` is `mine`)
/// unless it is the first folder read (the bundled one, or the first `--rules` folder with
/// `--no-default-rules`).
enum RuleFolderPaths {
    static func shown(_ file: String, folders: [String]) -> String {
        // The folder the file is in (the longest that holds it: folders may nest).
        let holding = folders.enumerated()
            .filter { file.hasPrefix(trimmed($0.element) + "/") }
            .max { trimmed($0.element).count < trimmed($1.element).count }
        guard let (index, folder) = holding else { return normalised(file) }
        let inside = String(file.dropFirst(trimmed(folder).count + 1))
        return index == 0 ? inside : normalised(trimmed(folder)) + "/" + inside
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

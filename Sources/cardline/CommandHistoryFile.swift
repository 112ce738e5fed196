import CardPrompt

#if canImport(Glibc)
    import Glibc
#endif

/// The on-disk history of `:` command lines: `$XDG_STATE_HOME/cardline/history`, mode 0600,
/// in a folder of mode 0700. Only lines starting with `:` are ever read or written: card
/// numbers, expiry dates and CVVs never reach this file.
///
/// The file and its folder are opened without following symbolic links, and used only when
/// the folder is a folder and the file a regular file with one link, both owned by this user;
/// looser modes are tightened to 0700 and 0600. Anything else (a link, a FIFO, a folder, a file
/// or folder of another user, one that cannot be read or written) turns history off for the
/// rest of the run, with one warning (on stderr, or above the live prompt), and nothing is
/// written anywhere.
///
/// Several prompts may share the file. Each line is appended with one `write` on an
/// `O_APPEND` descriptor, and every use of the file (an append, a read and its trim) holds an
/// exclusive `flock` on the history folder, which stays put when the file is renamed over:
/// a trim reads and replaces the file with no append in between, so no line is lost (eight
/// prompts appending at once while others trimmed lost a third of their lines before).
final class CommandHistoryFile {
    let path: String
    /// Lines kept when the file is read back, and when it is trimmed.
    static let limit = 500
    /// When a run starts with a file of more than this many lines or bytes, the file is
    /// rewritten with its newest lines (`limit` of them, at most `trimmedBytes` in all).
    static let maximumLines = 1000
    static let maximumBytes = 64 * 1024
    static let trimmedBytes = 32 * 1024
    /// Set by the one warning: history is off for the rest of the run.
    private var isOff = false
    /// Where the warning goes: standard error, or above the prompt while one runs
    /// (`CardPrompt.warn`), never over it.
    var warn: (String) -> Void = { Terminal.writeError($0 + "\n") }

    init(path: String) { self.path = path }

    static func standard() -> CommandHistoryFile {
        // A relative XDG_STATE_HOME is ignored (Paths.xdgFolder).
        CommandHistoryFile(path: Paths.xdgFolder("XDG_STATE_HOME", default: ".local/state") + "/cardline/history")
    }

    private var folder: String { Paths.directory(of: path) }
    private var name: String { String(path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...]) }

    /// The newest command lines, oldest first; trims a file that has grown past the limits.
    /// Nothing is created when there is no file yet.
    func load() -> [String] {
        guard let folderFD = openFolder(creating: false) else { return [] }
        defer { close(folderFD) }
        guard lock(folderFD) else { return [] }
        guard let fd = openFile(in: folderFD, flags: O_RDONLY, creating: false) else { return [] }
        defer { close(fd) }
        guard let (text, size) = readTail(fd) else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let over = size > Self.maximumBytes || lines.count > Self.maximumLines
        if size > Self.maximumBytes, !lines.isEmpty { lines.removeFirst() }  // read from mid-line
        var kept = Array(lines.filter(Self.isCommand).suffix(Self.limit))
        guard over else { return kept }
        var bytes = 0
        let fitting = kept.reversed().prefix { line in
            bytes += line.utf8.count + 1
            return bytes <= Self.trimmedBytes
        }.count
        kept = Array(kept.suffix(fitting))
        return rewrite(kept, in: folderFD) ? kept : []
    }

    /// Appends one command line; does nothing once history is off.
    func append(_ line: String) {
        guard !isOff, Self.isCommand(line), !line.contains("\n") else { return }
        guard let folderFD = openFolder(creating: true) else { return }
        defer { close(folderFD) }  // closing it lets go of the lock
        // The file is opened under the lock: a trim that renamed a new file over it is done.
        guard lock(folderFD), let fd = openFile(in: folderFD, flags: O_WRONLY | O_APPEND, creating: true) else {
            return
        }
        defer { close(fd) }
        var text = line + "\n"
        text.makeContiguousUTF8()
        // One write: the whole line lands at the file's end at once (O_APPEND).
        let count = Terminal.writeOnce(text.utf8.span, to: fd)
        if count != text.utf8.count {
            turnOff("cannot be written: " + (count < 0 ? String(cString: strerror(errno)) : "short write"))
        }
    }

    /// Takes the exclusive lock on the history folder (waiting for another prompt's append or
    /// trim to end); it is let go when `folderFD` is closed. False (history off) on a failure.
    private func lock(_ folderFD: Int32) -> Bool {
        while flock(folderFD, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            turnOff("cannot be locked: " + String(cString: strerror(errno)))
            return false
        }
        return true
    }

    static func isCommand(_ line: String) -> Bool {
        // A command line, and one that holds too few digits to be part of a card number
        // (counted across spaces, dashes and dots: `:4111 1111 1111 1111` is never written).
        line.hasPrefix(":") && !CardNumber.mayHoldCardNumber(line)
    }

    /// Says once, through `warn`, why history is off for the rest of the run.
    private func turnOff(_ reason: String) {
        guard !isOff else { return }
        isOff = true
        warn(
            "cardline: warning: \(path.escapingControlCharacters): \(reason.escapingControlCharacters); command history is off for this run"
        )
    }

    /// The history folder, checked (a folder of ours, not a link) and tightened to 0700;
    /// nil when history is off, or when it does not exist and `creating` is false.
    private func openFolder(creating: Bool) -> Int32? {
        guard !isOff else { return nil }
        let folder = self.folder
        if creating, let error = Self.makeFolders(folder) {
            turnOff("its folder cannot be made: " + String(cString: strerror(error)))
            return nil
        }
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let error = errno
            if error == ENOENT && !creating { return nil }
            turnOff("its folder " + Self.describe(error, AT_FDCWD, folder))
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            close(fd)
            turnOff("its folder is not a folder")
            return nil
        }
        guard info.st_uid == geteuid() else {
            close(fd)
            turnOff("its folder belongs to another user (uid \(info.st_uid))")
            return nil
        }
        if info.st_mode & 0o7777 != 0o700 && fchmod(fd, 0o700) != 0 {
            close(fd)
            turnOff("its folder's mode cannot be set to 0700: " + String(cString: strerror(errno)))
            return nil
        }
        return fd
    }

    /// Makes `folder` and every folder above it that is missing (mode 0700); nil when it
    /// exists then, else the `errno` of the first folder that could not be made: the cause,
    /// where the last one's error would only say that its parent is missing.
    private static func makeFolders(_ folder: String) -> Int32? {
        var prefix = folder.hasPrefix("/") ? "/" : ""
        for component in folder.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return errno }
        }
        return nil
    }

    /// The history file in the folder, never through a link (`O_NOFOLLOW`) nor blocking on a
    /// FIFO (`O_NONBLOCK`), checked with `fstat` (a regular file of ours with one link) and
    /// tightened to 0600; nil when history is off, or when there is no file and `creating` is false.
    private func openFile(in folderFD: Int32, flags: Int32, creating: Bool) -> Int32? {
        let fd = openat(
            folderFD, name, flags | (creating ? O_CREAT : 0) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let error = errno
            if error == ENOENT && !creating { return nil }
            turnOff(Self.describe(error, folderFD, name))
            return nil
        }
        var info = stat()
        let problem: String?
        if fstat(fd, &info) != 0 {
            problem = "cannot be examined: " + String(cString: strerror(errno))
        } else if info.st_mode & S_IFMT != S_IFREG {
            problem = "is not a regular file"
        } else if info.st_uid != geteuid() {
            problem = "belongs to another user (uid \(info.st_uid))"
        } else if info.st_nlink != 1 {
            problem = "has other hard links"
        } else if info.st_mode & 0o7777 != 0o600 && fchmod(fd, 0o600) != 0 {
            problem = "its mode cannot be set to 0600: " + String(cString: strerror(errno))
        } else {
            problem = nil
        }
        if let problem {
            close(fd)
            turnOff(problem)
            return nil
        }
        return fd
    }

    /// The file's text (only its last `maximumBytes` when it is longer) and its size.
    private func readTail(_ fd: Int32) -> (String, Int)? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        if size > Self.maximumBytes && lseek(fd, off_t(size - Self.maximumBytes), SEEK_SET) < 0 {
            turnOff("cannot be read: " + String(cString: strerror(errno)))
            return nil
        }
        var data: [UInt8] = []
        while data.count < Self.maximumBytes {
            let count = Paths.read(fd, appendingTo: &data, limit: 16 * 1024)
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                turnOff("cannot be read: " + String(cString: strerror(errno)))
                return nil
            }
            if count == 0 { break }
        }
        return (String(decoding: data.prefix(Self.maximumBytes), as: UTF8.self), size)
    }

    /// Replaces the file with `lines` atomically: a new 0600 file beside it (`O_EXCL`,
    /// `O_NOFOLLOW`), written, synced, then renamed over it. False (history off) on a failure,
    /// with the new file removed.
    private func rewrite(_ lines: [String], in folderFD: Int32) -> Bool {
        let temporary = ".\(name).\(getpid()).\(String(UInt32.random(in: .min ... .max), radix: 16))"
        let fd = openat(folderFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            turnOff("cannot be trimmed: " + String(cString: strerror(errno)))
            return false
        }
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        let done = fchmod(fd, 0o600) == 0 && Terminal.writeAll(bytes, to: fd) && fsync(fd) == 0
        let error = errno
        close(fd)
        guard done, renameat(folderFD, temporary, folderFD, name) == 0 else {
            let reason = done ? String(cString: strerror(errno)) : String(cString: strerror(error))
            unlinkat(folderFD, temporary, 0)
            turnOff("cannot be trimmed: " + reason)
            return false
        }
        _ = fsync(folderFD)
        return true
    }

    /// Why `open` failed on `name` (relative to `folderFD`), as words.
    private static func describe(_ error: Int32, _ folderFD: Int32, _ name: String) -> String {
        var info = stat()
        if fstatat(folderFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFLNK {
            return "is a symbolic link"
        }
        switch error {
        case ELOOP: return "is a symbolic link"
        case ENOTDIR: return "is not a folder"
        case EISDIR: return "is a folder, not a regular file"
        case ENXIO: return "is not a regular file"
        default: return "cannot be opened: " + String(cString: strerror(error))
        }
    }
}

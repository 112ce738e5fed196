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

    /// A data folder installed with the running executable, `name` beside it or
    /// `../share/cardline/name` (`make install`, the Debian package), when it holds `marker`;
    /// nil elsewhere (a build in the source tree, a program built on the library).
    public static func installedFolder(_ name: String, holding marker: String) -> String? {
        // readlink(2) of /proc/self/exe: the executable's own path, links resolved.
        var buffer = [CChar](repeating: 0, count: 4097)
        let length = readlink("/proc/self/exe", &buffer, 4096)
        guard length > 0 else { return nil }
        let directory = directory(of: String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return [directory + "/" + name, directory + "/../share/cardline/" + name].first {
            isDirectory($0 + "/" + marker) == false
        }
    }

    /// An XDG base folder: `$variable` when it is set to an absolute path, else `fallback`
    /// below the home folder (`".config"`, `".local/state"`). The XDG Base Directory
    /// specification makes a relative path invalid, to be ignored: `XDG_STATE_HOME=state`
    /// would otherwise put the history wherever the program happens to start.
    public static func xdgFolder(_ variable: String, default fallback: String) -> String {
        if let value = Environment.value(variable), value.hasPrefix("/") { return value }
        return home + "/" + fallback
    }

    /// Reads once from `fd` into the end of `bytes`, at most `limit` bytes: what read(2)
    /// returns (0 at the end, -1 with errno set), `bytes` grown by what was read. The one home
    /// of reading a descriptor into bytes (the executable's readers use it too).
    public static func read(_ fd: Int32, appendingTo bytes: inout [UInt8], limit: Int) -> Int {
        var count = 0
        bytes.append(addingCapacity: limit) { output in
            // unsafe: read(2) fills the array's spare capacity through its address, and says how
            // much it filled; the pointer does not outlive the call.
            count = output.withUnsafeMutableBufferPointer { buffer, filled in
                let read = Glibc.read(fd, buffer.baseAddress, buffer.count)
                filled = max(read, 0)
                return read
            }
        }
        return count
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; false (errno set) when
    /// the descriptor refuses them. The one home of writing bytes to a descriptor (the
    /// executable's output and the library's warnings use it).
    public static func writeAll(_ bytes: Span<UInt8>, to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // unsafe: write(2) takes the bytes' address; the pointer does not outlive the call.
            let written = bytes.extracting(offset...).withUnsafeBufferPointer {
                Glibc.write(fd, $0.baseAddress, $0.count)
            }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Why a file cannot be read, in words for a message after its path ("No such file or
    /// directory", "it is a FIFO (named pipe), not a regular file", "it is larger than 1 MiB").
    public struct Unreadable: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
        public init(reason: String) { self.reason = reason }
        /// The reason for `errno` (or `code`), as strerror(3) says it.
        public init(errno code: Int32 = errno) { reason = String(cString: strerror(code)) }
    }

    /// Opens a file cardline reads (a public key, a message catalog, a rule file, a `.session`
    /// script or golden, a `check` input named by its path): the one place that decides what
    /// may be read. Only a regular file is opened; a FIFO, a device (`/dev/zero`, a terminal),
    /// a socket or a folder is refused at once, with what it is, never read or waited on: it is
    /// opened with O_NONBLOCK (opening a FIFO does not wait for a writer, nor a serial line for
    /// its carrier), O_NOCTTY and O_CLOEXEC, its kind taken from fstat(2) on that descriptor
    /// (no race with a path changed meanwhile), then O_NONBLOCK is cleared.
    ///
    /// `allowingFIFO`: a FIFO (or a pipe named by `/dev/fd/N`, `<(command)`) is taken too, for
    /// a stream of records (`check cards.fifo`). Its open does not wait; the call waits, as a
    /// blocking open(2) would, until a writer has come (poll(2): data, or a writer that came and
    /// went), so that a first read does not take "no writer yet" for the end.
    ///
    /// A relative `path` is taken from the open folder `folder` (a descriptor; by default the
    /// working folder). The caller closes the descriptor.
    public static func openForReading(_ path: String, in folder: Int32 = AT_FDCWD, allowingFIFO: Bool = false)
        throws(Unreadable) -> Int32
    {
        var fd: Int32
        repeat {
            fd = openat(folder, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Unreadable() }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let failure = Unreadable()
            close(fd)
            throw failure
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFIFO && allowingFIFO else {
            close(fd)
            throw Unreadable(reason: refusal(kind: kind, allowingFIFO: allowingFIFO))
        }
        if kind == S_IFIFO {
            var wait = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&wait, 1, -1) < 0 && errno == EINTR {}
        }
        // The status flags F_SETFL sets were all off but O_NONBLOCK: one call clears it.
        _ = fcntl(fd, F_SETFL, 0)
        return fd
    }

    /// What a file of `kind` (`st_mode & S_IFMT`) is, as the reason it is not read.
    private static func refusal(kind: mode_t, allowingFIFO: Bool) -> String {
        let wanted = allowingFIFO ? "not a regular file or a pipe" : "not a regular file"
        switch kind {
        case S_IFDIR: return "it is a folder"
        case S_IFIFO: return "it is a FIFO (named pipe), " + wanted
        case S_IFCHR: return "it is a character device, " + wanted
        case S_IFBLK: return "it is a block device, " + wanted
        case S_IFSOCK: return "it is a socket, " + wanted
        default: return "it is " + wanted
        }
    }

    /// The whole of a file, read straight into bytes (no Foundation `Data` to copy from):
    /// `read(_:in:into:limit:)` into a new array.
    public static func contents(of path: String, in folder: Int32 = AT_FDCWD, limit: Int) throws(Unreadable) -> [UInt8]
    {
        var bytes: [UInt8] = []
        try read(path, in: folder, into: &bytes, limit: limit)
        return bytes
    }

    /// The whole of the regular file at `path` (`openForReading`: anything else is refused)
    /// into `bytes`, emptied first with its room kept: a reader of many files reads each into
    /// the same array, without a new one each time (a bank's thousand rule files: a thousand
    /// allocations less). A file of more than `limit` bytes is refused ("it is larger than 1
    /// MiB"), before anything is read when its size says so, else once it has given more: no
    /// file, however large or endless (a /proc file), makes an allocation fail. On a throw,
    /// `bytes` holds anything.
    public static func read(_ path: String, in folder: Int32 = AT_FDCWD, into bytes: inout [UInt8], limit: Int)
        throws(Unreadable)
    {
        bytes.removeAll(keepingCapacity: true)
        let fd = try openForReading(path, in: folder)
        defer { close(fd) }
        var info = stat()
        // One read of the whole file when its size is known (one more byte to see the end).
        let size = fstat(fd, &info) == 0 && info.st_size > 0 ? Int(info.st_size) : 0
        guard size <= limit else { throw Unreadable(reason: "it is larger than " + byteCount(limit)) }
        bytes.reserveCapacity(size + 1)
        while true {
            // A regular file that gave exactly the size fstat said, short of the byte more asked
            // for, is at its end: no read more to see it (a read(2) a file, 1,000 of them for the
            // bench's 100,000 ranges). A file whose size fstat does not know (a /proc file says 0)
            // reads on until a read gives nothing.
            let want = bytes.count <= size ? size + 1 - bytes.count : 64 * 1024
            let room = limit - bytes.count  // (one byte more than room: to see the file goes on)
            let count = read(fd, appendingTo: &bytes, limit: want <= room ? want : room + 1)
            if bytes.count > limit { throw Unreadable(reason: "it is larger than " + byteCount(limit)) }
            if count == 0 || size > 0 && count > 0 && count < want && bytes.count == size { return }
            if count < 0 && errno != EINTR { throw Unreadable() }
        }
    }

    /// "64 KiB", "1 MiB", "100 bytes": a size limit in words.
    static func byteCount(_ count: Int) -> String {
        if count >= 1 << 20 && count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10 && count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }

    /// $HOME, or the user database's home folder.
    public static var home: String {
        if let home = Environment.value("HOME") { return home }
        // pointer: getpwuid's static entry, read at once.
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }
}

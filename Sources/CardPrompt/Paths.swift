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
        return [directory + "/" + name, directory + "/../share/cardline/" + name].first { isDirectory($0 + "/" + marker) == false }
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
            let written = bytes.extracting(offset...).withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// The whole of a file, read straight into bytes (no Foundation `Data` to copy from); nil
    /// when it cannot be opened or read. A relative `path` is taken from the open folder
    /// `folder` (a descriptor; by default the working folder).
    public static func contents(of path: String, in folder: Int32 = AT_FDCWD) -> [UInt8]? {
        var bytes: [UInt8] = []
        return read(path, in: folder, into: &bytes) ? bytes : nil
    }

    /// `contents(of:in:)` into `bytes`, emptied first with its room kept: a reader of many
    /// files reads each into the same array, without a new one each time (a bank's thousand
    /// rule files: a thousand allocations less). False (`bytes` holding anything) when the
    /// file cannot be opened or read.
    public static func read(_ path: String, in folder: Int32 = AT_FDCWD, into bytes: inout [UInt8]) -> Bool {
        bytes.removeAll(keepingCapacity: true)
        let fd = openat(folder, path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        // One read of the whole file when its size is known (one more byte to see the end).
        let size = fstat(fd, &info) == 0 && info.st_size > 0 ? Int(info.st_size) : 0
        // A regular file that gave exactly the size fstat said, short of the byte more asked
        // for, is at its end: no read more to see it (a read(2) a file, 1,000 of them for the
        // bench's 100,000 ranges). Anything else reads on until a read gives nothing.
        let regular = info.st_mode & S_IFMT == S_IFREG
        bytes.reserveCapacity(size + 1)
        while true {
            let limit = bytes.count <= size ? size + 1 - bytes.count : 64 * 1024
            let count = read(fd, appendingTo: &bytes, limit: limit)
            if count == 0 || regular && size > 0 && count > 0 && count < limit && bytes.count == size { return true }
            if count < 0 && errno != EINTR { return false }
        }
    }

    /// $HOME, or the user database's home folder.
    public static var home: String {
        if let home = Environment.value("HOME") { return home }
        // pointer: getpwuid's static entry, read at once.
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }
}

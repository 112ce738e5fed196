import CardPrompt

#if canImport(Glibc)
import Glibc
#endif

/// Reading and replacing whole files with the reason for a failure in words ("Permission
/// denied"), for `replay`'s scripts and goldens.
enum Files {
    /// Why a file could not be read or written, as `strerror` says it.
    struct Failure: Error {
        var reason: String

        init(reason: String) { self.reason = reason }

        /// The reason for `errno` (or `code`).
        init(errno code: Int32 = errno) { reason = String(cString: strerror(code)) }
    }

    /// The bytes of the file at `path`; nil when there is nothing at all there (not even a
    /// dangling link); throws when something is there but cannot be read as a file: no
    /// permission, a dangling link, a folder, a device.
    static func read(_ path: String) throws(Failure) -> [UInt8]? {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw Failure()
        }
        // O_NONBLOCK: a FIFO must not hang the run; it is refused below, like a folder.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw Failure() }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { throw Failure() }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw (info.st_mode & S_IFMT) == S_IFDIR ? Failure(errno: EISDIR) : Failure(reason: "not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure()
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Replaces the file at `path` with `bytes` atomically: they are written to a new file in
    /// the same folder, flushed to disk, and renamed over `path`, so a reader (or a crash) sees
    /// the old file or the new one, never half of one. The new file keeps the old one's
    /// permissions. Nothing is left behind on failure.
    static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        let directory = Paths.directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array(((directory.isEmpty ? "" : directory == "/" ? "/" : directory + "/") + "." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure() }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var closed = false
        do throws(Failure) {
            var old = stat()
            let mode = stat(path, &old) == 0 ? old.st_mode & 0o7777 : 0o644 & ~currentUmask()
            guard fchmod(fd, mode) == 0 else { throw Failure() }
            guard Terminal.writeAll(bytes, to: fd) else { throw Failure(errno: errno == 0 ? EIO : errno) }
            guard fsync(fd) == 0 else { throw Failure() }
            closed = true
            guard close(fd) == 0 else { throw Failure() }
            guard rename(temporary, path) == 0 else { throw Failure() }
        } catch {
            if !closed { close(fd) }
            unlink(temporary)
            throw error
        }
    }

    /// The process's umask (read by setting it and putting it back).
    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}

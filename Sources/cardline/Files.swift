import CardPrompt

#if canImport(Glibc)
    import Glibc
#endif

/// Opening files to read, and replacing whole files, with the reason for a failure in words
/// ("Permission denied"), for `replay`'s scripts and goldens.
enum Files {
    /// Why a file could not be read or written, as `strerror` says it.
    struct Failure: Error {
        var reason: String

        init(reason: String) { self.reason = reason }

        /// The reason for `errno` (or `code`).
        init(errno code: Int32 = errno) { reason = String(cString: strerror(code)) }
    }

    /// The file at `path` opened for reading; nil when there is nothing at all there (not even
    /// a dangling link); throws when something is there but cannot be read as a file: no
    /// permission, a dangling link, a folder, a FIFO, a device (`Paths.openForReading`). The
    /// caller closes it.
    static func open(_ path: String) throws(Failure) -> Int32? {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw Failure()
        }
        do throws(Paths.Unreadable) {
            return try Paths.openForReading(path)
        } catch {
            throw Failure(reason: error.reason)
        }
    }

    /// Reads `fd` to its end in 64 KiB chunks, handing each to `body`.
    static func forEachChunk(of fd: Int32, _ body: (Span<UInt8>) -> Void) throws(Failure) {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(64 * 1024)
        while true {
            chunk.removeAll(keepingCapacity: true)
            let count = Paths.read(fd, appendingTo: &chunk, limit: 64 * 1024)
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure()
            }
            if count == 0 { return }
            body(chunk.span)
        }
    }

    /// Replaces the file at `path` atomically, its new contents written piece by piece (a
    /// golden transcript can run to millions of lines): `write` them, then `commit`. They go
    /// to a new file in the same folder, flushed to disk and renamed over `path`, so a reader
    /// (or a crash) sees the old file or the new one, never half of one; the new file keeps
    /// the old one's permissions. Dropping it without a commit (or a failed commit) leaves
    /// the old file and nothing else.
    struct Replacement: ~Copyable {
        let path: String
        private let temporary: String
        private var fd: Int32
        private var pending: [UInt8] = []
        /// The first write that failed.
        private var failure: Failure?

        init(_ path: String) throws(Failure) {
            let directory = Paths.directory(of: path)
            let name = path.split(separator: "/").last.map(String.init) ?? path
            var template = Array(
                ((directory.isEmpty ? "" : directory == "/" ? "/" : directory + "/") + "." + name + ".XXXXXX")
                    .utf8CString)
            // unsafe: mkstemp(3) rewrites the template's X's in place, through its address.
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw Failure() }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var old = stat()
            let mode = stat(path, &old) == 0 ? old.st_mode & 0o7777 : 0o644 & ~currentUmask()
            guard fchmod(fd, mode) == 0 else {
                let failure = Failure()
                close(fd)
                unlink(temporary)
                throw failure
            }
            self.path = path
            self.temporary = temporary
            self.fd = fd
            pending.reserveCapacity(70 * 1024)
        }

        /// Adds bytes to the new contents (written in 64 KiB blocks; a failure shows at `commit`).
        mutating func write(_ bytes: Span<UInt8>) {
            guard failure == nil else { return }
            pending.append(bytes)
            if pending.count >= 64 * 1024 { flush() }
        }

        private mutating func flush() {
            guard failure == nil, !pending.isEmpty else { return }
            if !Terminal.writeAll(pending, to: fd) { failure = Failure(errno: errno == 0 ? EIO : errno) }
            pending.removeAll(keepingCapacity: true)
        }

        /// Flushes the new file to disk and renames it over the old one.
        consuming func commit() throws(Failure) {
            flush()
            var closed = false
            do throws(Failure) {
                if let failure { throw failure }
                guard fsync(fd) == 0 else { throw Failure() }
                closed = true
                guard close(fd) == 0 else { throw Failure() }
                guard rename(temporary, path) == 0 else { throw Failure() }
                fd = -1
            } catch {
                if !closed { close(fd) }
                fd = -1
                unlink(temporary)
                throw error
            }
        }

        deinit {
            if fd >= 0 {
                close(fd)
                unlink(temporary)
            }
        }
    }

    /// The process's umask (read by setting it and putting it back).
    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}

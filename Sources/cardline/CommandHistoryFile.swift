import CardPrompt
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The on-disk history of `:` command lines: `$XDG_STATE_HOME/cardline/history`, mode 0600.
/// Only lines starting with `:` are ever read or written: card numbers, expiry dates and
/// CVVs never reach this file.
struct CommandHistoryFile {
    let path: String
    /// Lines kept when the file is read back.
    static let limit = 500

    static func standard() -> CommandHistoryFile {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Paths.home + "/.local/state"
        return CommandHistoryFile(path: base + "/cardline/history")
    }

    func load() -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        return Array(lines.filter(Self.isCommand).suffix(Self.limit))
    }

    /// Appends one command line with a single write; silently does nothing if the folder
    /// cannot be made (history is a convenience, never a reason to fail).
    func append(_ line: String) {
        guard Self.isCommand(line), !line.contains("\n") else { return }
        let folder = Paths.directory(of: path)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(fd, bytes.baseAddress!, bytes.count) }
    }

    static func isCommand(_ line: String) -> Bool {
        // A command line, and one that holds too few digits to be part of a card number
        // (counted across spaces, dashes and dots: `:4111 1111 1111 1111` is never written).
        line.hasPrefix(":") && !CardNumber.mayHoldCardNumber(line)
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A PC/SC stack of the test's own: pcscd started by socket activation on a socket in a folder
/// of the test's (`PCSCLITE_CSOCK_NAME`), with a reader configuration of its own that loads
/// vsmartcard's virtual reader (vpcd) on free ports, and emulated cards (`Tests/chip/cards.py`)
/// connecting to it on the loopback. pcscd runs in a user and mount namespace of its own
/// (`unshare -rm`) where /run and pcsc-lite's driver folder are empty: its pid file stays
/// there, and it sees no USB reader, so the machine's own pcscd and readers are never touched.
/// Where namespaces are not allowed it runs without one (its pid file then goes to
/// /run/pcscd, as EMV.md notes). Stopped (its process group sent SIGTERM) when dropped.
final class ChipReaderStack {
    let folder: String
    /// vpcd's port for "Virtual PCD 00 00" (the next one is "Virtual PCD 00 01").
    let port: Int
    var socket: String { folder + "/pcscd.comm" }
    private var daemon: SpawnedProcess?
    static let reader = "Virtual PCD 00 00"

    /// Whether this machine has what the stack needs (pcscd, vpcd's driver, systemd's
    /// socket activation, Python); `make test` installs them (`make test-deps`).
    static var available: Bool {
        ["/usr/sbin/pcscd", driver, "/usr/bin/systemd-socket-activate", "/usr/bin/python3"].allSatisfy {
            FileManager.default.fileExists(atPath: $0)
        }
    }
    static let driverFolder = "/usr/lib/pcsc/drivers/serial"
    static let driver = driverFolder + "/libifdvpcd.so"

    init() throws {
        let name = UUID().uuidString.unicodeScalars.map {
            $0.properties.numericType != nil ? Character(Unicode.Scalar($0.value + 55)!) : Character($0)
        }
        folder = NSTemporaryDirectory() + "cardline-pcsc-" + String(name)
        try FileManager.default.createDirectory(atPath: folder + "/conf", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/serial", withIntermediateDirectories: true)
        port = try Self.freePortPair()
        for isolated in [true, false] {
            let hex = String(port, radix: 16, uppercase: true)
            let library = isolated ? folder + "/serial/libifdvpcd.so" : Self.driver
            try """
            FRIENDLYNAME "Virtual PCD"
            DEVICENAME   /dev/null:0x\(hex)
            LIBPATH      \(library)
            CHANNELID    0x\(hex)

            """.write(toFile: folder + "/conf/vpcd", atomically: true, encoding: .utf8)
            let activate = "/usr/bin/systemd-socket-activate -l \(socket) /usr/sbin/pcscd -f -c \(folder)/conf"
            let command =
                isolated
                ? [
                    "/usr/bin/unshare", "-rm", "/bin/sh", "-c",
                    "mount --bind \(Self.driverFolder) \(folder)/serial && mount -t tmpfs tmpfs /usr/lib/pcsc/drivers"
                        + " && mount -t tmpfs tmpfs /run && exec \(activate)",
                ]
                : ["/bin/sh", "-c", "exec \(activate)"]
            let process = try SpawnedProcess(
                command, environment: ["PATH=/usr/sbin:/usr/bin:/bin", "LANG=C.UTF-8"],
                descriptors: [(0, .null), (1, .null), (2, .pipe)], group: .ownGroup)
            if Self.waitForListening(process.pipes[2]!) {
                daemon = process
                // pcscd starts at the first client (socket activation) and only then loads vpcd,
                // which listens for cards: `cardline readers` is that client, and once it lists
                // the reader, a card can connect.
                let deadline = Date().addingTimeInterval(10)
                while Date() < deadline {
                    let listed = try? runPiped(
                        ["readers"], input: "",
                        environment: ["PCSCLITE_CSOCK_NAME": socket, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
                    if listed?.output.hasPrefix(Self.reader) == true { return }
                }
                throw POSIXError(.ETIMEDOUT)
            }
            kill(-process.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(process.pid, &status, 0)
            close(process.pipes[2]!)
        }
        throw POSIXError(.ECHILD)
    }

    deinit {
        if let daemon {
            kill(-daemon.pid, SIGTERM)
            Self.reap(daemon.pid)
            close(daemon.pipes[2]!)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The environment of a cardline that uses this stack.
    func environment(_ home: TemporaryHome, _ changes: [String: String?] = [:]) -> [String: String] {
        var all = home.environment(changing: changes)
        all["PCSCLITE_CSOCK_NAME"] = socket
        return all
    }

    /// Puts emulated card `name` (`Tests/chip/cards.py --list`) into the reader.
    func insert(_ name: String) throws -> EmulatedCard { try EmulatedCard(name, port: port) }

    /// Reads systemd-socket-activate's standard error until it says it listens (true), or it
    /// ends or 10 seconds pass (false).
    private static func waitForListening(_ fd: Int32) -> Bool {
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        var buffer = [UInt8](repeating: 0, count: 512)
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { return false }
            guard entry.revents != 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return false }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            if text.contains("Listening on") { return true }
        }
        return false
    }

    /// Waits for `pid` to end, killing its group after 10 seconds.
    static func reap(_ pid: pid_t) {
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(-pid, SIGKILL)
                waitpid(pid, &status, 0)
                return
            }
            usleep(10_000)  // (a wait for exit, with a deadline: not a synchronisation)
        }
    }

    /// A port P with P and P + 1 free on every interface (vpcd listens on both, on all of them).
    private static func freePortPair() throws -> Int {
        for _ in 0..<50 {
            let first = try boundPort(0)
            if (try? boundPort(first + 1)) != nil, first + 1 < 65536 { return first }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Binds a TCP socket to `port` (0: any) on all interfaces and closes it; the port bound.
    private static func boundPort(_ port: Int) throws -> Int {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = INADDR_ANY
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// An emulated card in the stack's reader: `Tests/chip/cards.py`, connected to vpcd on
/// 127.0.0.1, in until `remove()` closes its standard input (or it pulls itself out).
final class EmulatedCard {
    private let process: SpawnedProcess
    private var removed = false

    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("chip/cards.py").path
    }()

    init(_ name: String, port: Int) throws {
        process = try SpawnedProcess(
            ["/usr/bin/python3", Self.script, "--port", String(port), name],
            environment: ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"], descriptors: [(0, .pipe), (1, .null), (2, .null)],
            group: .ownGroup)
    }

    /// Takes the card out: its connection to vpcd closes, which pcscd reports as removed.
    func remove() {
        guard !removed else { return }
        removed = true
        close(process.pipes[0]!)
        ChipReaderStack.reap(process.pid)
    }

    deinit { remove() }
}

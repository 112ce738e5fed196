import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `SpawnedProcess` (PTYSupport) is the one place a program is started with posix_spawn, for
/// the tests, the bench and the pty driver: its descriptors, signals and process group are
/// those asked for, and no other file of the package calls posix_spawn itself.
@Suite struct SpawnedProcessTests {
    /// `/bin/sh -c script`: what it wrote on its stdout pipe (its stdin pipe fed `input`),
    /// and its exit status.
    func shell(
        _ script: String, input: String = "", closingOthers: Bool = false, signals: SpawnedProcess.Signals = .inherited,
        group: SpawnedProcess.Group = .ownGroup
    ) throws -> (status: Int32, output: String) {
        let child = try SpawnedProcess(
            ["/bin/sh", "-c", script], environment: ["PATH=/usr/bin:/bin"],
            descriptors: [(0, .pipe), (1, .pipe), (2, .null)], closingOthers: closingOthers,
            signals: signals, group: group)
        let (toChild, fromChild) = (child.pipes[0]!, child.pipes[1]!)
        #expect(write(toChild, input, input.utf8.count) == input.utf8.count)
        close(toChild)
        let output = readToEnd(fromChild)
        close(fromChild)
        return (exitStatus(of: child.pid), String(decoding: output, as: UTF8.self))
    }

    @Test func pipesCarryInputAndOutputAndTheStatusComesBack() throws {
        let run = try shell("tr a-z A-Z; exit 3", input: "four one one one\n")
        #expect(run.output == "FOUR ONE ONE ONE\n")
        #expect(run.status == 3)
    }

    /// A descriptor this process holds without close-on-exec reaches the child unless
    /// `closingOthers`; the child's own descriptors are the three asked for.
    @Test func closingOthersKeepsEveryOtherDescriptorAway() throws {
        let stray = open("/dev/null", O_RDONLY)  // not close-on-exec
        try #require(stray > 2)
        defer { close(stray) }
        let probe = "[ -e /proc/$$/fd/\(stray) ] && echo open || echo closed"
        #expect(try shell(probe).output == "open\n")
        #expect(try shell(probe, closingOthers: true).output == "closed\n")
    }

    /// `.asFromAShell(blocking:)`: exactly those signals blocked, none ignored; the process
    /// group or session of its own.
    @Test func signalsAndGroupAreThoseAskedFor() throws {
        let status =
            #"grep -E '^(SigBlk|SigIgn):' /proc/$$/status | tr -s '\t ' ' '; cut -d ' ' -f 1,5,6 /proc/$$/stat"#
        let blocked = try shell(status, signals: .asFromAShell(blocking: [SIGWINCH]))
        let lines = blocked.output.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(blocked.output)")
        // The 31 standard signals (glibc keeps its own two real-time signals, 32 and 33, as it will).
        func standard(_ line: String) -> UInt64? {
            UInt64(line.split(separator: " ").last ?? "", radix: 16).map { $0 & 0x7FFF_FFFF }
        }
        #expect(lines[0].hasPrefix("SigBlk:") && standard(lines[0]) == UInt64(1) << (SIGWINCH - 1), "\(lines[0])")
        #expect(lines[1].hasPrefix("SigIgn:") && standard(lines[1]) == 0, "\(lines[1])")
        let ids = lines[2].split(separator: " ")
        #expect(ids.count == 3 && ids[0] == ids[1] && ids[0] != ids[2], "own group, not own session: \(lines[2])")
        let session = try shell(status, signals: .asFromAShell(), group: .ownSession)
        let sessionIDs = session.output.split(separator: "\n").last?.split(separator: " ") ?? []
        #expect(
            sessionIDs.count == 3 && sessionIDs[0] == sessionIDs[1] && sessionIDs[0] == sessionIDs[2],
            "\(session.output)")
    }

    /// Nothing else in the package writes posix_spawn again: the tests, the bench and the pty
    /// driver all start their programs through `SpawnedProcess`.
    @Test func noOtherFileCallsPosixSpawn() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var callers: [String] = []
        for folder in ["Sources", "Tests"] {
            let base = root.appendingPathComponent(folder).path
            for case let path as String in FileManager.default.enumerator(atPath: base) ?? NSEnumerator()
            where path.hasSuffix(".swift") {
                let text = try String(contentsOfFile: base + "/" + path, encoding: .utf8)
                if text.contains("posix_spawn" + "(") { callers.append(folder + "/" + path) }
            }
        }
        #expect(callers == ["Sources/PTYSupport/SpawnedProcess.swift"])
    }
}

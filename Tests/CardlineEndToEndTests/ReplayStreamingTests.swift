import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `cardline replay` reads a script line by line (`ScriptReader`), never the whole file: its
/// peak memory on a 48 MB script stays within a few MB of its peak on a tiny one. Reading the
/// script whole (or keeping its lines, or its transcript) would add at least the file's size.
@Suite struct ReplayStreamingTests {
    let home = TemporaryHome()

    /// A script of `entries` card entries, each after a comment line of `padding` bytes (the
    /// bulk of the file: comments cost the engine nothing, so the test stays quick).
    func writeScript(_ path: String, entries: Int, padding: Int) throws {
        let comment = "# " + String(repeating: "x", count: padding) + "\n"
        var text = "@today 2026-11\n"
        for i in 1...entries {
            text += comment + "4111 1111 1111 1111 12/30 123<Enter>\n"
            if i % 1000 == 0 { text += "@expect cards \(i)\n" }
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Replays `script` with its transcript on a pipe read here; once `readBefore` bytes of it
    /// have come (the first pass over the whole script is over, and the replay is streaming),
    /// the process's high-water mark (VmHWM) is read while it waits for the pipe to drain.
    func replayPeak(_ script: String, readBefore: Int) throws -> (status: Int32, peakKiB: Int, output: Int) {
        let child = try SpawnedProcess(
            [cardlineBinary, "replay", script], environment: SpawnedProcess.environment(home.environment),
            descriptors: [(0, .null), (1, .pipe), (2, .null)])
        let output = child.pipes[1]!
        let pid = child.pid
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var received = 0
        var peak = 0
        while true {
            let count = read(
                output, &buffer, min(buffer.count, readBefore > received ? readBefore - received : buffer.count))
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            received += count
            if peak == 0 && received >= readBefore {
                // The replay is blocked on the full pipe (or still writing): alive, mid-stream.
                peak = peakResidentKiB(pid) ?? 0
            }
        }
        return (exitStatus(of: pid), peak, received)
    }

    @Test func aLargeScriptIsReadLineByLine() throws {
        let small = home.path + "/small.session"
        let large = home.path + "/large.session"
        try writeScript(small, entries: 1_000, padding: 10)
        try writeScript(large, entries: 40_000, padding: 1_200)  // ~50 MB
        let size = try FileManager.default.attributesOfItem(atPath: large)[.size] as! Int
        #expect(size > 48_000_000)
        // Past the first quarter of the small script's transcript, and of the large one's.
        let baseline = try replayPeak(small, readBefore: 16 * 1024)
        let measured = try replayPeak(large, readBefore: 1024 * 1024)
        #expect(baseline.status == 0 && measured.status == 0, "exit \(baseline.status), \(measured.status)")
        #expect(measured.output > 4 * 1024 * 1024, "a transcript streamed out: \(measured.output) bytes")
        #expect(baseline.peakKiB > 1_000 && measured.peakKiB > 1_000, "real measurements")
        // The script whole would be +47,000 KiB; streaming adds nothing that grows with it.
        let allowance = testingUnderASan ? 24_000 : 8_000
        #expect(
            measured.peakKiB - baseline.peakKiB < allowance,
            "peak \(measured.peakKiB) KiB on a \(size / 1_000_000) MB script, \(baseline.peakKiB) KiB on a small one")
    }
}

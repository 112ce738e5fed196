import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The command history file (`$XDG_STATE_HOME/cardline/history`) on the piped path, which
/// writes it as the prompt does: it is never followed through a link, never written when
/// anything about it is unexpected (history is then off for the run, with one warning), kept
/// at mode 0600 in a 0700 folder, and trimmed by an atomic rewrite.
@Suite struct HistoryFileTests {
    let home = TemporaryHome()
    var folder: String { home.path + "/state/cardline" }
    var historyPath: String { folder + "/history" }
    let commands = ":cards\n:quit\n"

    /// The status and output of a run in a fresh home with nothing unusual: what a run whose
    /// history is off must still give.
    func baseline() throws -> (status: Int32, output: String) {
        let clean = TemporaryHome()
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: clean.environment, timeout: 20)
        return (run.status, run.output)
    }

    func makeFolder(mode: mode_t = 0o700) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(folder, mode) == 0)
    }

    func write(_ text: String, to path: String, mode: mode_t) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
    }

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    func names(in path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// Exactly one warning, naming the history path, and nothing else on stderr.
    func expectOneWarning(_ errors: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = errors.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(errors)", sourceLocation: sourceLocation)
        #expect(
            lines.first?.hasPrefix("cardline: warning: ") == true, "stderr: \(errors)", sourceLocation: sourceLocation)
        #expect(errors.contains(historyPath), "stderr: \(errors)", sourceLocation: sourceLocation)
    }

    @Test func thePipedPathWritesHistoryAt0600In0700() throws {
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(run.errors.isEmpty)
        #expect(try String(contentsOfFile: historyPath, encoding: .utf8) == commands)
        #expect(mode(historyPath) == 0o600)
        #expect(mode(folder) == 0o700)
    }

    @Test func aSymlinkToAFileIsNotFollowed() throws {
        let expected = try baseline()
        try makeFolder()
        let target = home.path + "/notes.txt"
        try write("mine\n", to: target, mode: 0o644)
        #expect(symlink(target, historyPath) == 0)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mine\n")
        #expect(mode(target) == 0o644)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: historyPath)) == target)
        #expect(names(in: folder) == ["history"])
        expectOneWarning(run.errors)
        #expect(run.status == expected.status)
        #expect(run.output == expected.output)
    }

    @Test func aDanglingSymlinksTargetIsNotCreated() throws {
        try makeFolder()
        let target = home.path + "/elsewhere"
        #expect(symlink(target, historyPath) == 0)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(names(in: folder) == ["history"])
        expectOneWarning(run.errors)
    }

    @Test func theWarningShowsThePathsControlCharactersEscaped() throws {
        let state = home.path + "/state\u{1B}[2J"
        try FileManager.default.createDirectory(atPath: state + "/cardline", withIntermediateDirectories: true)
        #expect(symlink(home.path + "/elsewhere", state + "/cardline/history") == 0)
        let environment = home.environment.merging(["XDG_STATE_HOME": state]) { $1 }
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: environment, timeout: 20)
        #expect(!run.errors.contains("\u{1B}"))
        #expect(
            run.errors
                == "cardline: warning: \(home.path)/state\\u{1B}[2J/cardline/history: is a symbolic link; command history is off for this run\n"
        )
    }

    @Test func aLooseFileModeIsTightenedTo0600() throws {
        try makeFolder()
        try write(":rules\n", to: historyPath, mode: 0o666)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(run.errors.isEmpty)
        #expect(mode(historyPath) == 0o600)
        #expect(try String(contentsOfFile: historyPath, encoding: .utf8) == ":rules\n" + commands)
    }

    @Test func aLooseFolderModeIsTightenedTo0700() throws {
        try makeFolder(mode: 0o777)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(run.errors.isEmpty)
        #expect(mode(folder) == 0o700)
        #expect(try String(contentsOfFile: historyPath, encoding: .utf8) == commands)
    }

    @Test func aFIFOAtTheHistoryPathTurnsHistoryOffWithoutHanging() throws {
        let expected = try baseline()
        try makeFolder()
        #expect(mkfifo(historyPath, 0o600) == 0)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(!run.timedOut)
        #expect(run.status == expected.status)
        expectOneWarning(run.errors)
        #expect(names(in: folder) == ["history"])
    }

    @Test func aFolderAtTheHistoryPathTurnsHistoryOff() throws {
        try FileManager.default.createDirectory(atPath: historyPath, withIntermediateDirectories: true)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(!run.timedOut)
        expectOneWarning(run.errors)
        #expect(names(in: historyPath).isEmpty)
        #expect(names(in: folder) == ["history"])
    }

    @Test func aSymlinkedFolderIsNotWrittenThrough() throws {
        let real = home.path + "/real-state"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        #expect(chmod(real, 0o755) == 0)
        try FileManager.default.createDirectory(atPath: home.path + "/state", withIntermediateDirectories: true)
        #expect(symlink(real, folder) == 0)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(names(in: real).isEmpty)
        #expect(mode(real) == 0o755)
        expectOneWarning(run.errors)
        #expect(run.errors.contains(": its folder is a symbolic link;"))
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the file to another user"))
    func aFileOwnedBySomeoneElseIsLeftAlone() throws {
        try makeFolder()
        try write(":rules\n", to: historyPath, mode: 0o644)
        #expect(chown(historyPath, 65534, 65534) == 0)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(try String(contentsOfFile: historyPath, encoding: .utf8) == ":rules\n")
        #expect(mode(historyPath) == 0o644)
        expectOneWarning(run.errors)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the folder to another user"))
    func aFolderOwnedBySomeoneElseIsLeftAlone() throws {
        try makeFolder(mode: 0o777)
        #expect(chown(folder, 65534, 65534) == 0)
        let run = try runPiped(["--today", "2026-11"], input: commands, environment: home.environment, timeout: 20)
        #expect(names(in: folder).isEmpty)
        #expect(mode(folder) == 0o777)
        expectOneWarning(run.errors)
    }

    @Test func aLongFileIsTrimmedToTheNewestLinesWithNoTemporaryFileLeft() throws {
        try makeFolder()
        let old = (1...1200).map { ":note \(String(format: "%04d", $0))\n" }.joined()
        try write(old, to: historyPath, mode: 0o600)
        let run = try runPiped(["--today", "2026-11"], input: ":cards\n", environment: home.environment, timeout: 20)
        #expect(run.errors.isEmpty)
        let kept = (701...1200).map { ":note \(String(format: "%04d", $0))\n" }.joined()
        #expect(try String(contentsOfFile: historyPath, encoding: .utf8) == kept + ":cards\n")
        #expect(names(in: folder) == ["history"])
        #expect(mode(historyPath) == 0o600)
    }

    @Test func aFileOverTheSizeLimitIsTrimmed() throws {
        try makeFolder()
        // 300 lines of 300 bytes: under the line limit, over 64 KiB.
        let line = ":note " + String(repeating: "x", count: 293) + "\n"
        try write(String(repeating: line, count: 300), to: historyPath, mode: 0o600)
        let run = try runPiped(["--today", "2026-11"], input: ":cards\n", environment: home.environment, timeout: 20)
        #expect(run.errors.isEmpty)
        let size = (try FileManager.default.attributesOfItem(atPath: historyPath)[.size] as? Int) ?? 0
        #expect(size <= 64 * 1024)
        let text = try String(contentsOfFile: historyPath, encoding: .utf8)
        #expect(text.hasSuffix(line + ":cards\n"))
        #expect(text.split(separator: "\n").dropLast().allSatisfy { $0 + "\n" == line })
        #expect(names(in: folder) == ["history"])
    }

    /// Eight prompts started together, each appending its own 60 command lines to a file over
    /// the trimming limit, so that they also trim it as they start: every line each appended
    /// is in the file exactly once, in its order, and the trim kept the newest 500 old lines.
    /// (Before appends and trims took a lock, a trim renamed its copy over lines another
    /// prompt had appended meanwhile.)
    @Test func concurrentPromptsLoseNoLine() throws {
        try makeFolder()
        let old = (1...1001).map { ":old \(String(format: "%04d", $0))" }
        try write(old.map { $0 + "\n" }.joined(), to: historyPath, mode: 0o600)
        let prompts = 8
        let linesEach = 60
        let lines = (0..<prompts).map { prompt in
            (0..<linesEach).map { ":note p\(prompt) l\(String(format: "%02d", $0))" }
        }
        var inputs: [String] = []
        for (prompt, own) in lines.enumerated() {
            let input = home.path + "/input-\(prompt)"
            try (own.map { $0 + "\n" }.joined()).write(toFile: input, atomically: false, encoding: .utf8)
            inputs.append(input)
        }
        // All started before any is waited for: they run at the same time.
        let runs = try inputs.map {
            try startPiped(["--today", "2026-11"], inputFile: $0, environment: home.environment)
        }
        for run in runs {
            run.process.waitUntilExit()
            #expect(run.process.terminationStatus == 0)
            #expect(run.errors().isEmpty)
        }
        let kept = try String(contentsOfFile: historyPath, encoding: .utf8).split(separator: "\n").map(String.init)
        var counts: [String: Int] = [:]
        for line in kept { counts[line, default: 0] += 1 }
        let missing = lines.joined().filter { counts[$0] != 1 }
        #expect(missing.isEmpty, "\(missing.count) of \(prompts * linesEach) lines not in the file exactly once")
        for own in lines {
            #expect(kept.filter { own.contains($0) } == own, "a prompt's lines out of order")
        }
        #expect(kept.filter { $0.hasPrefix(":old ") } == Array(old.suffix(500)))
        #expect(kept.count == 500 + prompts * linesEach)
        #expect(names(in: folder) == ["history"])
    }

    /// A relative XDG_STATE_HOME or XDG_CONFIG_HOME is ignored (the XDG specification makes it
    /// invalid): the history goes to ~/.local/state, and rules in a relative config folder
    /// (here a broken one, which would be an error) are not read.
    @Test func relativeXDGFoldersAreIgnored() throws {
        let start = home.path + "/start"
        try FileManager.default.createDirectory(
            atPath: start + "/config/cardline/rules", withIntermediateDirectories: true)
        try "{\"id\": \"broken\",\n".write(
            toFile: start + "/config/cardline/rules/broken.json", atomically: false, encoding: .utf8)
        let input = home.path + "/input"
        try commands.write(toFile: input, atomically: false, encoding: .utf8)
        var environment = home.environment
        environment["XDG_STATE_HOME"] = "state"
        environment["XDG_CONFIG_HOME"] = "config"
        let run = try startPiped(["--today", "2026-11"], inputFile: input, environment: environment, directory: start)
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 0)
        #expect(run.errors().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: start + "/state"))
        #expect(try String(contentsOfFile: home.path + "/.local/state/cardline/history", encoding: .utf8) == commands)
    }

    @Test func noHistoryWritesNothing() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--no-history"], input: commands, environment: home.environment, timeout: 20)
        #expect(run.errors.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: home.path + "/state"))
    }
}

/// A cardline started on a pipe-less input (the file `inputFile`), stdout thrown away and
/// stderr kept in a file, in `directory` (default: the test's own), not waited for.
struct StartedRun {
    let process: Process
    let errorsPath: String
    /// What the run wrote to stderr (all of it once the process has exited).
    func errors() -> String { (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "<no stderr file>" }
}

func startPiped(_ arguments: [String], inputFile: String, environment: [String: String], directory: String? = nil)
    throws -> StartedRun
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: cardlineBinary)
    process.arguments = arguments
    process.environment = environment
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let errorsPath = inputFile + ".stderr"
    _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
    process.standardInput = FileHandle(forReadingAtPath: inputFile)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle(forWritingAtPath: errorsPath)
    try process.run()
    return StartedRun(process: process, errorsPath: errorsPath)
}

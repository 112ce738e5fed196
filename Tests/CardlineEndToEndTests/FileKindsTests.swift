import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36, item 8: every file cardline reads — a public key (`--encrypt-to`), a message
/// catalog, a rule file, a `.session` script, a `check` input named by its path — is a regular
/// file, or is refused at once (exit 66, its path and what it is), never waited on (a FIFO) nor
/// read without end (`/dev/zero`); a file over its size limit is refused, not allocated. A FIFO
/// stays a legitimate input for `check`'s records (`check cards.fifo`).
@Suite struct FileKindsTests {
    let home = TemporaryHome()

    /// cardline with stdout and stderr on pipes, in the test's home, `input` on stdin from a
    /// file (a child refused before it reads stdin must not make the writer's end take
    /// SIGPIPE), under `ulimit -v` of 1 GiB (a reader that takes `/dev/zero` whole then fails
    /// at once, rather than filling the shared machine's memory) and killed after 20 s (a
    /// reader that waits on a FIFO fails its test rather than hanging).
    func run(_ arguments: [String], input: String = "") throws -> (
        status: Int32, output: String, errors: String, timedOut: Bool
    ) {
        let file = home.path + "/input.txt"
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        return try runPiped(
            ["-c", "ulimit -v 1048576; exec \"$0\" \"$@\" < \"$INPUT\"", cardlineBinary] + arguments,
            input: "", environment: home.environment.merging(["INPUT": file]) { $1 }, timeout: 20,
            executable: "/bin/sh")
    }

    /// Things that are not regular files.
    enum Kind: String, CaseIterable, Sendable {
        case fifo, devZero, folder

        /// Makes `path` one.
        func make(at path: String) throws {
            switch self {
            case .fifo: try #require(mkfifo(path, 0o600) == 0)
            case .devZero: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
            case .folder: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
        }

        /// What the refusal says it is.
        var words: String {
            switch self {
            case .fifo: return "it is a FIFO (named pipe), not a regular file"
            case .devZero: return "it is a character device, not a regular file"
            case .folder: return "it is a folder"
            }
        }
    }

    static let card = "4111111111111111 12/30 987\n"
    static let prompt = ["--today", "2026-11", "--no-history", "--print", "--once"]

    /// `--encrypt-to` of the prompt and of `check`: 66 before any card is read, the one line
    /// naming the option and the file.
    @Test(arguments: Kind.allCases)
    func aKeyThatIsNotAFileIsRefusedAtOnce(kind: Kind) throws {
        let key = home.path + "/key.pem"
        try kind.make(at: key)
        for arguments in [Self.prompt + ["--encrypt-to", key], ["check", "--encrypt-to", key]] {
            let run = try run(arguments, input: Self.card)
            #expect(!run.timedOut)
            #expect(run.status == 66, "\(arguments): \(run.errors)")
            #expect(run.output.isEmpty)
            #expect(
                run.errors == "cardline: error: --encrypt-to \(key): cannot read it: \(kind.words)\n", "\(run.errors)")
        }
    }

    /// A catalog of the language asked for (`--messages DIR`, `DIR/fr.json`), and the same file
    /// given to `messages lint` by name or found in the user's folder.
    @Test(arguments: Kind.allCases)
    func aCatalogThatIsNotAFileIsRefusedAtOnce(kind: Kind) throws {
        let folder = home.path + "/config/cardline/messages"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let catalog = folder + "/fr.json"
        try kind.make(at: catalog)
        let said = "cardline: error: cannot read message catalog \(catalog): \(kind.words)\n"
        let prompt = try run(["--locale", "fr"] + Self.prompt, input: Self.card)
        #expect(!prompt.timedOut)
        #expect(prompt.status == 66, "\(prompt.errors)")
        #expect(prompt.output.isEmpty)
        #expect(prompt.errors == said, "\(prompt.errors)")
        for arguments in [["messages", "lint", catalog], ["messages", "lint"]] {
            let lint = try run(arguments)
            #expect(!lint.timedOut)
            #expect(lint.status == 66, "\(arguments): \(lint.errors)")
            #expect(lint.errors == said, "\(lint.errors)")
        }
    }

    /// A rule file (`DIR/bank.json`) of `--rules DIR`, for the prompt, `check` and `rules lint`.
    @Test(arguments: Kind.allCases)
    func aRuleFileThatIsNotAFileIsRefusedAtOnce(kind: Kind) throws {
        let folder = home.path + "/bank"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try kind.make(at: folder + "/bank.json")
        for arguments in [
            Self.prompt + ["--rules", folder], ["check", "--rules", folder], ["rules", "lint", folder],
        ] {
            let run = try run(arguments, input: Self.card)
            #expect(!run.timedOut)
            #expect(run.status == 66, "\(arguments): \(run.errors)")
            #expect(run.output.isEmpty || arguments[0] == "rules", "\(run.output)")
            #expect(run.errors.contains("\(folder)/bank.json: \(kind.words)"), "\(arguments): \(run.errors)")
        }
    }

    /// A `.session` script named by its path (a folder there is a folder of scripts).
    @Test(arguments: [Kind.fifo, .devZero])
    func aScriptThatIsNotAFileIsRefusedAtOnce(kind: Kind) throws {
        let script = home.path + "/card.session"
        try kind.make(at: script)
        let run = try run(["replay", script])
        #expect(!run.timedOut)
        #expect(run.status == 66, "\(run.errors)")
        #expect(run.errors.hasPrefix("cardline: error: cannot read \(script): \(kind.words)\n"), "\(run.errors)")
    }

    /// `check` reads records from a FIFO named by its path, as it reads a pipe on `-`: it waits
    /// for the writer. A device or a folder is refused.
    @Test func checkReadsAFIFOButNotADevice() throws {
        let fifo = home.path + "/cards.fifo"
        try Kind.fifo.make(at: fifo)
        let written = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // Opens once cardline has the FIFO open to read.
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = "4111111111111111 12/30 987\n5555555555554444 03/31 123\n".withCString { write(fd, $0, strlen($0)) }
                close(fd)
            }
            written.signal()
        }
        let streamed = try run(["check", "--today", "2026-11", fifo])
        if written.wait(timeout: .now()) == .timedOut {
            // cardline never opened it: let the writer go.
            let fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            written.wait()
            close(fd)
        }
        #expect(!streamed.timedOut)
        #expect(streamed.status == 0, "\(streamed.errors)")
        #expect(streamed.output.split(separator: "\n").count == 2, "\(streamed.output)")
        #expect(streamed.errors == "2 records, 2 valid, 0 invalid\n", "\(streamed.errors)")

        for kind in [Kind.devZero, .folder] {
            let input = home.path + "/input-\(kind)"
            try kind.make(at: input)
            let refused = try run(["check", "--today", "2026-11", input])
            #expect(!refused.timedOut)
            #expect(refused.status == 66, "\(refused.errors)")
            let words = kind == .folder ? kind.words : "it is a character device, not a regular file or a pipe"
            #expect(
                refused.errors == "cardline: error: cannot read \(input): \(words)\n0 records, 0 valid, 0 invalid\n",
                "\(refused.errors)")
        }
    }

    /// A catalog, a key or a rule file larger than any real one is refused with its size
    /// limit, never read whole.
    @Test func filesOverTheirSizeLimitAreRefused() throws {
        let big = [UInt8](repeating: UInt8(ascii: " "), count: (16 << 20) + 1)
        let folder = home.path + "/config/cardline/messages"
        let rules = home.path + "/bank"
        for made in [folder, rules] {
            try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        }
        try Data(big[..<(2 << 20)]).write(to: URL(fileURLWithPath: folder + "/fr.json"))
        try Data(big[..<(65 << 10)]).write(to: URL(fileURLWithPath: home.path + "/key.pem"))
        try Data(big).write(to: URL(fileURLWithPath: rules + "/bank.json"))
        let catalog = try run(["--locale", "fr"] + Self.prompt, input: Self.card)
        #expect(catalog.status == 66)
        #expect(
            catalog.errors
                == "cardline: error: cannot read message catalog \(folder)/fr.json: it is larger than 1 MiB\n",
            "\(catalog.errors)")
        let key = try run(Self.prompt + ["--encrypt-to", home.path + "/key.pem"], input: Self.card)
        #expect(key.status == 66)
        #expect(
            key.errors
                == "cardline: error: --encrypt-to \(home.path)/key.pem: cannot read it: it is larger than 64 KiB\n",
            "\(key.errors)")
        let rule = try run(Self.prompt + ["--rules", rules], input: Self.card)
        #expect(rule.status == 66)
        #expect(rule.errors.contains("\(rules)/bank.json: it is larger than 16 MiB"), "\(rule.errors)")
    }
}

import CardKit
import CardPrompt
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the binary with stdin fed by `feed` (called with the pipe's write end), stdout and
/// stderr discarded; returns its exit status and its own peak memory (from wait4).
func runMeasuringMemory(_ arguments: [String], environment: [String: String], feed: (Int32) -> Void) throws -> (
    status: Int32, peakKiB: Int
) {
    // A process group of its own, like every cardline a test starts.
    let child = try SpawnedProcess(
        [cardlineBinary] + arguments, environment: SpawnedProcess.environment(environment),
        descriptors: [(0, .pipe), (1, .null), (2, .null)])
    let input = child.pipes[0]!
    let pid = child.pid
    feed(input)
    // The child's own high-water mark, read while it still waits for the end of its input.
    // (Not wait4's ru_maxrss: posix_spawn's child runs in the test process's memory until it
    // execs, so that figure can be the whole test runner's.)
    let peak = peakResidentKiB(pid) ?? 0
    close(input)
    return (exitStatus(of: pid), peak)
}

@Suite struct CheckCommandTests {
    let home = TemporaryHome()

    func check(_ arguments: [String], input: String = "") throws -> (
        status: Int32, output: String, errors: String, timedOut: Bool
    ) {
        try runPiped(["check", "--today", "2026-11"] + arguments, input: input, environment: home.environment)
    }

    /// An input large enough for the two-core path (blocks cut in two at a line break, the
    /// halves checked at once): every record comes out once, in input order, numbered by its
    /// line, with comments and blank lines counted but not reported, from a file and a pipe.
    @Test func largeInputsKeepInputOrderAndLineNumbers() throws {
        var input = ""
        var expectedLines: [Int] = []
        let numbers = [
            "4111111111111111", "4111 1111 1111 1112", "378282246310005,12/30,1234", "5555-5555-5555-4444,01/2020",
        ]
        for line in 1...40_000 {
            if line % 97 == 0 {
                input += "# comment \(line)\n"
                continue
            }
            if line % 89 == 0 {
                input += "\n"
                continue
            }
            input += numbers[line % numbers.count] + "\n"
            expectedLines.append(line)
        }
        let file = home.path + "/large.txt"
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        for arguments in [[file], ["-"]] {
            let run = try check(arguments, input: arguments == ["-"] ? input : "")
            #expect(run.status == 1)
            let lines = run.output.split(separator: "\n")
            let numbered = lines.compactMap {
                $0.split(separator: ",").first?.split(separator: ":").last.flatMap { Int($0) }
            }
            #expect(numbered == expectedLines)
            #expect(lines.allSatisfy { $0.hasPrefix("{\"line\":") && $0.hasSuffix("]}") })
            let valid = expectedLines.filter { $0 % numbers.count != 1 && $0 % numbers.count != 3 }.count
            #expect(
                run.errors == "\(expectedLines.count) records, \(valid) valid, \(expectedLines.count - valid) invalid\n"
            )
        }
    }

    /// The JSON Lines `check` writes a block at a time (a cursor into a batch on the stack; on
    /// two cores, several blocks at once) are exactly those `CardCheck.appendJSON` writes one
    /// record at a time: varied records (every bundled network's samples, numbers of 0 to 25
    /// digits, stray characters, expiries and codes right and wrong, JSON records, comments,
    /// blank lines), enough for several blocks and batches, masked and unmasked.
    @Test func jsonLinesAreThoseOfTheWriterRecordByRecord() throws {
        let rules = try RuleSources.load(folders: [RuleSources.compiledIn])
        let checker = CardCheck(rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        let samples = rules.networks.flatMap { rules.sampleNumbers(of: $0, count: 4, seed: 3) }
        var random = SeededRandom(seed: 31)
        func digit() -> String { String(random.next() % 10) }
        var lines: [String] = []
        for _ in 0..<30_000 {
            switch random.next() % 40 {
            case 0: lines.append("# a comment")
            case 1: lines.append("")
            case 2:
                lines.append(#"{"number": "4111111111111111", "expiry": {"month": 12, "year": 2030}, "cvv": "123"}"#)
            case 3: lines.append(#"{"number": 4111}"#)
            default:
                let digits =
                    random.next() % 2 == 0
                    ? samples[Int(random.next() % UInt64(samples.count))].map { String($0) }
                    : (0..<Int(random.next() % 26)).map { _ in digit() }
                let separator = ["", " ", "-"][Int(random.next() % 3)]
                var record = stride(from: 0, to: digits.count, by: 4).map {
                    digits[$0..<min($0 + 4, digits.count)].joined()
                }.joined(separator: separator)
                if random.next() % 25 == 0 { record += "x" }
                if random.next() % 2 == 0 {
                    record +=
                        ",\(random.next() % 2)\(digit())/"
                        + (random.next() % 2 == 0 ? "\(digit())\(digit())" : "20\(digit())\(digit())")
                }
                if random.next() % 3 == 0 { record += "," + (0..<Int(random.next() % 6)).map { _ in digit() }.joined() }
                lines.append(record)
            }
        }
        let file = home.path + "/varied.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        for unmasked in [false, true] {
            var expected: [UInt8] = []
            for (index, line) in lines.enumerated() where !line.isEmpty && !line.hasPrefix("#") {
                let bytes = Array(line.utf8)
                let result = line.hasPrefix("{") ? checker.checkJSON(bytes.span).result : checker.check(bytes.span)
                checker.appendJSON(result, line: index + 1, unmasked: unmasked, to: &expected)
            }
            let run = try check((unmasked ? ["--unmasked"] : []) + [file])
            #expect(run.output.utf8.count > 3 * 128 * 1024)  // several blocks
            #expect(run.output == String(decoding: expected, as: UTF8.self), "unmasked: \(unmasked)")
        }
    }

    @Test func allValidExitsZeroWithASummaryOnStderr() throws {
        let run = try check([], input: "# header comment\n\n4111 1111 1111 1111,12/30,123\n378282246310005\n")
        #expect(run.status == 0)
        #expect(run.errors == "2 records, 2 valid, 0 invalid\n")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines[0].hasPrefix(
                #"{"line":3,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111""#
            ))
        #expect(lines[1].hasPrefix(#"{"line":4,"network":"american-express""#))
    }

    @Test func anInvalidRecordExitsOneAndAMalformedOneSixtyFive() throws {
        let invalid = try check([], input: "4111111111111112\n")
        #expect(invalid.status == 1)
        #expect(invalid.errors == "1 record, 0 valid, 1 invalid\n")
        let malformed = try check([], input: "4111111111111111\n1,2,3,4\n")
        #expect(malformed.status == 65)
        #expect(malformed.output.contains(#""errors":["record_format""#))
    }

    @Test func filesInOrderAndDashForStandardInput() throws {
        let file = home.path + "/cards.txt"
        try "4111111111111111\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = try check([file, "-", file], input: "378282246310005\n")
        #expect(run.status == 0)
        #expect(run.output.split(separator: "\n").map { $0.contains("visa") ? "v" : "a" } == ["v", "a", "v"])
        let missing = try check([home.path + "/none.txt"])
        #expect(missing.status == 66)
        #expect(missing.errors.contains("cannot read \(home.path)/none.txt"))
    }

    @Test func textAndSummaryFormats() throws {
        let text = try check(["--format", "text"], input: "4111111111111112,12/30\n")
        #expect(
            text.output
                == "line 1: 411111******1112 Visa: invalid: the number's check digit is wrong (it fails the Luhn check)\n"
        )
        let summary = try check(["--format", "summary"], input: "4111111111111111\n4111111111111112\n")
        #expect(summary.output.isEmpty)
        #expect(summary.errors == "2 records, 1 valid, 1 invalid\n")
    }

    @Test func unmaskedOnlyIntoAPipeAndNeverTheCode() throws {
        let piped = try check(["--unmasked"], input: "4111111111111111,12/30,987\n")
        #expect(piped.output.contains(#""number":"4111111111111111""#))
        #expect(!piped.output.contains("987"))
        let masked = try check([], input: "4111111111111111,12/30,987\n")
        #expect(!masked.output.contains("4111111111111111") && !masked.output.contains("987"))
        let t = try PseudoTerminal(arguments: ["check", "--unmasked"], environment: home.environment)
        t.expect("--unmasked prints full card numbers; it is refused when stdout is a terminal")
        #expect(t.waitForExit() == 64)
    }

    @Test func aHugeLineIsOneMalformedRecordAndLineNumbersStayRight() throws {
        let huge = String(repeating: "4", count: 3 * 1024 * 1024 + 17)
        let run = try check([], input: "4111111111111111\n\(huge)\n378282246310005\n")
        let lines = run.output.split(separator: "\n")
        #expect(run.status == 65)
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix(#"{"line":2,"#) && lines[1].contains(#""record_format""#))
        #expect(
            lines[2].hasPrefix(
                #"{"line":3,"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"masked""#
            ) && lines[2].contains(#""valid":true"#))
        #expect(run.errors == "3 records, 2 valid, 1 invalid\n")
    }

    /// About 100 MB streamed through a pipe: peak memory stays far below the input's size.
    ///
    /// Under AddressSanitizer (`make test-asan` sets CARDLINE_TEST_ASAN=1) two things change.
    /// ASan's quarantine keeps up to 256 MB of *freed* memory resident to catch use after free,
    /// so the peak would measure how much was freed, not how much is held (323 MB, for a check
    /// that holds little): this child alone runs with `quarantine_size_mb=0` (every other test
    /// keeps the quarantine). And an instrumented binary starts at about 43 MB (shadow memory,
    /// allocator metadata; the normal build peaks at 17 MB), so the limit is 64 MB: still far
    /// below the ~103 MB that holding the input would take.
    @Test func largeInputRunsInBoundedMemory() throws {
        let record = Array(("4111 1111 1111 1111" + String(repeating: " ", count: 1_000) + ",12/30,123\n").utf8)
        var block: [UInt8] = []
        for _ in 0..<100 { block += record }
        let blocks = 1_000  // 100,000 records, ~103 MB
        var environment = home.environment
        if testingUnderASan {
            environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=0"
        }
        let limitKiB = testingUnderASan ? 64_000 : 40_000
        let run = try runMeasuringMemory(
            ["check", "--today", "2026-11", "--format", "summary"], environment: environment
        ) { fd in
            for _ in 0..<blocks {
                var offset = 0
                while offset < block.count {
                    let written = block.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
        #expect(run.status == 0)
        #expect(run.peakKiB > 1_000, "a real measurement")
        #expect(run.peakKiB < limitKiB, "peak \(run.peakKiB) KiB for ~100 MB of input")
    }

    /// Every write is checked: a full disk is exit 74 with one message (the results were lost,
    /// so no summary either), though the one record was valid.
    @Test func aFullStandardOutputIsExit74WithOneMessage() throws {
        let file = home.path + "/ok.txt"
        try "4111111111111111\n".write(toFile: file, atomically: true, encoding: .utf8)
        for format in ["json", "text"] {
            let run = try runWritingTo(
                .file("/dev/full"), ["check", "--today", "2026-11", "--format", format, file],
                environment: home.environment)
            #expect(run.status == 74)
            #expect(run.errors == "cardline: error: cannot write to standard output: No space left on device\n")
        }
    }

    /// A reader that has gone away (`| head -1`): exit 74 with no message, not death by
    /// SIGPIPE; and reading stops, so an endless input (here /dev/urandom on standard input)
    /// still ends. (A device named as an input is refused: `FileKindsTests`.)
    @Test func aClosedPipeIsExit74QuietlyAndStopsReading() throws {
        let file = home.path + "/ok.txt"
        try "4111111111111111\n".write(toFile: file, atomically: true, encoding: .utf8)
        for arguments in [[file], ["-"]] {
            let run = try runWritingTo(
                .closedPipe, ["check", "--today", "2026-11"] + arguments,
                input: arguments == ["-"] ? "/dev/urandom" : "/dev/null", environment: home.environment)
            #expect(run.status == 74, "\(arguments)")
            #expect(run.errors.isEmpty, "\(run.errors)")
        }
    }
}

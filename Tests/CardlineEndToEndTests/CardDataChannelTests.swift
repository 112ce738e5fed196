import CardKit
import Foundation
import Testing

/// Card data is card data wherever it appears: card numbers typed where they do not belong
/// (as `:` commands, arguments of `:use` and `:remove`), written with any separators, never
/// come out whole on any channel — the screen text on stdout and stderr, `replay`'s transcript
/// and JSON, and every file cardline keeps (history). A property over generated input, not a
/// list of examples.
@Suite struct CardDataChannelTests {
    let home = TemporaryHome()

    /// The most digits in one run, where digits separated by one space, dash, dot or slash
    /// count as one run: "4111 1111-1111.1111" is one run of 16.
    static func longestDigitRun(_ text: String) -> Int {
        var longest = 0
        var current = 0
        var gap = 0
        for scalar in text.unicodeScalars {
            if scalar.properties.numericType == .decimal && scalar.isASCII {
                current += 1
                gap = 0
                longest = max(longest, current)
            } else if " -./".unicodeScalars.contains(scalar) && gap == 0 && current > 0 {
                gap = 1
            } else {
                current = 0
                gap = 0
            }
        }
        return longest
    }

    /// The text with the temporary home's path taken out: it holds a UUID, whose groups of
    /// hex digits can line up into a long run of decimal digits by chance (the test failed so,
    /// once in a while, on a path, never on a number).
    func withoutHome(_ text: String) -> String {
        text.replacingOccurrences(of: home.path, with: "$HOME")
    }

    /// Luhn-valid numbers of several networks and lengths, written with random separators
    /// inside command lines of several shapes.
    static func lines(count: Int) -> [String] {
        var random = SeededRandom(seed: 0xCA4D_DA7A)
        let numbers = [
            "4111111111111111", "378282246310005", "5555555555554444", "6011111111111117",
            "3530111333300000", "4012888888881881", "6200000000000005", "4111111111111111110",
        ]
        let separators = ["", " ", "-", ".", "/"]
        let shapes = [":%", ":use %", ":remove %", ":cards %", ":%  12/30 123", ": %", ":help %", ":q%"]
        return (0..<count).map { _ in
            let number = numbers[Int(random.next() % UInt64(numbers.count))]
            var written = ""
            for (index, digit) in number.enumerated() {
                if index > 0 && random.next() % 4 == 0 {
                    written += separators[Int(random.next() % UInt64(separators.count))]
                }
                written.append(digit)
            }
            let shape = shapes[Int(random.next() % UInt64(shapes.count))]
            return shape.replacingOccurrences(of: "%", with: written)
        }
    }

    @Test func theGeneratorMakesWhatTheCheckFinds() {
        // The property below would pass on empty output; make sure the input holds what it hunts.
        #expect(Self.lines(count: 50).allSatisfy { Self.longestDigitRun($0) >= 12 })
        #expect(Self.longestDigitRun("411111••••••1111") == 6)
        #expect(Self.longestDigitRun("4111 1111-1111.1111") == 16)
    }

    @Test func pipedPromptAndHistoryNeverHoldAWholeNumber() throws {
        let lines = Self.lines(count: 300)
        let run = try runPiped(
            ["--today", "2026-11"], input: lines.joined(separator: "\n") + "\n:cards\n:quit\n",
            environment: home.environment)
        #expect(run.errors.contains("unknown command") || run.output.contains("unknown command"), "the lines were read")
        #expect(Self.longestDigitRun(withoutHome(run.output)) < 12, "stdout")
        #expect(Self.longestDigitRun(withoutHome(run.errors)) < 12, "stderr")
        let files = home.files()
        #expect(files.contains { $0.path.hasSuffix("history") }, "a history file was kept (the :cards line)")
        for file in files {
            #expect(
                Self.longestDigitRun(withoutHome(String(decoding: file.contents, as: UTF8.self))) < 12, "\(file.path)")
        }
    }

    @Test(arguments: [[], ["--json"]])
    func replayTranscriptsNeverHoldAWholeNumber(options: [String]) throws {
        let script = home.path + "/numbers.session"
        let body = Self.lines(count: 300).map { $0 + "<Enter>" }.joined(separator: "\n")
        // The expectation fails on purpose: the failure quotes every message shown since the
        // start, in both formats.
        try ("@today 2026-11\n" + body + "\n@expect message \"never shown\"\n").write(
            toFile: script, atomically: true, encoding: .utf8)
        let run = try runPiped(["replay"] + options + [script], input: "", environment: home.environment)
        #expect(run.status == 1)
        #expect(run.output.components(separatedBy: "unknown command").count > 50, "the messages were printed")
        #expect(Self.longestDigitRun(withoutHome(run.output)) < 12, "stdout")
        #expect(Self.longestDigitRun(withoutHome(run.errors)) < 12, "stderr")
    }
}

// libFuzzer harness for `.session` scripts as `cardline replay` reads them: line by line with
// the byte parser (`SessionScript.LineParser.next(bytes:)`), a first pass that checks the
// script and notes which stretches an `@expect message` asks about, then the streaming
// `Replayer` fed by a second parser, with the bundled rules. A crash, a hang or a broken
// invariant is a finding: every parse error names a line of the script, and no transcript
// holds a whole card number.

func fuzzSession(_ input: [UInt8]) {
    // Lines as replay's ScriptReader.forEachLine hands them to the parser: every piece between
    // line breaks, and the rest after the last one (empty when the script ends with a break).
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    // The first pass, as replay's: keys checked, not kept.
    var checker = SessionScript.LineParser()
    checker.keepingKeys = false
    var messageChecks = Replayer.MessageChecks()
    for line in lines {
        do throws(SessionScript.SyntaxError) {
            let step = try checker.next(bytes: line.span)
            if let step { messageChecks.note(step.kind) }
        } catch {
            finding(
                error.line >= 1 && error.line <= max(lines.count, 1), "error outside the script: line \(error.line)")
            return
        }
    }
    // The replay, each line parsed again as it is read.
    var replayer = Replayer(
        script: checker.header, rules: Fuzz.rules, today: YearMonth(year: 2026, month: 11),
        messageChecks: messageChecks)
    var transcript: [UInt8] = []
    let write: (Span<UInt8>) -> Void = { line in
        for index in line.indices { transcript.append(line[index]) }
        transcript.append(UInt8(ascii: "\n"))
    }
    var parser = SessionScript.LineParser()
    for line in lines {
        let replay = { (bytes: Span<UInt8>) in
            do throws(SessionScript.SyntaxError) {
                if let step = try parser.next(bytes: bytes) { replayer.perform(step, transcript: write) }
            } catch {
                findingFailure("the second pass refused line \(error.line), which the first accepted")
            }
        }
        replay(line.span)
    }
    replayer.finish(transcript: write)
    finding(longestDigitRun(transcript) <= 10, "a whole number in the transcript")
}

/// The most ASCII digits in a row, counting through single spaces, dashes, dots and slashes.
func longestDigitRun(_ bytes: [UInt8]) -> Int {
    var longest = 0
    var current = 0
    var gap = false
    for byte in bytes {
        if byte &- 48 < 10 {
            current += 1
            gap = false
            longest = max(longest, current)
        } else if !gap && current > 0 && (byte == 0x20 || byte == 0x2D || byte == 0x2E || byte == 0x2F) {
            gap = true
        } else {
            current = 0
            gap = false
        }
    }
    return longest
}

// libFuzzer harness for `.session` scripts: the parser, then the replayer and the engine
// behind it, with the bundled rules. A crash, a hang or a broken invariant is a finding:
// every parse error names a line of the script, and no transcript holds a whole card number.

func fuzzSession(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    let lineCount = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    let script: SessionScript
    do {
        script = try SessionScript.parse(text)
    } catch {
        precondition(error.line >= 1 && error.line <= max(lineCount, 1), "error outside the script: line \(error.line)")
        return
    }
    let replay = Replay.run(script, rules: Fuzz.rules, today: YearMonth(year: 2026, month: 11))
    precondition(longestDigitRun(replay.transcriptText) <= 10, "a whole number in the transcript")
}

/// The most ASCII digits in a row, counting through single spaces, dashes, dots and slashes.
func longestDigitRun(_ bytes: [UInt8]) -> Int {
    var longest = 0, current = 0, gap = false
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

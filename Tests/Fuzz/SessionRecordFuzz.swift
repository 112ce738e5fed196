// libFuzzer harness for `cardline --record` (`SessionRecorder`): the input is what a terminal
// sent, decoded as the prompt decodes it (`KeyDecoder`, a bracketed paste one burst), typed
// into an engine with the bundled rules, each key told to a recorder. The script it writes must
// parse and replay green (`Replay.run`), and hold no whole number typed: a finding otherwise.
// (Track data is a swipe at the prompt only through its own reader, `SwipeCollector`: here its
// bytes are keys, as they are in a paste or a key line.)

func fuzzSessionRecord(_ input: [UInt8]) {
    let today = YearMonth(year: 2026, month: 11)
    var engine = EntryEngine(rules: Fuzz.rules, expiryPolicy: ExpiryPolicy(today: today))
    var recorder = SessionRecorder(engine: engine, ruleFolders: [], recorded: "fuzz", reloadingWith: nil)
    var decoder = KeyDecoder()
    var script: [UInt8] = []
    var typed: [[UInt8]] = []
    for key in decoder.feed(input) + decoder.finish() {
        let keys = key.entryKeys
        guard !keys.isEmpty else { continue }
        for key in keys {
            let outcome = engine.handle(key)
            recorder.note(key, outcome, engine: engine)
            if engine.numberDigits.count >= 13 { typed.append(engine.numberDigits) }
            if outcome.event == .quit { break }
        }
        var pasted = false
        if case .paste = key.base { pasted = true }
        script += recorder.endInput(pasted: pasted)
    }
    script += recorder.finish()
    let text = String(decoding: script, as: UTF8.self)
    let parsed: SessionScript
    do {
        parsed = try SessionScript.parse(text)
    } catch {
        preconditionFailure("the recorded script does not parse: line \(error.line): \(error.message)\n\(text)")
    }
    let replay = Replay.run(parsed, rules: Fuzz.rules, today: today)
    precondition(replay.passed, "the recorded script fails: \(replay.failures)\n\(text)")
    // No typed number whole on a line (spaces and dashes left out).
    for line in script.split(separator: UInt8(ascii: "\n")) {
        let digits = line.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") }
        for number in typed {
            let ascii = number.map { $0 + 48 }
            precondition(!digits.indices.contains { digits[$0...].starts(with: ascii) }, "a typed number in the script")
        }
    }
}

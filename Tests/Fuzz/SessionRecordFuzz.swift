// libFuzzer harness for `cardline --record` (`SessionRecorder`): the input is what a terminal
// sent, decoded as the prompt decodes it (`KeyDecoder`, a bracketed paste one burst), typed
// into an engine with the bundled rules, each key told to a recorder. The script it writes must
// parse, replay green (`Replay.run`), pin after each line of keys the field, text shape, refused
// keys and submit the engine had (when the recorder says it followed every key), and hold no
// whole number typed: a finding otherwise. (Track data is a swipe at the prompt only through
// its own reader, `SwipeCollector`: here its bytes are keys, as they are in a paste or a key line.)

func fuzzSessionRecord(_ input: [UInt8]) {
    let today = YearMonth(year: 2026, month: 11)
    var engine = EntryEngine(rules: Fuzz.rules, expiryPolicy: ExpiryPolicy(today: today))
    var recorder = SessionRecorder(engine: engine, ruleFolders: [], recorded: "fuzz", reloadingWith: nil)
    var decoder = KeyDecoder()
    var script: [UInt8] = []
    var typed: [[UInt8]] = []
    var states: [String] = []
    for key in decoder.feed(input) + decoder.finish() {
        let keys = key.entryKeys
        guard !keys.isEmpty else { continue }
        var refused = 0
        var submit = "-"
        for key in keys {
            let outcome = engine.handle(key)
            recorder.note(key, outcome, engine: engine)
            if outcome.refusal != nil { refused += 1 }
            if case .accepted(let card) = outcome.event { submit = "accepted \(card.network.id)" }
            if case .submitFailed(let fields) = outcome.event { submit = "failed \(Set(fields.map(\.rawValue)))" }
            if engine.numberDigits.count >= 13 { typed.append(engine.numberDigits) }
            // A number typed into a `:` command: its digits, wherever they stand in it.
            if let command = engine.command, CardNumber.mayHoldCardNumber(command) {
                let digits = command.utf8.compactMap { $0 &- 48 < 10 ? $0 &- 48 : nil }
                if digits.count >= 13 { typed.append(digits) }
            }
        }
        var pasted = false
        if case .paste = key.base { pasted = true }
        script += recorder.endInput(pasted: pasted)
        states.append("\(engine.field.rawValue) \(recordShape(engine.view.text)) \(refused) \(submit)")
    }
    script += recorder.finish()
    let text = String(decoding: script, as: UTF8.self)
    let parsed: SessionScript
    do {
        parsed = try SessionScript.parse(text)
    } catch {
        findingFailure("the recorded script does not parse: line \(error.line): \(error.message)\n\(text)")
    }
    let replay = Replay.run(parsed, rules: Fuzz.rules, today: today)
    finding(replay.passed, "the recorded script fails: \(replay.failures)\n\(text)")
    if recorder.followedEveryKey {
        finding(recordedStates(parsed) == states, "the recording does not do what was typed\n\(text)")
    }
    // No typed number whole on a line (spaces and dashes left out).
    for line in script.split(separator: UInt8(ascii: "\n")) {
        let digits = line.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") }
        for number in typed {
            let ascii = number.map { $0 + 48 }
            finding(
                !digits.indices.contains { digits[$0...].starts(with: ascii) },
                "a typed number in the script: \(String(decoding: line, as: UTF8.self))\n\(text)")
        }
    }
}

/// Digits as `#`, letters as `a`: what a made-up text keeps of the typed one.
func recordShape(_ text: String) -> String {
    String(text.map { $0.isASCII && $0.isNumber ? "#" : $0.isLetter ? "a" : $0 })
}

/// The state each line of keys of a recorded script pins, as the harness writes the engine's.
func recordedStates(_ script: SessionScript) -> [String] {
    var states: [String] = []
    var field = ""
    var text = ""
    var refused = 0
    var submit = "-"
    var open = false
    func end() { states.append("\(field) \(recordShape(text)) \(refused) \(submit)") }
    for step in script.steps {
        switch step.kind {
        case .keys, .paste:
            if open { end() }
            (open, refused, submit) = (true, 0, "-")
        case .expect(.field(let value)): field = value.rawValue
        case .expect(.text(let value)): text = value
        case .expect(.refused(let count)): refused = count
        case .expect(.accepted(let network, _)): submit = "accepted \(network ?? "")"
        case .expect(.failed(let fields)): submit = "failed \(Set(fields.map(\.rawValue)))"
        default: break
        }
    }
    if open { end() }
    return states
}

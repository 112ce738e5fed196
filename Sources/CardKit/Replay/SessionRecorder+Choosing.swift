/// How `SessionRecorder` picks the made-up keys of a card: a search over all of the card's keys
/// at once, so that each key does at the prompt what the typed one did, and every key after it
/// can too.
extension SessionRecorder {
    /// What one typed key is written as: the made-up key (for a read, its script line too), the
    /// engine after it and what it did.
    struct Choice {
        var key: Key
        var line: String?
        var engine: EntryEngine
        var outcome: Outcome
    }

    /// One step of the search: a key of the waiting inputs, or a resize.
    private enum Step {
        case key(input: Int, index: Int)
        case columns(Int)
    }

    /// The search at one step: the engine before it, the keys to try (the made-up ones in a
    /// random order, then the typed one), what each did once tried, and how far it has gone: a
    /// first pass takes only a key that does exactly what the typed one did, a second one that
    /// differs in its words alone.
    private struct Frame {
        var before: EntryEngine
        var options: [Key]
        var tried: [(engine: EntryEngine, outcome: Outcome, exact: Bool, close: Bool)?]
        var pass = 0
        var next = 0
    }

    /// The most keys tried for one card before the search settles for the next best at each key.
    private static let budget = 5_000

    /// A made-up key for every key of `waiting` (a choice for each, by input), found depth first
    /// from `start`: a key whose choice leaves a later key nothing that does what the typed one
    /// did is chosen again. `followed` is false when the search ran out (its budget, or every
    /// choice of the first key) and the rest were taken one by one, as near as they come: made-up
    /// keys still, but not all doing what the typed ones did.
    mutating func choose(from start: EntryEngine) -> (choices: [[Choice]], followed: Bool) {
        var steps: [Step] = []
        for (input, waiting) in waiting.enumerated() {
            if let columns = waiting.columns { steps.append(.columns(columns)) }
            for index in waiting.keys.indices { steps.append(.key(input: input, index: index)) }
        }
        var chosen: [Choice] = []
        var frames: [Frame] = []
        var trials = 0
        var followed = true
        if !steps.isEmpty { frames.append(frame(steps[0], before: start)) }
        while chosen.count < steps.count {
            let depth = chosen.count
            if trials < Self.budget, let choice = advance(&frames[depth], steps[depth], &trials) {
                chosen.append(choice)
                if chosen.count < steps.count { frames.append(frame(steps[chosen.count], before: choice.engine)) }
                continue
            }
            if trials < Self.budget && depth > 0 {
                frames.removeLast()
                chosen.removeLast()
                continue
            }
            // Settle: the rest one by one, each the nearest there is.
            followed = false
            var engine = chosen.last?.engine ?? start
            for step in steps[depth...] {
                let choice = nearest(step, before: engine)
                chosen.append(choice)
                engine = choice.engine
            }
        }
        var byInput = waiting.map { _ in [Choice]() }
        for (step, choice) in zip(steps, chosen) {
            if case .key(let input, _) = step { byInput[input].append(choice) }
        }
        return (byInput, followed)
    }

    /// A resize's one choice: the engine as wide as it says (its key is not written: `render`
    /// writes the resize's `@columns` line).
    private static func resized(_ step: Step, before: EntryEngine) -> Choice {
        var engine = before
        if case .columns(let columns) = step { engine.columns = columns }
        return Choice(key: .backspace, line: nil, engine: engine, outcome: .ignored)
    }

    /// The search's frame for `step`, from `before`.
    private mutating func frame(_ step: Step, before: EntryEngine) -> Frame {
        guard case .key(let input, let index) = step else { return Frame(before: before, options: [], tried: []) }
        let key = waiting[input].keys[index]
        let options: [Key]
        switch key {
        case .swipe, .chip: options = [key]
        default: options = candidates(for: key, on: before, inNumberCommand: waiting[input].inNumberCommand) + [key]
        }
        return Frame(before: before, options: options, tried: Array(repeating: nil, count: options.count))
    }

    /// The frame's next choice that does what the typed key did (nil when none is left).
    private mutating func advance(_ frame: inout Frame, _ step: Step, _ trials: inout Int) -> Choice? {
        guard case .key(let input, let index) = step else {
            guard frame.next == 0 else { return nil }
            frame.next = 1
            return Self.resized(step, before: frame.before)
        }
        let typed = waiting[input].signatures[index]
        switch frame.options[0] {
        case .swipe, .chip:
            guard frame.next == 0 else { return nil }
            frame.next = 1
            let choice = madeUpReadChoice(frame.before, input: input, index: index, typed)
            let got = Signature(choice.engine, choice.outcome)
            return got == typed || got.sameButWords(as: typed) ? choice : nil
        default: break
        }
        while frame.pass < 2 {
            while frame.next < frame.options.count {
                let option = frame.next
                frame.next += 1
                if frame.tried[option] == nil {
                    trials += 1
                    var engine = frame.before
                    let outcome = engine.handle(frame.options[option], reloadingWith: loader)
                    let got = Signature(engine, outcome)
                    let exact = got == typed
                    frame.tried[option] = (engine, outcome, exact, !exact && got.sameButWords(as: typed))
                }
                let tried = frame.tried[option]!
                if frame.pass == 0 ? tried.exact : tried.close {
                    return Choice(key: frame.options[option], line: nil, engine: tried.engine, outcome: tried.outcome)
                }
            }
            frame.pass += 1
            frame.next = 0
        }
        return nil
    }

    /// A swipe or chip read's choice: a made-up card (`madeUpRead`).
    private mutating func madeUpReadChoice(_ before: EntryEngine, input: Int, index: Int, _ typed: Signature) -> Choice
    {
        // The reads among the input's keys, in order: this key's is the one at its place among them.
        let place = waiting[input].keys[..<index].filter { key in
            switch key {
            case .swipe, .chip: return true
            default: return false
            }
        }.count
        var engine = before
        let (line, key, outcome) = madeUpRead(
            waiting[input].reads[place], of: waiting[input].keys[index], typed, on: &engine)
        return Choice(key: key, line: line, engine: engine, outcome: outcome)
    }

    /// When the search has run out: the step's choice that does exactly what the typed key did,
    /// else one that differs in its words, else a made-up key all the same (the typed key only
    /// when there is nothing to make up).
    private mutating func nearest(_ step: Step, before: EntryEngine) -> Choice {
        guard case .key(let input, let index) = step else { return Self.resized(step, before: before) }
        var frame = frame(step, before: before)
        switch frame.options[0] {
        case .swipe, .chip:
            return madeUpReadChoice(before, input: input, index: index, waiting[input].signatures[index])
        default: break
        }
        var trials = 0
        if let choice = advance(&frame, step, &trials) { return choice }
        // (`options` ends with the typed key: the first is a made-up one when there is any.)
        var engine = before
        let outcome = engine.handle(frame.options[0], reloadingWith: loader)
        return Choice(key: frame.options[0], line: nil, engine: engine, outcome: outcome)
    }
}

import CardChip

// libFuzzer harness for a card's answers through the whole chip read (`ChipReadFlow`, with
// BER-TLV and the PDOL filler under it), then the read handed to the entry engine
// (`Key.chip`) with the bundled rules. The input is the card's answers in order, each a 2-byte
// big-endian length then its bytes; when they run out the card is pulled (an empty answer). A
// crash, a hang or a broken invariant is a finding: the flow ends within its exchange limit,
// never sends GENERATE AC or VERIFY, and reads only numbers of a card's length, months and
// names a card can hold; no description holds a whole number; the engine takes the read and
// moves on to the security code, or refuses it and leaves the card empty.

func fuzzChipFlow(_ input: [UInt8]) {
    var answers: [[UInt8]] = []
    var index = 0
    while index + 2 <= input.count {
        let length = min(Int(input[index]) << 8 | Int(input[index + 1]), 600)
        index += 2
        let end = min(input.count, index + length)
        answers.append(Array(input[index..<end]))
        index = end
    }
    var flow = ChipReadFlow(
        known: Fuzz.rules.knownAIDs,
        terminal: TerminalValues(year: 26, month: 11, day: 5, unpredictableNumber: [1, 2, 3, 4]))
    var step = flow.start()
    var exchanges = 0
    var next = 0
    while case .send(let command) = step {
        exchanges += 1
        finding(exchanges <= ChipReadFlow.mostExchanges, "more exchanges than the limit")
        finding(command.count >= 4, "a command shorter than its header")
        finding(
            !command.starts(with: [0x80, 0xAE]) && !command.starts(with: [0x00, 0x20]), "GENERATE AC or VERIFY sent")
        step = flow.take(next < answers.count ? answers[next] : [])
        next += 1
    }
    guard case .read(var card) = step else { return }
    finding(!card.applications.isEmpty, "a card read with no application")
    for application in card.applications {
        let digits = application.numberDigits
        finding((8...19).contains(digits.count) && digits.allSatisfy { $0 < 10 }, "not a card number")
        finding(
            (1...12).contains(application.expiryMonth) && (0...99).contains(application.expiryYear), "not an expiry")
        if let name = application.holderName {
            finding(!name.isEmpty && name.utf8.count <= 26, "a name longer than 5F20 holds")
        }
        let whole = CardNumber.string(digits)
        var dumped = ""
        dump(card, to: &dumped)
        for text in ["\(card)", String(reflecting: card), "\(application)", dumped] {
            finding(!text.contains(whole), "a description holds the whole number")
        }
    }
    let first = card.applications[0].numberDigits
    var engine = EntryEngine(rules: Fuzz.rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
    let outcome = engine.handle(.chip(card))
    if outcome.refusal == nil {
        finding(
            engine.field == .cvv && engine.numberDigits == first && engine.expiryDigits.count == 4,
            "a chip read taken but not filled")
        var transcript: [UInt8] = []
        engine.appendTranscriptLine(of: .number, to: &transcript)
        finding(longestDigitRun(transcript) <= 10, "a whole number in the number's line")
    } else {
        finding(engine.cardIsEmpty && engine.field == .number, "a refused chip read left digits")
    }
    card.wipe()
    finding(card.applications.isEmpty, "wipe left applications")
}

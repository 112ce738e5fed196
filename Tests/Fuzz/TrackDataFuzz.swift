// libFuzzer harness for a swipe's track data as a keyboard-wedge reader types it
// (`TrackData.read`), then handed to the entry engine as a swipe (`Key.swipe`) with the
// bundled rules. A crash, a hang or a broken invariant is a finding: a swipe read has a
// number of a card's length, a month, a trimmed name of at most 26
// characters; its descriptions never hold the whole number; the engine either fills the
// number and expiry and moves on to the CVV, or refuses and leaves the card empty.

func fuzzTrackData(_ input: [UInt8]) {
    var engine = EntryEngine(rules: Fuzz.rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
    switch TrackData.read(input) {
    case .failure:
        finding(
            engine.handle(.swipe(nil)).refusal?.text == TrackData.unreadableMessage, "an unreadable swipe not refused")
        finding(engine.cardIsEmpty, "an unreadable swipe left digits")
    case .success(var swipe):
        let digits = swipe.numberDigits
        finding(
            CardPolicy.numberLengths.contains(digits.count) && digits.allSatisfy { $0 < 10 }, "not a card number")
        finding((1...12).contains(swipe.expiryMonth) && (0...99).contains(swipe.expiryYear), "not an expiry")
        if let name = swipe.holderName {
            finding(!name.isEmpty && name.unicodeScalars.count <= 26, "a name longer than a track holds")
            finding(
                name.first != " " && name.last != " " && !name.contains("  ") && !name.contains("^"),
                "an untrimmed name")
        }
        let whole = CardNumber.string(digits)
        var dumped = ""
        dump(swipe, to: &dumped)
        for text in ["\(swipe)", String(reflecting: swipe), dumped] {
            finding(!text.contains(whole), "a description holds the whole number")
        }
        let outcome = engine.handle(.swipe(swipe))
        if outcome.refusal?.text == nil {
            finding(
                engine.field == .cvv && engine.numberDigits == digits && engine.expiryDigits.count == 4,
                "a swipe taken but not filled")
            var transcript: [UInt8] = []
            engine.appendTranscriptLine(of: .number, to: &transcript)
            finding(longestDigitRun(transcript) <= 10, "a whole number in the number's line")
        } else {
            finding(engine.cardIsEmpty && engine.field == .number, "a refused swipe left digits")
        }
        swipe.wipe()
        finding(swipe.numberDigits.isEmpty, "wipe left digits")
    }
}

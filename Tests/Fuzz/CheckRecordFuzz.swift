// libFuzzer harness for `cardline check`'s record parser: each input is one record (as the
// reader hands it over, without its line break; plain or JSON), checked and written in both output formats.
// A crash or a broken invariant is a finding: masked output never holds a whole number.

func fuzzCheckRecord(_ input: [UInt8]) {
    let checker = CardCheck(rules: Fuzz.rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
    // A line starting with `{` is a JSON record, as `cardline check` reads it.
    let result = CardCheck.isJSONRecord(input.span) ? checker.checkJSON(input.span).result : checker.check(input.span)
    var json: [UInt8] = []
    var text: [UInt8] = []
    checker.appendJSON(result, line: 1, unmasked: false, to: &json)
    checker.appendText(result, line: 1, unmasked: false, to: &text)
    finding(longestDigitRun(json) <= 10 && longestDigitRun(text) <= 10, "a whole number in masked output")
}

extension CardCheck {
    // MARK: - Output

    /// Appends one JSON Lines object:
    /// `{"line":3,"network":"visa","valid":false,"number":"411111******1111","expiry":"2030-12","errors":["luhn"]}`.
    /// The number is masked to first six and last four with `*` unless `unmasked`; the code
    /// never appears. The one writer of `check`'s JSON record.
    public func appendJSON(_ result: Result, line: Int, unmasked: Bool, to out: inout [UInt8]) {
        out.append(#"{"line":"# as StaticString)
        out.appendDecimal(max(line, 0))
        if result.networkIndex >= 0 {
            out.append(#","network":""# as StaticString)
            out.append(contentsOf: ids[Int(result.networkIndex)])
            out.append(UInt8(ascii: "\""))
        } else {
            out.append(#","network":null"# as StaticString)
        }
        out.append(result.valid ? #","valid":true,"number":""# as StaticString : #","valid":false,"number":""#)
        appendNumber(result, unmasked: unmasked, to: &out)
        if let expiry = result.expiry {
            out.append(#"","expiry":""# as StaticString)
            out.appendDecimal(max(expiry.year, 0))
            out.append(expiry.month < 10 ? "-0" as StaticString : "-")
            out.appendDecimal(max(expiry.month, 0))
        }
        out.append(#"","errors":["# as StaticString)
        var first = true
        for problem in Problem.allCases where result.has(problem) {
            out.append(first ? #"""# as StaticString : #",""#)
            out.append(contentsOf: problem.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
            first = false
        }
        out.append("]}\n" as StaticString)
    }

    /// Appends a line for people: `line 3: 411111******1111  visa  invalid (luhn)`. Masked with
    /// `*` as in the JSON: `check`'s lines are records, in every format (README, "Security: what is kept, and where").
    public func appendText(_ result: Result, line: Int, unmasked: Bool, to out: inout [UInt8]) {
        out.append(contentsOf: "line ".utf8)
        out.appendDecimal(line)
        out.append(contentsOf: ": ".utf8)
        appendNumber(result, unmasked: unmasked, to: &out)
        out.append(contentsOf: "  ".utf8)
        out.append(contentsOf: result.networkIndex >= 0 ? ids[Int(result.networkIndex)] : Array("no network".utf8))
        out.append(contentsOf: result.valid ? "  valid\n".utf8 : "  invalid (".utf8)
        if !result.valid {
            out.append(contentsOf: result.problems.map(\.rawValue).joined(separator: ", ").utf8)
            out.append(contentsOf: ")\n".utf8)
        }
    }

    /// The number's (first 19) digits, masked to first six and last four with `*` unless
    /// `unmasked`.
    private func appendNumber(_ result: Result, unmasked: Bool, to out: inout [UInt8]) {
        let digits = (0..<min(result.digitCount, CardPolicy.longestNumber)).lazy.map { result.storedDigits[$0] }
        if unmasked {
            out.append(contentsOf: digits.map { $0 + 48 })
        } else {
            CardNumber.appendMasked(digits, mask: CardPolicy.machineMask, to: &out)
        }
    }
}

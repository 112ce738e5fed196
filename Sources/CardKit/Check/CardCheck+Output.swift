extension CardCheck {
    // MARK: - Output

    /// Appends one JSON Lines object: the record's `line` (and its `file`, JSON-quoted, when
    /// the caller reads several), the card members it gives written by the card record's one
    /// writer (`CardRecord.appendMembers`: the networks as the prompt would deliver the card,
    /// `masked`, `last4`, `expiry`; `number` too when `unmasked`; never the code), then `valid`
    /// and `errors`:
    /// `{"line":3,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","valid":false,"errors":["luhn"]}`.
    public func appendJSON(
        _ result: Result, line: Int, file: [UInt8]? = nil, unmasked: Bool, to out: inout [UInt8]
    ) {
        out.append(#"{"line":"#)
        out.writeDecimal(line)
        if let file {
            out.append(#","file":"#)
            out += file
        }
        // The digits read through a span over a copy of them in this frame, which the caller's
        // stack scrub reaches (a span over the result's own made a copy of the whole result
        // that outlived the scrub: `CardMemoryTests`).
        let digits = result.storedDigits
        // The networks' members appended from the checker's own copy (passed on, the array was
        // retained and released for each record, on both cores at once).
        if result.record >= 0 {
            out.append(UInt8(ascii: ","))
            out += records[Int(result.record)].members
        }
        CardRecord.appendMembers(
            networks: nil,
            digits: result.digitCount > 0
                ? digits.span.extracting(0..<min(result.digitCount, CardPolicy.longestNumber)) : nil,
            number: unmasked ? .full : .masked, expiry: result.expiry, comma: true, to: &out)
        out.append(result.valid ? #","valid":true,"errors":["# : #","valid":false,"errors":["#)
        // The problems in declaration order: the bits set, lowest first.
        var bits = result.problemBits
        while bits != 0 {
            out.append(UInt8(ascii: "\""))
            out.append(Problem.name(bit: bits.trailingZeroBitCount))
            out.append(UInt8(ascii: "\""))
            bits &= bits - 1
            if bits != 0 { out.append(UInt8(ascii: ",")) }
        }
        out.append("]}\n" as StaticString)
    }

    /// Appends a line for people, the problems in words, the file named when there are several:
    /// `cards.txt, line 3: 411111******1111 Visa: invalid: the number's check digit is wrong`.
    /// Masked with `*` as in the JSON: `check`'s lines are records, in every format (README,
    /// "Security: what is kept, and where").
    public func appendText(_ result: Result, line: Int, file: String? = nil, unmasked: Bool, to out: inout [UInt8]) {
        if let file { out += "\(file.escapingControlCharacters), ".utf8 }
        out += "line \(line):".utf8
        if result.digitCount > 0 {
            out.append(UInt8(ascii: " "))
            if unmasked {
                for digit in result.digits { out.append(digit + 48) }
            } else {
                CardNumber.appendMasked(result.digits, mask: CardPolicy.machineMask, to: &out)
            }
        }
        if result.record >= 0 {
            let record = records[Int(result.record)]
            out += " \(rules.networks[Int(record.network)].name)".utf8
            if !record.also.isEmpty { out += " (also \(record.also.map(\.name).joined(separator: ", ")))".utf8 }
        }
        if result.digitCount > 0 || result.record >= 0 { out.append(UInt8(ascii: ":")) }
        out += (result.valid ? " valid\n" : " invalid: " + problemWords(result).joined(separator: "; ") + "\n").utf8
    }

    /// Each of a record's problems in words, in output order.
    func problemWords(_ result: Result) -> [String] {
        let network = result.networkIndex >= 0 ? rules.networks[Int(result.networkIndex)] : nil
        let count = result.digitCount
        return result.problems.map { problem in
            switch problem {
            case .recordFormat:
                return count == 0
                    ? "not a card record: no card number"
                    : "not a card record: more fields than number, expiry and code"
            case .numberFormat: return "the number holds something other than digits, spaces and dashes"
            case .unknownNetwork: return "no card network has a number like this"
            case .length:
                guard let network else {
                    return "the number has \(count) \(count == 1 ? "digit" : "digits"), too few to tell its network"
                }
                let lengths = network.lengths.map(String.init)
                let listed =
                    lengths.count == 1
                    ? lengths[0] : lengths.dropLast().joined(separator: ", ") + " or " + lengths.last!
                return "the number has \(count) digits; \(network.name)'s have \(listed)"
            case .luhn: return "the number's check digit is wrong (it fails the Luhn check)"
            case .expiryFormat: return "the expiry is not MM/YY or MM/YYYY with a month from 01 to 12"
            case .expired: return "the expiry \(result.expiry.map(\.cardText) ?? "") is in the past"
            case .expiryTooFar:
                return
                    "the expiry \(result.expiry.map(\.cardText) ?? "") is more than \(expiryPolicy.maxYearsAhead) years ahead"
            case .cvvFormat: return "the code holds something other than digits"
            case .cvvLength:
                let words = CardPolicy.securityCode(for: network).lengthWords
                let has = "the code has \(result.codeLength) \(result.codeLength == 1 ? "digit" : "digits")"
                return network.map { "\(has); \($0.name)'s has \(words)" } ?? "\(has); a code has \(words)"
            case .networkNotAccepted: return "\(network?.name ?? "its network") is not accepted here"
            case .expiryMissing: return "no expiry, and an encrypted card needs one"
            }
        }
    }
}

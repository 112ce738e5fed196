extension EntryEngine {
    // MARK: - Typing

    mutating func type(_ character: Character) -> Outcome {
        let byte = character.singleASCIIByte
        if byte == UInt8(ascii: ":") && activeIsEmpty {
            command = ":"
            return .accepted
        }
        if field == .name { return typeName(character) }
        if field == .postalCode { return typePostalCode(character) }
        if byte == UInt8(ascii: " ") && field == .cvv && !cvvDigits.isEmpty && form.field(after: .cvv) != nil
            && problem(in: .cvv) == nil
        {
            // A space after a whole code moves on to the name or postal code (a piped line
            // `4111111111111111 12/30 123 Ada Lovelace`).
            return moveForward()
        }
        if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || (byte == UInt8(ascii: "/") && field != .expiry) {
            // Grouping is automatic; separators in a paste are skipped, but one after a number
            // that is complete yet could grow marks where it may end.
            if field == .number { return numberSeparator(character, slash: byte == UInt8(ascii: "/")) }
            return .ignored
        }
        // The digit, read from the byte already in hand (not from the character again).
        let digit = byte.flatMap { $0 &- 48 < 10 ? $0 - 48 : nil }
        switch field {
        case .number: return typeNumber(character, digit: digit)
        case .expiry: return typeExpiry(character, byte: byte, digit: digit)
        case .cvv: return typeCVV(character, digit: digit)
        case .name, .postalCode: return .ignored  // (typed above)
        }
    }

    private mutating func typeNumber(_ character: Character, digit: UInt8?) -> Outcome {
        guard let digit else {
            // Tab moves on from a complete number, as Enter does (a 16-digit Diners Club); on one
            // of a whole length that fails Luhn it says so, as Enter does.
            if character == "\t" && !numberDigits.isEmpty {
                switch (problem(in: .number), detection.verdict(numberDigits)) {
                case (nil, _): return moveForward()
                case (let problem?, .failsLuhn): return .refused(problem)
                default: break
                }
            }
            return refuse(.numberCharacter, ("character", .text(quoted(character))))
        }
        guard numberDigits.count < CardPolicy.longestNumber else {
            if let ended = endNumberAtSeparator(then: character) { return ended }
            return refuse(.numberTooLong, ("count", .number(numberDigits.count)))
        }
        // Appended in place (no new array per key, no copy), taken back if the digit is refused.
        numberDigits.append(digit)
        cardRead = nil
        // Once no longer pattern can match the digits before this one (`Detection.isFinal`: a
        // Visa `4111` among the bundled rules, any number past the longest pattern), no later
        // digit can change the detection: keep it rather than look again. Else the new one is
        // swapped in (not copied), and the one before it put back if the digit is refused.
        var before: Detection?
        if !detection.isFinal {
            var next = rules.detect(numberDigits)
            swap(&next, &detection)
            before = consume next
        }
        if !detection.hasCandidates {
            let named = CardPolicy.leadingShownDigits(of: numberDigits)
            let reason = say(
                .error, .numberNoNetwork,
                ("digits", .text("\(CardNumber.string(named))\(numberDigits.count > named.count ? "…" : "")")))
            numberDigits.overwriteLast()
            if let before { detection = before }
            if let ended = endNumberAtSeparator(then: character) { return ended }
            return .refused(reason)
        }
        if let acceptedNetworks,
            let reason = acceptedNetworks.refusal(
                for: numberDigits, detection: detection, rules: rules, messages: messages)
        {
            numberDigits.overwriteLast()
            if let before { detection = before }
            if let ended = endNumberAtSeparator(then: character) { return ended }
            return .refused(Message(.error, reason))
        }
        if numberDigits.count > detection.maxLength {
            let maxLength = detection.maxLength
            numberDigits.overwriteLast()
            if let before { detection = before }
            if let ended = endNumberAtSeparator(then: character) { return ended }
            if let network = detection.network {
                return refuse(
                    .numberAtMost, ("a", .text(article(for: network.name))), ("network", .text(network.name)),
                    ("count", .number(maxLength)))
            }
            return refuse(.numberTooLong, ("count", .number(numberDigits.count)))
        }
        let length = numberDigits.count
        // The lengths are the deciding pattern's (Visa `4026…` allows 13 digits, `4…` does not).
        switch CardPolicy.verdict(
            numberDigits, count: length, network: detection.network, hasCandidates: true, lengths: detection.lengths,
            decidingLength: detection.decidingLength)
        {
        case .failsLuhn(.final):
            return Outcome(messages: [say(.error, .numberInvalid)])
        case .valid(.completeCanGrow):
            // Moves on by itself only when the number cannot grow into a longer valid one: a
            // 16-digit Maestro may be a 19-digit one still being typed, so the person decides.
            return Outcome(messages: [
                say(.help, .numberCompleteCanGrow, ("count", .number(detection.lengths.max)))
            ])
        case .valid:
            return moveForward()
        default:
            return .accepted
        }
    }

    /// A space, `-` or `/` typed in the number field: skipped, but noted as where the number
    /// may end when the number is complete, valid and could still grow; a `/` after such a
    /// point (an expiry's, `… 12/30`) ends the number there.
    private mutating func numberSeparator(_ character: Character, slash: Bool) -> Outcome {
        if slash, let ended = endNumberAtSeparator(then: character) { return ended }
        if detection.lengths.completeness(of: numberDigits.count) == .completeCanGrow && problem(in: .number) == nil {
            numberEnd = numberDigits.count
        }
        return .ignored
    }

    /// Ends the number where a separator followed it (`numberEnd`), when digits typed after
    /// it cannot belong to it: those digits, then `character`, go on into the expiry. Nil when
    /// there is no such point.
    private mutating func endNumberAtSeparator(then character: Character) -> Outcome? {
        let end = numberEnd
        guard end > 0, end < numberDigits.count else { return nil }
        var rest = Array(numberDigits[end...])  // a few digits, on this rare path only
        while numberDigits.count > end { numberDigits.overwriteLast() }
        detection = rules.detect(numberDigits)
        var outcome = moveForward()
        for digit in rest { outcome.append(handle(.character(Character(Unicode.Scalar(digit + 48))))) }
        rest.overwriteAndEmpty()
        outcome.append(handle(.character(character)))
        return outcome
    }

    private mutating func typeExpiry(_ character: Character, byte: UInt8?, digit: UInt8?) -> Outcome {
        if byte == UInt8(ascii: "/") {
            // "1/" means January: pad the month. Elsewhere the slash is automatic.
            guard expiryDigits.count == 1 else { return .ignored }
            guard expiryDigits[0] != 0 else { return refuse(.expiryNoMonth, ("month", .text("00"))) }
            expiryDigits = [0] + expiryDigits
            return .accepted
        }
        guard let digit else {
            return refuse(.expiryCharacter, ("character", .text(quoted(character))))
        }
        switch expiryDigits.count {
        case 0:
            // In place: no new array per entry.
            if digit >= 2 { expiryDigits.append(0) }
            expiryDigits.append(digit)
            return .accepted
        case 1:
            let month = Int(expiryDigits[0]) * 10 + Int(digit)
            guard month >= 1 && month <= 12 else {
                return refuse(.expiryNoMonth, ("month", .text(twoDigits(month))))
            }
            expiryDigits.append(digit)
            return .accepted
        case 2:
            let month = expiryMonth!
            // Could any second year digit make a valid date? (No array: this runs per key.)
            var canBeValid = false
            var canBePast = false
            var canBeTooFar = false
            var second = 0
            while second <= 9 {
                defer { second += 1 }
                switch expiryPolicy.check(month: month, twoDigitYear: Int(digit) * 10 + second) {
                case .valid: canBeValid = true
                case .past: canBePast = true
                case .tooFar: canBeTooFar = true
                }
            }
            guard canBeValid || expiryPolicy.fourDigitYearCanContinue(month: month, prefix: Int(digit), digitCount: 1)
            else {
                return canBeTooFar && !canBePast
                    ? refuse(.expiryTooFar, ("years", .number(expiryPolicy.maxYearsAhead)))
                    : refuse(
                        .expiryWouldBePast, ("month", .text(twoDigits(month))), ("digit", .number(Int(digit))),
                        ("today", .text(expiryPolicy.today.cardText)))
            }
            expiryDigits.append(digit)
            return .accepted
        case 3:
            let month = expiryMonth!
            let year = Int(expiryDigits[2]) * 10 + Int(digit)
            switch expiryPolicy.check(month: month, twoDigitYear: year) {
            case .past, .tooFar:
                // `12/20` past: the first half of a four-digit year (`12/2030`), which grows the field.
                if expiryPolicy.fourDigitYearCanContinue(month: month, prefix: year, digitCount: 2) {
                    expiryDigits.append(digit)
                    return .accepted
                }
                if expiryPolicy.check(month: month, twoDigitYear: year) == .tooFar {
                    return refuse(.expiryTooFar, ("years", .number(expiryPolicy.maxYearsAhead)))
                }
                return refuse(
                    .expiryPast, ("expiry", .text("\(twoDigits(month))/\(twoDigits(year))")),
                    ("today", .text(expiryPolicy.today.cardText)))
            case .valid:
                expiryDigits.append(digit)
                return moveForward()
            }
        case 4 where awaitsFourDigitYear, 5:
            return typeFourDigitYear(digit)
        default:
            return refuse(.expiryComplete)
        }
    }

    /// Whether the expiry holds `MM/YY` whose two-digit year is not valid but begins a
    /// four-digit one (`12/20` of `12/2030`): the field waits for the rest of the year.
    var awaitsFourDigitYear: Bool {
        guard expiryDigits.count == 4, let month = expiryMonth else { return false }
        let year = Int(expiryDigits[2]) * 10 + Int(expiryDigits[3])
        return expiryPolicy.check(month: month, twoDigitYear: year) != .valid
            && expiryPolicy.fourDigitYearCanContinue(month: month, prefix: year, digitCount: 2)
    }

    /// The third or fourth digit of a four-digit year (`12/2030`): taken while a valid year
    /// can still follow; the fourth completes the expiry and moves on.
    private mutating func typeFourDigitYear(_ digit: UInt8) -> Outcome {
        let month = expiryMonth!
        let prefix = expiryDigits[2...].reduce(0) { $0 * 10 + Int($1) } * 10 + Int(digit)
        let count = expiryDigits.count - 1  // year digits with this one
        if count < 4 {
            guard expiryPolicy.fourDigitYearCanContinue(month: month, prefix: prefix, digitCount: count) else {
                return prefix * 10 > expiryPolicy.today.year
                    ? refuse(.expiryTooFar, ("years", .number(expiryPolicy.maxYearsAhead)))
                    : refuse(
                        .expiryWouldBePast, ("month", .text(twoDigits(month))), ("digit", .number(prefix)),
                        ("today", .text(expiryPolicy.today.cardText)))
            }
            expiryDigits.append(digit)
            return .accepted
        }
        switch expiryPolicy.check(YearMonth(year: prefix, month: month)) {
        case .past:
            return refuse(
                .expiryPast, ("expiry", .text("\(twoDigits(month))/\(prefix)")),
                ("today", .text(expiryPolicy.today.cardText)))
        case .tooFar:
            return refuse(.expiryTooFar, ("years", .number(expiryPolicy.maxYearsAhead)))
        case .valid:
            expiryDigits.append(digit)
            return moveForward()
        }
    }

    /// A character of the cardholder's name (`HolderName`'s rule).
    private mutating func typeName(_ character: Character) -> Outcome {
        if character == "\t" && problem(in: .name) == nil { return moveForward() }
        // A name the swipe filled in is typed over, not added to: a piped swipe, then
        // `123 Bob Smith`, delivers `Bob Smith`, never `ADA LOVELACEBob Smith`.
        let before = nameFromSwipe ? "" : holderName
        if HolderName.skips(character, after: before) { return .ignored }
        if let reason = HolderName.refusal(of: character, after: before, messages) {
            return .refused(Message(.error, reason))
        }
        if nameFromSwipe {
            nameBytes.overwriteAndEmpty()
            nameFromSwipe = false
        }
        nameBytes.append(contentsOf: character.utf8)
        return .accepted
    }

    /// A character of the postal code: a letter or digit the format can take next; a space or
    /// `-` is the format's to put in, and skipped.
    private mutating func typePostalCode(_ character: Character) -> Outcome {
        guard let format = form.postalCode else { return .ignored }
        if character == " " || character == "-" { return .ignored }
        guard let raw = PostalCodeFormat.rawCharacter(character) else {
            return refuse(
                .postalCharacter, ("country", .text(format.name(messages))),
                ("label", .text(format.fieldName(messages))),
                ("example", .text(format.example(messages))), ("character", .text(quoted(character))))
        }
        postalCharacters.append(raw)
        guard format.canBegin(postalCharacters) else {
            postalCharacters.overwriteLast()
            let id: MessageID =
                postalCharacters.count >= format.longest
                ? .postalTooLong : raw &- 48 < 10 ? .postalWantsLetter : .postalWantsDigit
            return refuse(
                id, ("country", .text(format.name(messages))), ("label", .text(format.fieldName(messages))),
                ("example", .text(format.example(messages))), ("count", .number(format.longest)))
        }
        return .accepted
    }

    private mutating func typeCVV(_ character: Character, digit: UInt8?) -> Outcome {
        // The longest code without making `securityCode` (its name) on every key.
        let maxLength = CardPolicy.securityCodeLengths(for: securityCodeNetwork).upperBound
        guard let digit else {
            return refuse(.codeCharacter, ("code", .text(securityCode.name)), ("character", .text(quoted(character))))
        }
        guard cvvDigits.count < maxLength else {
            return refuse(.codeFull, ("code", .text(securityCode.name)), ("count", .number(maxLength)))
        }
        cvvDigits.append(digit)
        return .accepted
    }
}

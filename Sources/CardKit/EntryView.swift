/// What the front end draws for the active field: no colour, no escape codes.
public struct EntryView: Equatable, Sendable {
    /// The field this view shows.
    public var field: Field
    /// "Card number", "Expiry", "CID".
    public var label: String
    /// The format the field expects: "#### ###### #####", "MM/YY", "####".
    public var hint: String
    /// The field's text as shown: grouped digits, `MM/YY`, `•••` for a CVV, or a `:` command.
    public var text: String
    /// Logo badge name: the network's once known, `CARD` while unknown (or the accepted
    /// networks' logos, `VISA/MASTERCARD`, when only some are taken), `CVV` in the CVV field.
    public var logo: String
    /// Progress, like "12/16" (typed / expected digits); empty while a command is typed.
    public var progress: String
    /// True when `text` is a `:` command being typed, not the field's value.
    public var isCommand: Bool

    /// The line as a plain transcript shows it: `Card number (#### …): 4111 11•• •••• 1111  [VISA 16/16]`,
    /// with the number masked (`maskedText`).
    public var transcriptLine: String {
        var bytes: [UInt8] = []
        appendTranscriptLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `transcriptLine`'s bytes (the replayer writes hundreds of thousands of them).
    public func appendTranscriptLine(to bytes: inout [UInt8]) {
        bytes.appendUTF8(label)
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: "("))
        bytes.appendUTF8(hint)
        bytes.append(UInt8(ascii: ")"))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        appendMaskedText(to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: "["))
        bytes.appendUTF8(logo)
        if !progress.isEmpty {
            bytes.append(UInt8(ascii: " "))
            bytes.appendUTF8(progress)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The text as shown anywhere but the live field: the number masked as one number, a
    /// command with any card number in it masked (`CardNumber`'s masking policy).
    public var maskedText: String { maskedText(mask: "•") }

    /// `maskedText` with `mask` for each hidden digit (`*` where only ASCII can be drawn).
    public func maskedText(mask: Unicode.Scalar) -> String {
        var bytes: [UInt8] = []
        appendMaskedText(mask: mask, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `maskedText(mask:)`'s bytes.
    func appendMaskedText(mask: Unicode.Scalar = "•", to bytes: inout [UInt8]) {
        if isCommand {
            CardNumber.appendMasking(text, mask: mask, to: &bytes)
        } else if field == .number {
            CardNumber.appendMaskingNumber(text, mask: mask, to: &bytes)
        } else {
            bytes.appendUTF8(text)
        }
    }

    /// The number's format hint while no single network matches.
    public static let unknownNetworkHint = CardNumber.hint(groups: [4, 4, 4, 4])

    /// The logo shown while no single network matches.
    public static let genericLogo = "CARD"
    /// The logo shown in the security-code field.
    public static let securityCodeLogo = "CVV"
}

extension EntryEngine {
    /// The line to leave on screen above any output a key produced, given the view before the
    /// key: the field that was active, with the key applied (the digit that completed it), or
    /// as it was when the key emptied it (cancel, `:clear`) or it held a `:` command.
    public func finishedView(before: EntryView) -> EntryView {
        // The field's text after the key is empty exactly when it shows no command and has no
        // digits: known without building the view (a replay asks after every submit).
        if before.isCommand { return before }
        let showsCommand = command != nil && before.field == field
        let digits: Int
        switch before.field {
        case .number: digits = numberDigits.count
        case .expiry: digits = expiryDigits.count
        case .cvv: digits = cvvDigits.count
        }
        return !showsCommand && digits == 0 ? before : view(of: before.field)
    }

    /// "8/16": digits typed, out of the length that moves on by itself, the longest the
    /// patterns still possible allow (a Visa `4136…` counts toward 16, a Maestro toward 19);
    /// "13/16 (13 valid)" once the digits typed already make a complete, valid number that
    /// Enter takes (`LengthSet.completeness`: `.completeCanGrow`).
    func numberProgress(_ network: CardNetwork?) -> String {
        // Built from bytes: string interpolation costs more than the rest of a key's view.
        let count = numberDigits.count
        // Built in a stack buffer: string interpolation costs more than the rest of a key's
        // view, and up to 15 bytes make a small string (no allocation).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            var end = 0
            func put(_ text: StaticString) {
                for byte in UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount) { buffer[end] = byte; end += 1 }
            }
            func put(_ value: Int) {
                var divisor = 1
                while divisor <= value / 10 { divisor *= 10 }
                var rest = Swift.max(value, 0)
                while divisor > 0 {
                    buffer[end] = UInt8(48 + rest / divisor)
                    end += 1
                    rest %= divisor
                    divisor /= 10
                }
            }
            put(count)
            if let network {
                let (goal, valid) = numberGoal(network)
                put("/")
                put(goal)
                if valid {
                    put(" (")
                    put(count)
                    put(" valid)")
                }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<end]), as: UTF8.self)
        }
    }

    /// The length the number counts toward, and whether the digits typed are already a
    /// complete, valid number short of it.
    private func numberGoal(_ network: CardNetwork) -> (goal: Int, valid: Bool) {
        let count = numberDigits.count
        // The lengths of the pattern that decides the number (before that, of every pattern still possible).
        let lengths = detection.lengths
        let goal = max(count, lengths.max)
        let valid = lengths.completeness(of: count) == .completeCanGrow && (!network.luhn || CardNumber.passesLuhn(numberDigits))
        return (goal, valid)
    }

    /// Appends `view(of: field).transcriptLine`'s bytes, made straight from the engine's state
    /// without building the view's strings (a replay writes a line like it several times per
    /// card). The `transcriptLineMatchesTheView` test holds the two together.
    public func appendTranscriptLine(of field: Field, to bytes: inout [UInt8]) {
        let showsCommand = command != nil && field == self.field
        guard !showsCommand else { return view(of: field).appendTranscriptLine(to: &bytes) }
        let network = detection.network
        switch field {
        case .number:
            bytes.append("Card number (" as StaticString)
            bytes.appendUTF8(network?.formatHint ?? EntryView.unknownNetworkHint)
            bytes.append("): " as StaticString)
            // Grouped as `CardNumber.grouped`, masked as `CardNumber.appendMaskingNumber`.
            let count = numberDigits.count
            let (first, last) = CardNumber.shownDigits(count: count)
            let groups = network?.groups ?? [4, 4, 4, 4]
            var groupIndex = 0
            var left = groups.first ?? Int.max
            for (index, digit) in numberDigits.enumerated() {
                if left == 0 {
                    bytes.append(UInt8(ascii: " "))
                    groupIndex += 1
                    left = groupIndex < groups.count ? groups[groupIndex] : Int.max
                }
                if index >= first && index < count - last {
                    bytes.append(0xE2)  // •
                    bytes.append(0x80)
                    bytes.append(0xA2)
                } else {
                    bytes.append(digit + 48)
                }
                left -= 1
            }
            bytes.append("  [" as StaticString)
            bytes.appendUTF8(network?.logo ?? undecidedLogo)
            bytes.append(UInt8(ascii: " "))
            bytes.appendDecimal(count)
            if let network {
                let (goal, valid) = numberGoal(network)
                bytes.append(UInt8(ascii: "/"))
                bytes.appendDecimal(goal)
                if valid {
                    bytes.append(" (" as StaticString)
                    bytes.appendDecimal(count)
                    bytes.append(" valid)" as StaticString)
                }
            }
        case .expiry:
            bytes.append("Expiry (MM/YY): " as StaticString)
            for (index, digit) in expiryDigits.enumerated() {
                if index == 2 { bytes.append(UInt8(ascii: "/")) }
                bytes.append(digit + 48)
            }
            if expiryDigits.count == 2 { bytes.append(UInt8(ascii: "/")) }
            bytes.append("  [" as StaticString)
            bytes.appendUTF8(network?.logo ?? undecidedLogo)
            bytes.append(UInt8(ascii: " "))
            bytes.appendDecimal(expiryDigits.count)
            bytes.append("/4" as StaticString)
        case .cvv:
            let name = network?.cvv.name ?? "CVV", maxLength = network?.cvv.length ?? 4
            bytes.appendUTF8(name)
            bytes.append(" (" as StaticString)
            for _ in 0..<maxLength { bytes.append(UInt8(ascii: "#")) }
            bytes.append("): " as StaticString)
            for _ in cvvDigits { bytes.append(contentsOf: [0xE2, 0x80, 0xA2]) }  // •
            bytes.append("  [" as StaticString)
            bytes.appendUTF8(EntryView.securityCodeLogo)
            bytes.append(UInt8(ascii: " "))
            bytes.appendDecimal(cvvDigits.count)
            bytes.append(UInt8(ascii: "/"))
            bytes.appendDecimal(maxLength)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The active field's view.
    public var view: EntryView { view(of: field) }

    /// `view`, for a caller that keeps the engine as a stored property of a class (the
    /// prompt, after every key): a mutating call uses the engine where it is, where reading a
    /// property of it first copies the whole engine. Changes nothing.
    public mutating func currentView() -> EntryView { view(of: field) }

    /// How a field looks with its current value (a `:` command shows only in the active field).
    public func view(of field: Field) -> EntryView {
        // Each string made once, the view built at the end (a view is made after every key).
        let network = detection.network
        let isCommand = command != nil && field == self.field
        let label: String, hint: String, text: String, progress: String
        var logo = network?.logo ?? undecidedLogo
        switch field {
        case .number:
            label = "Card number"
            hint = network?.formatHint ?? EntryView.unknownNetworkHint
            text = isCommand ? command! : CardNumber.grouped(numberDigits, groups: network?.groups ?? [4, 4, 4, 4])
            progress = isCommand ? "" : numberProgress(network)
        case .expiry:
            label = "Expiry"
            hint = "MM/YY"
            text = isCommand ? command! : expiryText
            progress = isCommand ? "" : "\(expiryDigits.count)/4"
        case .cvv:
            let code = securityCode
            label = code.name
            hint = String(repeating: "#", count: code.maxLength)
            text = isCommand ? command! : String(repeating: "•", count: cvvDigits.count)
            logo = EntryView.securityCodeLogo
            progress = isCommand ? "" : "\(cvvDigits.count)/\(code.maxLength)"
        }
        return EntryView(field: field, label: label, hint: hint, text: text, logo: logo, progress: progress, isCommand: isCommand)
    }
}

extension [UInt8] {
    /// Appends a non-negative number's decimal digits.
    @inline(__always) mutating func appendDecimal(_ value: Int) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = Swift.max(value, 0)
        while divisor > 0 {
            append(UInt8(48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends a string's UTF-8 bytes in one copy (`+= text.utf8` walked them one by one).
    @inline(__always) mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}

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
    /// with the number masked (`maskedText`): the prompt's line without its colour. The one
    /// transcript renderer: replay writes every field line through it.
    public var transcriptLine: String {
        var bytes: [UInt8] = []
        appendTranscriptLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `transcriptLine`'s bytes.
    public func appendTranscriptLine(to bytes: inout [UInt8]) {
        Self.appendTranscriptLine(to: &bytes, logo: logo) {
            $0.appendUTF8(label)
        } hint: {
            $0.appendUTF8(hint)
        } text: { bytes in
            appendMaskedText(to: &bytes)
        } progress: { bytes in
            guard !progress.isEmpty else { return }
            bytes.append(UInt8(ascii: " "))
            bytes.appendUTF8(progress)
        }
    }

    /// The one transcript renderer: the line's layout, with the masked text and the progress
    /// (a space before it, nothing without one) written by the caller. A view writes its
    /// strings; the replayer writes the engine's state through `EntryEngine.appendTranscriptLine(of:to:)`
    /// without making a view (the replayer writes hundreds of thousands of lines).
    @inline(__always)
    static func appendTranscriptLine(
        to bytes: inout [UInt8], logo: String, label: (inout [UInt8]) -> Void, hint: (inout [UInt8]) -> Void,
        text: (inout [UInt8]) -> Void, progress: (inout [UInt8]) -> Void
    ) {
        // The separators a byte at a time: a literal's buffer appended costs several times
        // more for two or three bytes.
        label(&bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: "("))
        hint(&bytes)
        bytes.append(UInt8(ascii: ")"))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        text(&bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: "["))
        bytes.appendUTF8(logo)
        progress(&bytes)
        bytes.append(UInt8(ascii: "]"))
    }

    /// The text as shown anywhere but the live field: the number masked as one number, a
    /// command with any card number in it masked (`CardNumber`'s masking policy).
    public var maskedText: String { maskedText(mask: CardPolicy.mask) }

    /// `maskedText` with `mask` for each hidden digit (`*` where only ASCII can be drawn).
    public func maskedText(mask: Unicode.Scalar) -> String {
        var bytes: [UInt8] = []
        appendMaskedText(mask: mask, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `maskedText(mask:)`'s bytes.
    func appendMaskedText(mask: Unicode.Scalar = CardPolicy.mask, to bytes: inout [UInt8]) {
        if isCommand {
            CardNumber.appendMasking(text, mask: mask, to: &bytes)
        } else if field == .number {
            CardNumber.appendMaskingNumber(text, mask: mask, to: &bytes)
        } else {
            bytes.appendUTF8(text)
        }
    }

    /// The number's format hint while no single network matches.
    public static let unknownNetworkHint = CardPolicy.unknownNetworkHint

    /// The logo shown while no single network matches.
    public static let genericLogo = "CARD"
    /// The logo shown in the security-code field while no network is known (then the
    /// network's name for its code, as the label shows it).
    public static let securityCodeLogo = CardPolicy.unknownSecurityCodeName
}

extension EntryEngine {
    /// The line to leave on screen above any output a key produced, given the view before the
    /// key: the field that was active, with the key applied (the digit that completed it), or
    /// as it was when the key emptied it (cancel, `:clear`) or it held a `:` command.
    public func finishedView(before: EntryView) -> EntryView {
        keepsLineBefore(field: before.field, wasCommand: before.isCommand) ? before : view(of: before.field)
    }

    /// Whether the line left on screen after a key is the field's line from before the key
    /// (`finishedView(before:)`): the field held a `:` command, or the key emptied it (a
    /// submit, cancel, `:clear`) and it shows no command now. Known from the engine's state
    /// alone.
    func keepsLineBefore(field: Field, wasCommand: Bool) -> Bool {
        if wasCommand { return true }
        // The field's text after the key is empty exactly when it shows no command and has no digits.
        let showsCommand = command != nil && field == self.field
        return !showsCommand && characterCount(of: field) == 0
    }

    /// Appends `view(of: field).transcriptLine`'s bytes, written from the engine's state
    /// through the one renderer (`EntryView.appendTranscriptLine`) without making the view's
    /// strings: the number grouped and masked in one pass, the progress as digits.
    public func appendTranscriptLine(of field: Field, to bytes: inout [UInt8]) {
        // A `:` command is rare: its view's line.
        if command != nil && field == self.field { return view(of: field).appendTranscriptLine(to: &bytes) }
        // The name and postal code are rare and short: their view's line.
        if field == .name || field == .postalCode { return view(of: field).appendTranscriptLine(to: &bytes) }
        let network = detection.network
        // The badge names the network chosen (a co-badged card's may be another than the one
        // whose groups the number has).
        let logo: String
        if detection.isCoBadged, let chosen = self.network {
            logo = chosen.logo
        } else if let network {
            logo = network.logo
        } else {
            logo = undecidedLogo
        }
        switch field {
        case .number:
            EntryView.appendTranscriptLine(to: &bytes, logo: logo) {
                $0.appendUTF8(messages.numberLabel)
            } hint: {
                $0.appendUTF8(network?.formatHint(forCount: numberDigits.count) ?? EntryView.unknownNetworkHint)
            } text: { bytes in
                // `CardNumber.appendMaskingNumber` of the grouped text, without the text.
                let hidden = CardPolicy.shownDigits(count: numberDigits.count).hidden
                bytes.reserveCapacity(bytes.count + 3 * numberDigits.count + 8)
                var index = 0
                CardPolicy.forEachGrouped(
                    numberDigits, groups: CardPolicy.groups(for: network, count: numberDigits.count)
                ) { byte in
                    guard byte != UInt8(ascii: " ") else { return bytes.append(byte) }
                    if hidden.contains(index) {
                        CardNumber.appendMark(CardPolicy.mask, to: &bytes)
                    } else {
                        bytes.append(byte)
                    }
                    index += 1
                }
            } progress: { bytes in
                bytes.append(UInt8(ascii: " "))
                guard network != nil else { return Self.writeProgress(numberDigits.count, of: nil, into: &bytes) }
                let (goal, valid) = numberGoal()
                Self.writeProgress(numberDigits.count, of: goal, validNote: valid ? messages : nil, into: &bytes)
            }
        case .expiry:
            EntryView.appendTranscriptLine(to: &bytes, logo: logo) {
                $0.appendUTF8(messages.expiryLabel)
            } hint: {
                $0.appendUTF8(expiryDigits.count > 4 ? messages.text(.hintExpiryLong) : messages.expiryHint)
            } text: { bytes in
                bytes.appendUTF8(expiryText)
            } progress: { bytes in
                bytes.append(UInt8(ascii: " "))
                Self.writeProgress(expiryDigits.count, of: expiryGoal, into: &bytes)
            }
        case .name, .postalCode:
            break  // (above)
        case .cvv:
            let code = securityCode
            EntryView.appendTranscriptLine(to: &bytes, logo: code.name) {
                $0.appendUTF8(code.name)
            } hint: {
                $0.appendUTF8(Self.repeated("#", code.maxLength))
            } text: { bytes in
                bytes.appendUTF8(Self.repeated(CardPolicy.mask, cvvDigits.count))
            } progress: { bytes in
                bytes.append(UInt8(ascii: " "))
                Self.writeProgress(cvvDigits.count, of: code.maxLength, into: &bytes)
            }
        }
    }

    /// The name field's badge.
    static let nameLogo = "NAME"

    /// The expiry's digits when complete: 4, or 6 once a four-digit year's third digit is typed.
    var expiryGoal: Int { expiryDigits.count > 4 ? 6 : 4 }

    /// "8/16": digits typed, out of the length that moves on by itself, the longest the
    /// patterns still possible allow (a Visa `4136…` counts toward 16, a Maestro toward 19);
    /// "13/16 (13 valid)" once the digits typed already make a complete, valid number that
    /// Enter takes (`LengthSet.completeness`: `.completeCanGrow`), the note in the words of
    /// `messages` (`progress.valid`).
    static func numberProgress(_ digits: [UInt8], _ detection: Detection, _ messages: MessageCatalog) -> String {
        guard detection.network != nil else { return progress(digits.count, of: nil) }
        let (goal, valid) = numberGoal(digits, detection)
        return progress(digits.count, of: goal, validNote: valid ? messages : nil)
    }

    /// "8/16", "13/16 (13 valid)" (with `validNote`, the catalog that words the note), or "8"
    /// with no goal: a field's progress.
    static func progress(_ count: Int, of goal: Int?, validNote: MessageCatalog? = nil) -> String {
        // Every count toward a goal up to the longest number ("2/4", "12/16") made once: the
        // number's progress is shown after every digit.
        if let goal, goal < smallProgress.count, count >= 0, count <= goal, validNote == nil {
            return smallProgress[goal][count]
        }
        return makeProgress(count, of: goal, validNote: validNote)
    }

    /// `progress` toward goals of up to the longest number's digits, by goal and count.
    private static let smallProgress = (0...CardPolicy.longestNumber).map { goal in
        (0...goal).map { makeProgress($0, of: goal, validNote: nil) }
    }

    private static func makeProgress(_ count: Int, of goal: Int?, validNote: MessageCatalog?) -> String {
        let length =
            count.decimalWidth
            + (goal.map { 1 + $0.decimalWidth + (validNote.map { 1 + $0.validNoteLength(count) } ?? 0) } ?? 0)
        // unsafe: written in place, to the byte (up to 15 bytes make a small string): string
        // interpolation costs more than the rest of a key's view.
        return String(unsafeUninitializedCapacity: length) { buffer in
            var sink = BufferSink(buffer: buffer)
            writeProgress(count, of: goal, validNote: validNote, into: &sink)
            return sink.end
        }
    }

    /// Writes `progress(count, of: goal, validNote:)`'s bytes: the view's string and the transcript's line.
    @inline(__always)
    static func writeProgress<Sink: ByteSink>(
        _ count: Int, of goal: Int?, validNote: MessageCatalog? = nil, into sink: inout Sink
    ) {
        sink.writeDecimal(count)
        guard let goal else { return }
        sink.write(UInt8(ascii: "/"))
        sink.writeDecimal(goal)
        guard let validNote else { return }
        sink.write(UInt8(ascii: " "))
        validNote.writeValidNote(count, into: &sink)
    }

    /// The length the number counts toward, and whether the digits typed are already a
    /// complete, valid number short of it (`CardPolicy.verdict`).
    private func numberGoal() -> (goal: Int, valid: Bool) { Self.numberGoal(numberDigits, detection) }

    private static func numberGoal(_ digits: [UInt8], _ detection: Detection) -> (goal: Int, valid: Bool) {
        // The lengths of the pattern that decides the number (before that, of every pattern still possible).
        // (The Luhn sum only for a number that can still grow: only then is it "valid" short of its goal.)
        let count = digits.count
        let lengths = detection.lengths
        return (
            numberGoal(count: count, lengths: lengths),
            lengths.completeness(of: count) == .completeCanGrow && detection.verdict(digits).isValid
        )
    }

    /// The length a number of `count` digits counts toward, when `lengths` are its patterns'.
    @inline(__always)
    static func numberGoal(count: Int, lengths: LengthSet) -> Int { max(count, lengths.max) }

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
        let label: String
        let hint: String
        let text: String
        let progress: String
        // The chosen network's, for a co-badged card (`if let`, not `??`: no optional string
        // made and freed).
        var logo: String
        if let chosen = self.network { logo = chosen.logo } else { logo = undecidedLogo }
        switch field {
        case .number:
            label = messages.numberLabel
            if let network {
                hint = network.formatHint(forCount: numberDigits.count)
            } else {
                hint = EntryView.unknownNetworkHint
            }
            text =
                isCommand
                ? command!
                : CardPolicy.grouped(numberDigits, groups: CardPolicy.groups(for: network, count: numberDigits.count))
            progress = isCommand ? "" : Self.numberProgress(numberDigits, detection, messages)
        case .expiry:
            label = messages.expiryLabel
            hint = expiryDigits.count > 4 ? messages.text(.hintExpiryLong) : messages.expiryHint
            text = isCommand ? command! : expiryText
            progress = isCommand ? "" : Self.progress(expiryDigits.count, of: expiryGoal)
        case .cvv:
            let code = securityCode
            label = code.name
            hint = Self.repeated("#", code.maxLength)
            text = isCommand ? command! : Self.repeated(CardPolicy.mask, cvvDigits.count)
            logo = code.name  // the badge says what the label says: CVC, CID, CVV
            progress = isCommand ? "" : Self.progress(cvvDigits.count, of: code.maxLength)
        case .name:
            label = messages.text(.labelName)
            hint = messages.text(.hintName)
            text = isCommand ? command! : holderName
            logo = Self.nameLogo
            progress = isCommand ? "" : Self.progress(holderName.count, of: HolderName.maxLength)
        case .postalCode:
            let format = form.postalCode
            label = format?.label(messages) ?? messages.text(.labelPostalCode)
            hint = format?.example(messages) ?? ""
            text = isCommand ? command! : format?.formatted(postalCharacters) ?? ""
            logo = format?.country ?? ""
            progress = isCommand ? "" : Self.progress(postalCharacters.count, of: format?.longest)
        }
        return EntryView(
            field: field, label: label, hint: hint, text: text, logo: logo, progress: progress, isCommand: isCommand)
    }
}

extension EntryEngine {
    /// `String(repeating: mark, count: count)`, made once per mark and count: the security
    /// code's hint (`###`) and masked text (`•••`) are shown on every key of the code.
    static func repeated(_ mark: Unicode.Scalar, _ count: Int) -> String {
        guard count < 8 else { return String(repeating: String(mark), count: count) }
        return mark == "#"
            ? hashes[count] : mark == CardPolicy.mask ? masks[count] : String(repeating: String(mark), count: count)
    }
    private static let hashes = (0..<8).map { String(repeating: "#", count: $0) }
    private static let masks = (0..<8).map { String(repeating: String(CardPolicy.mask), count: $0) }
}

/// Where a view's parts are written byte by byte: a transcript's line (`[UInt8]`) or a
/// string made in place (`BufferSink`).
protocol ByteSink {
    mutating func write(_ byte: UInt8)
}

extension ByteSink {
    /// Writes a non-negative number's decimal digits.
    @inline(__always) mutating func writeDecimal(_ value: Int) {
        // Last digit first into a few bytes of stack, by constant divisions (multiplications:
        // a division by a power of ten chosen at run time cost a fifth of `check`'s JSON).
        var digits = InlineArray<20, UInt8>(repeating: 0)
        var rest = UInt(Swift.max(value, 0))
        var count = 0
        repeat {
            digits[count] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
            rest /= 10
            count += 1
        } while rest > 0
        while count > 0 {
            count -= 1
            write(digits[count])
        }
    }
}

extension [UInt8]: ByteSink {
    @inline(__always) mutating func write(_ byte: UInt8) { append(byte) }
}

/// The bytes of a string being made in place, written from the start.
struct BufferSink: ByteSink {
    let buffer: UnsafeMutableBufferPointer<UInt8>  // unsafe: the in-place strings above
    /// Bytes written so far.
    var end = 0
    @inline(__always) mutating func write(_ byte: UInt8) {
        buffer[end] = byte
        end += 1
    }
}

extension Int {
    /// How many decimal digits a non-negative number has (1 for 0).
    var decimalWidth: Int {
        var width = 1
        var rest = self
        while rest >= 10 {
            rest /= 10
            width += 1
        }
        return width
    }
}

extension [UInt8] {
    /// Appends a non-negative number's decimal digits.
    @inline(__always) mutating func appendDecimal(_ value: Int) { writeDecimal(value) }

    /// Appends a string's UTF-8 bytes in one copy (`+= text.utf8` walked them one by one).
    @inline(__always) mutating func appendUTF8(_ text: String) {
        // Read in place (a copy to call `withUTF8` on cost a retain and a release); a string
        // not stored as UTF-8 (bridged) is made so.
        if text.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) != nil { return }
        var text = text
        // unsafe: one copy of the bytes from the now-native string.
        text.withUTF8 { append(contentsOf: $0) }
    }
}

import CardChip

/// Cards swiped or read from their chip, for `SessionRecorder`: each written as a made-up card
/// of its own (`@swipe` tracks, `@chip` or `@tap` answers) that does at the prompt what the
/// real one did.
extension SessionRecorder {
    /// A card swiped or read, as the recorder keeps it until its made-up twin is written: its
    /// number, expiry and name (overwritten by `wipe()`) and what else the made-up one repeats.
    struct CardRead {
        var digits: [UInt8] = []
        var month: Int
        var year: Int
        /// The holder's name as the card gives it (`GIVEN SURNAME`), bytes.
        var name: [UInt8] = []
        var kind: Kind

        enum Kind {
            /// Swiped; `chip`: the service code says the card has a chip.
            case swipe(chip: Bool)
            /// Read from its chip: the application's identifier, label and PAN sequence number.
            case chip(aid: [UInt8], label: String, sequence: Int?, contactless: Bool)
        }

        init(_ track: TrackData) {
            month = track.expiryMonth
            year = track.expiryYear
            kind = .swipe(chip: track.chip)
            digits.append(contentsOf: track.numberDigits)
            name.append(contentsOf: (track.holderName ?? "").utf8)
        }

        /// The application the card is delivered from (its first); nil when it has none.
        init?(_ card: ChipCard) {
            guard let application = card.applications.first else { return nil }
            month = application.expiryMonth
            year = application.expiryYear
            kind = .chip(
                aid: application.aid, label: application.label, sequence: application.panSequence,
                contactless: card.contactless)
            digits.append(contentsOf: application.numberDigits)
            name.append(contentsOf: (application.holderName ?? "").utf8)
        }

        mutating func wipe() {
            digits.overwriteAndEmpty()
            name.overwriteAndEmpty()
        }
    }

    /// A made-up card that does on `engine` what `read` did at the prompt (`signature`), handed
    /// to it: its number follows the read one's path through the rules (`RuleSet.madeUpNumber`),
    /// its name has other letters, and expiry dates are tried until the card does the same. Its
    /// script line, the key, and what the engine did. For a read that could not be used (nil),
    /// one that cannot either.
    mutating func madeUpRead(_ read: CardRead?, of key: Key, _ signature: Signature, on engine: inout EntryEngine)
        -> (line: String, key: Key, outcome: Outcome)
    {
        guard let read else {
            // (`;0=?`: track data too short to read, which a paste's text also takes for a swipe
            // wherever it stands, `TrackData.swipeStart`.)
            let unread: (String, Key) = key == .swipe(nil) ? ("@swipe ;0=?", .swipe(nil)) : ("@chip 6A82", .chip(nil))
            return (unread.0, unread.1, engine.handle(unread.1, reloadingWith: loader))
        }
        let number = engine.rules.madeUpNumber(following: read.digits, using: &random)
        let name = madeUpName(read.name)
        var best: (line: String, key: Key, engine: EntryEngine, outcome: Outcome)?
        for attempt in 0..<40 {
            // The card's own expiry last, when no other does the same.
            let (month, year) =
                attempt == 39
                ? (read.month, read.year)
                : (
                    Int.random(in: 1...12, using: &random),
                    (read.year + Int.random(in: -3...3, using: &random) + 100) % 100
                )
            let (line, made) = Self.card(
                read.kind, number, month: month, year: year, name: name, engine.rules.knownAIDs)
            var trial = engine
            let outcome = trial.handle(made, reloadingWith: loader)
            let got = Signature(trial, outcome)
            if got == signature {
                engine = trial
                return (line, made, outcome)
            }
            if best == nil && (got.sameButWords(as: signature) || attempt == 39) { best = (line, made, trial, outcome) }
        }
        engine = best!.engine
        return (best!.line, best!.key, best!.outcome)
    }

    /// `name` (`GIVEN SURNAME`) with every letter another capital, as a card holds it:
    /// `SURNAME/GIVEN`; empty for none.
    private mutating func madeUpName(_ name: [UInt8]) -> String {
        let words = String(decoding: name, as: UTF8.self).split(separator: " ").map { word in
            String(
                word.unicodeScalars.map { letter in
                    var made: UInt8
                    repeat {
                        made = UInt8.random(in: 65...90, using: &random)
                    } while made == UInt8(truncatingIfNeeded: letter.value)
                    return Character(Unicode.Scalar(made))
                })
        }
        return words.isEmpty ? "" : words.last! + "/" + words.dropLast().joined(separator: " ")
    }

    /// The script line of a card of `kind` with these details, and the key it is.
    private static func card(
        _ kind: CardRead.Kind, _ digits: [UInt8], month: Int, year: Int, name: String, _ known: [ChipReadFlow.KnownAID]
    ) -> (String, Key) {
        let number = CardNumber.string(digits)
        switch kind {
        case .swipe(let chip):
            let expiry = twoDigits(year) + twoDigits(month) + (chip ? "201" : "101")
            let track2 = ";\(number)=\(expiry)0000000?"
            let tracks = name.isEmpty ? track2 : "%B\(number)^\(name)^\(expiry)0000000000?" + track2
            return ("@swipe " + tracks, .swipe(try? TrackData.read(Array(tracks.utf8)).get()))
        case .chip(let aid, let label, let sequence, let contactless):
            // 5F24 is YYMMDD (the 28th: a day of every month).
            let expiry = [year / 10, year % 10, month / 10, month % 10, 2, 8].map { UInt8($0) }
            var record = tlv([0x5A], bcd(digits)) + tlv([0x5F, 0x24], bcd(expiry))
            if !name.isEmpty { record += tlv([0x5F, 0x20], Array(name.utf8)) }
            if let sequence { record += tlv([0x5F, 0x34], bcd([UInt8((sequence / 10) % 10), UInt8(sequence % 10)])) }
            let answers = chipAnswers(aid: aid, label: Array(label.utf8), record: tlv([0x70], record), known)
            let line = (contactless ? "@tap " : "@chip ") + answers.map { Hex.string($0) }.joined(separator: " ")
            return (line, .chip(ChipReadFlow.read(answers, known: known, contactless: contactless)))
        }
    }

    /// A card's answers to the commands of `ChipReadFlow`, in the order it sends them: no
    /// payment system environment, a proximity one that lists the one application, whose
    /// processing options point at the one record `record`.
    private static func chipAnswers(aid: [UInt8], label: [UInt8], record: [UInt8], _ known: [ChipReadFlow.KnownAID])
        -> [[UInt8]]
    {
        let ok: [UInt8] = [0x90, 0x00]
        let ppse = Array("2PAY.SYS.DDF01".utf8)
        let entry = tlv([0x61], tlv([0x4F], aid) + tlv([0x50], label) + tlv([0x87], [1]))
        let directory = tlv([0x6F], tlv([0x84], ppse) + tlv([0xA5], tlv([0xBF, 0x0C], entry)))
        let selected = tlv([0x6F], tlv([0x84], aid) + tlv([0xA5], tlv([0x50], label)))
        // Format 1: no features (AIP 0000), SFI 1 record 1.
        let options = tlv([0x80], [0x00, 0x00, 0x08, 0x01, 0x01, 0x00])
        var flow = ChipReadFlow(
            known: known, terminal: TerminalValues(year: 26, month: 1, day: 1, unpredictableNumber: [0, 0, 0, 0]))
        var answers: [[UInt8]] = []
        var step = flow.start()
        while case .send(let command) = step, answers.count < 20 {
            let answer: [UInt8]
            if command.count > 5 && command[1] == 0xA4 {
                let selecting = Array(command.dropFirst(5).prefix(Int(command[4])))
                answer = selecting == ppse ? directory + ok : selecting == aid ? selected + ok : [0x6A, 0x82]
            } else if command.count > 3 && command[1] == 0xA8 {
                answer = options + ok
            } else if command.count > 3 && command[1] == 0xB2 && command[2] == 1 && command[3] == 0x0C {
                answer = record + ok
            } else {
                answer = [0x6A, 0x83]
            }
            answers.append(answer)
            step = flow.take(answer)
        }
        return answers
    }

    /// A BER-TLV object: `tag`, the length, `value`.
    private static func tlv(_ tag: [UInt8], _ value: [UInt8]) -> [UInt8] {
        tag + (value.count < 0x80 ? [UInt8(value.count)] : [0x81, UInt8(value.count)]) + value
    }

    /// Digits 0–9 two to a byte, an odd one out padded with F.
    private static func bcd(_ digits: [UInt8]) -> [UInt8] {
        stride(from: 0, to: digits.count, by: 2).map { index in
            digits[index] << 4 | (index + 1 < digits.count ? digits[index + 1] : 0x0F)
        }
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

import CardKit

/// Every sentence accessible mode (`AccessiblePrompt`) says of its own, in one place: the
/// question for each field, the sentence a refused answer gets, the network in words, and how
/// the prompt ended. Each is a whole sentence a screen reader reads on its own line. The
/// reasons inside them are the engine's (the same words the other front ends show); this only
/// makes sentences of them. Their words come from the message catalog (`a11y.*` ids), in the prompt's language.
enum AccessibleSentences {
    /// The question for `field`, the answer typed after it on the same line: "Card number: ",
    /// "Expiry date, month and year as MM/YY: ", "CVV, 3 digits, not shown as you type: ",
    /// "Name, as on the card: ", "ZIP code, like 12345: " (the label and example of the view).
    static func question(_ field: Field, engine: EntryEngine) -> String {
        let messages = engine.messages
        switch field {
        case .number: return messages.text(.a11yQuestionNumber)
        case .expiry: return messages.text(.a11yQuestionExpiry)
        case .cvv:
            let code = engine.securityCode
            return messages.text(.a11yQuestionCode, ("code", code.name), ("lengths", code.lengthWords))
        case .name:
            let view = engine.view(of: .name)
            return messages.text(.a11yQuestionHint, ("label", view.label), ("hint", view.hint))
        case .postalCode:
            // "ZIP code, like 12345: ", from the country's format.
            let view = engine.view(of: .postalCode)
            return view.hint.isEmpty
                ? messages.text(.a11yQuestionPlain, ("label", view.label))
                : messages.text(.a11yQuestionLike, ("label", view.label), ("example", view.hint))
        }
    }

    /// Said once, before the first question: how answers are given, and which networks are
    /// taken when not all are ("Accepted here: Visa and Mastercard.").
    static func introduction(engine: EntryEngine) -> [String] {
        let messages = engine.messages
        let how = messages.text(.a11yIntroduction)
        guard let accepted = engine.acceptedNetworks else { return [how] }
        return [
            how,
            messages.text(.rulesAccepted, ("networks", accepted.names(in: engine.rules, and: messages.text(.listAnd)))),
        ]
    }

    /// `reason` (an engine's refusal or problem, like "only digits go in the card number, not
    /// 'x'") as a sentence: its first letter capitalised, a full stop at its end.
    static func sentence(_ reason: String) -> String {
        guard let first = reason.first else { return reason }
        var text = first.uppercased() + reason.dropFirst()
        if let last = text.last, !".!?".contains(last) { text += "." }
        return text
    }

    /// Said when a line holds more than the field asked for (a 16-digit number and more digits
    /// after it): the field is asked again, alone.
    static func moreThanTheField(_ fieldName: String, _ messages: MessageCatalog) -> String {
        messages.text(.a11yMoreThanTheField, ("field", fieldName))
    }

    /// Said for a number of a length its network allows whose check digit does not match:
    /// "That number has 16 digits, as a Visa card number does, but the last digit doesn't match
    /// the others; please check it."
    static func checkDigitFails(count: Int, network: CardNetwork, _ messages: MessageCatalog) -> String {
        messages.text(
            .a11yCheckDigit, ("count", String(count)), ("a", article(for: network.name)), ("network", network.name))
    }

    /// Said once the number is taken, the network in words and the number masked as everywhere
    /// else (its last shown digits only): "Visa card number, 16 digits, ending in 1111."
    static func numberTaken(network: CardNetwork?, count: Int, ending lastDigits: String, _ messages: MessageCatalog)
        -> String
    {
        guard let network else {
            return messages.text(.a11yNumberTakenUnknown, ("count", String(count)), ("last", lastDigits))
        }
        return messages.text(
            .a11yNumberTaken, ("network", network.name), ("count", String(count)), ("last", lastDigits))
    }

    /// The prompt ended because no key came for `milliseconds`: the prompt's own words, as a
    /// sentence.
    static func timedOut(milliseconds: Int64, _ messages: MessageCatalog) -> String {
        sentence(messages.timedOut(milliseconds: milliseconds))
    }

    /// Said when a submitted card is refused for its number or expiry: the card is emptied.
    static func startAgain(_ messages: MessageCatalog) -> String { messages.text(.a11yStartAgain) }

    /// `:help` here: only the keys and commands accessible mode has (no step back to the field
    /// before, no recall, no Ctrl-N).
    static func help(endsOnCancel: Bool, _ messages: MessageCatalog) -> [String] {
        [messages.text(.a11yHelp1), messages.text(.a11yHelp2)]
            + [messages.text(endsOnCancel ? .a11yHelpEnds : .a11yHelpCancels)]
            + [.a11yHelpCommands1, .a11yHelpCommands2, .a11yHelpCommands3, .a11yHelpCommands4].map { messages.text($0) }
    }

    /// `text` as a screen reader should hear it: a masked number by its last digits ("Visa
    /// ending in 1111", not "Visa •••• 1111", whose bullets are read one by one) and an expiry
    /// by its month and year ("December 2030", not "12/30"), a two-digit year in the century
    /// `century` gives it (`ExpiryPolicy.fullYear`: 12/99 is 1999 in 2026).
    static func spoken(
        _ text: String, _ messages: MessageCatalog, century: (Int) -> Int = { 2000 + $0 }
    ) -> String {
        var text = text
        // `:cards` marks the selected card with a leading `*`, which a screen reader says as
        // "star": said as a word after the line instead.
        if text.hasPrefix("* "), text.dropFirst(2).first?.isNumber == true {
            text = "  " + text.dropFirst(2) + " " + messages.text(.a11ySelected)
        }
        if text.contains(where: { $0 == "•" || $0 == "*" }) {
            text.replace(/(?:[0-9]+ )*[0-9]*[•*]{2,}[0-9•*]*(?: [0-9•*]+)*[0-9]/) { match in
                messages.text(
                    .a11yEndingIn, ("last", String(match.output.reversed().prefix { $0.isNumber }.reversed())))
            }
        }
        guard text.contains("/") else { return text }
        let months = messages.text(.a11yMonths).split(separator: " ")
        return text.replacing(/\b(0[1-9]|1[0-2])\/([0-9]{4}|[0-9]{2})\b/) { match in
            guard let month = Int(match.output.1), months.count == 12, let year = Int(match.output.2) else {
                return String(match.output.0)
            }
            return "\(months[month - 1]) \(match.output.2.count == 2 ? century(year) : year)"
        }
    }

    /// The prompt ended on Ctrl-C or Esc (one-shot use).
    static func cancelled(_ messages: MessageCatalog) -> String { sentence(messages.text(.promptCancelled)) }
}

import CardKit

/// Every sentence accessible mode (`AccessiblePrompt`) says of its own, in one place: the
/// question for each field, the sentence a refused answer gets, the network in words, and how
/// the prompt ended. Each is a whole sentence a screen reader reads on its own line. The
/// reasons inside them are the engine's (the same words the other front ends show); this only
/// makes sentences of them. (These move into the message catalog with issue 25's item 2.)
enum AccessibleSentences {
    /// The question for `field`, the answer typed after it on the same line: "Card number: ",
    /// "Expiry date, month and year as MM/YY: ", "CVV, 3 digits, not shown as you type: ",
    /// "Name, as on the card: ", "ZIP code, like 12345: " (the label and example of the view).
    static func question(_ field: Field, engine: EntryEngine) -> String {
        switch field {
        case .number: return "Card number: "
        case .expiry: return "Expiry date, month and year as MM/YY: "
        case .cvv:
            let code = engine.securityCode
            return "\(code.name), \(code.lengthWords) digits, not shown as you type: "
        case .name:
            let view = engine.view(of: .name)
            return "\(view.label), \(view.hint): "
        case .postalCode:
            // "ZIP code, like 12345: ", from the country's format.
            let view = engine.view(of: .postalCode)
            return view.hint.isEmpty ? "\(view.label): " : "\(view.label), like \(view.hint): "
        }
    }

    /// Said once, before the first question: how answers are given, and which networks are
    /// taken when not all are ("Accepted here: Visa and Mastercard.").
    static func introduction(engine: EntryEngine) -> [String] {
        let how = "Each question is answered with Enter; type :help for the commands."
        guard let accepted = engine.acceptedNetworks else { return [how] }
        return [how, "Accepted here: \(accepted.names(in: engine.rules))."]
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
    static func moreThanTheField(_ fieldName: String) -> String {
        "There was more on that line than the \(fieldName) takes; please type the \(fieldName) alone."
    }

    /// Said for a number of a length its network allows whose check digit does not match:
    /// "That number has 16 digits, as a Visa card number does, but the last digit doesn't match
    /// the others; please check it."
    static func checkDigitFails(count: Int, network: CardNetwork) -> String {
        "That number has \(count) digits, as \(article(for: network.name)) \(network.name) card number does, but the last digit doesn't match the others; please check it."
    }

    /// Said once the number is taken, the network in words and the number masked as everywhere
    /// else (its last shown digits only): "Visa card number, 16 digits, ending in 1111."
    static func numberTaken(network: CardNetwork?, count: Int, ending lastDigits: String) -> String {
        let card = network.map { "\($0.name) card number" } ?? "Card number"
        return "\(card), \(count) digits, ending in \(lastDigits)."
    }

    /// The prompt ended because no key came for `milliseconds`.
    static func timedOut(milliseconds: Int64) -> String {
        let seconds = Double(milliseconds) / 1000
        let amount = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
        return "Timed out: no key for \(amount) second\(seconds == 1 ? "" : "s"); the card being entered was wiped."
    }

    /// Said when a submitted card is refused for its number or expiry: the card is emptied.
    static let startAgain = "The card was emptied; please start again with the card number."

    /// The prompt ended on Ctrl-C or Esc (one-shot use).
    static let cancelled = "Cancelled: the card being entered was wiped."
}

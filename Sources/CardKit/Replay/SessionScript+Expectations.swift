// How `@expect`'s expectations and quoted strings of a `.session` line are read.

extension SessionScript {
    /// The first word of `text` and the text after the space or tab that ends it, split scalar
    /// by scalar: a space is one even where a combining mark follows it (`@paste ̌…`,
    /// `@expect logo ̌X`), which a split by characters would join to it.
    static func firstWord(_ text: Substring) -> (word: String, rest: Substring) {
        let scalars = text.unicodeScalars
        guard let space = scalars.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (String(text), "") }
        return (String(Substring(scalars[..<space])), Substring(scalars[scalars.index(after: space)...]))
    }

    static func expectation(_ text: String, line: Int) throws(SyntaxError) -> Expectation {
        let (what, after) = firstWord(text[...])
        let rest = String(after).trimmingBlanks
        let words = rest.split(separator: " ").map(String.init)
        func field(_ name: String) throws(SyntaxError) -> Field {
            guard let field = Field(rawValue: name) else {
                throw SyntaxError(
                    line: line,
                    message:
                        "unknown field `\(name)` (fields: \(Field.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return field
        }
        func count() throws(SyntaxError) -> Int {
            guard words.count == 1, let value = Int(words[0]), value >= 0 else {
                throw SyntaxError(line: line, message: "@expect \(what) takes a whole number, like `@expect \(what) 1`")
            }
            return value
        }
        switch what {
        case "field":
            guard words.count == 1 else {
                throw SyntaxError(
                    line: line,
                    message: "@expect field takes one of \(Field.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .field(try field(words[0]))
        case "text": return .text(try quoted(rest, line: line))
        case "message": return .message(try quoted(rest, line: line))
        case "network":
            guard words.count == 1 else {
                throw SyntaxError(line: line, message: "@expect network takes a network id or `none`")
            }
            return .network(words[0] == "none" ? nil : words[0])
        case "logo":
            // (A badge may hold a space: `V PAY`.)
            guard !rest.isEmpty else {
                throw SyntaxError(line: line, message: "@expect logo takes a logo name, like VISA")
            }
            return .logo(rest)
        case "entry":
            let chip: [String: Bool] = ["chip": true, "no-chip": false]
            guard (1...2).contains(words.count), let entry = PaymentCard.Entry(rawValue: words[0]),
                words.count == 1 || chip[words[1]] != nil
            else {
                throw SyntaxError(
                    line: line,
                    message:
                        "@expect entry takes keyed, swipe, chip or contactless, then for a swipe chip or no-chip if it matters, like `@expect entry swipe chip`"
                )
            }
            return .entry(entry, chip: words.count == 2 ? chip[words[1]] : nil)
        case "refused": return .refused(try count())
        case "cards": return .cards(try count())
        case "accepted":
            guard words.count <= 2 else {
                throw SyntaxError(
                    line: line, message: "@expect accepted takes at most a network id and the last four digits")
            }
            var network: String?
            var lastFour: String?
            for word in words {
                if word.count == 4 && word.allSatisfy(\.isASCIIDigit) { lastFour = word } else { network = word }
            }
            return .accepted(network: network, lastFour: lastFour)
        case "failed":
            guard words.count == 1 else {
                throw SyntaxError(
                    line: line,
                    message: "@expect failed takes fields separated by commas, like `@expect failed expiry,cvv`")
            }
            var fields = Set<Field>()
            for name in words[0].split(separator: ",") { fields.insert(try field(String(name))) }
            return .failed(fields)
        default:
            var message = "unknown expectation `\(what)`"
            let known = [
                "field", "text", "network", "refused", "message", "accepted", "failed", "cards", "logo", "entry",
            ]
            if let guess = closest(to: what, in: known) { message += "; did you mean `\(guess)`?" }
            throw SyntaxError(line: line, message: message)
        }
    }

    /// A double-quoted string with `\"` and `\\` escapes, and nothing after it. Read scalar by
    /// scalar: a quote is one even where a combining mark follows it (`"̌…"`).
    static func quoted(_ text: String, line: Int) throws(SyntaxError) -> String {
        guard text.unicodeScalars.first == "\"" else {
            throw SyntaxError(line: line, message: "expected a double-quoted string, like \"12/30\"")
        }
        var value = String.UnicodeScalarView()
        var escaped = false
        var rest = text.unicodeScalars.dropFirst()
        while let scalar = rest.first {
            rest = rest.dropFirst()
            if escaped {
                value.append(scalar)
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == "\"" {
                guard rest.allSatisfy({ $0 == " " || $0 == "\t" }) else {
                    throw SyntaxError(line: line, message: "unexpected text after the closing quote")
                }
                return String(value)
            } else {
                value.append(scalar)
            }
        }
        throw SyntaxError(line: line, message: "unterminated quote")
    }
}

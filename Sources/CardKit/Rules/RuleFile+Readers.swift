extension RuleFile {
    // MARK: - Field readers

    mutating func fail(_ location: SourceLocation, _ message: String) {
        problems.append(RuleError(file: file, location: location, message: message))
    }

    mutating func requiredString(_ field: Key, _ fields: Fields, _ objectStart: SourceLocation) -> (
        value: String, location: SourceLocation
    )? {
        let key = field.name
        guard let value = fields[field] else {
            fail(objectStart, "missing required field `\(key)`")
            return nil
        }
        guard let text = string(value, key) else { return nil }
        if text.value.utf8.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {  // only blanks
            fail(value.location, "`\(key)` must not be empty")
            return nil
        }
        return text
    }

    mutating func string(_ value: JSONValue, _ what: String) -> (value: String, location: SourceLocation)? {
        guard case .string(let text, let location) = value else {
            fail(
                value.location,
                "\(what.first == "`" || what.contains(" ") ? what : "`\(what)`") must be a string, found \(value.kindName)"
            )
            return nil
        }
        return (text, location)
    }

    /// Text shown on the terminal (a name, a badge) may not move the cursor or clear the
    /// screen: a control character in it is an error.
    mutating func checkShown(_ text: (value: String, location: SourceLocation)?, _ key: String) {
        guard let text, text.value.unicodeScalars.contains(where: \.isControl) else { return }
        fail(text.location, "`\(key)` \"\(text.value.escapingControlCharacters)\" must not contain control characters")
    }

    mutating func array(_ value: JSONValue, _ key: String) -> [JSONValue]? {
        guard case .array(let items, _) = value else {
            fail(value.location, "`\(key)` must be an array, found \(value.kindName)")
            return nil
        }
        return items
    }

    func arrayItems(_ value: JSONValue) -> [JSONValue] {
        if case .array(let items, _) = value { return items }
        return []
    }

    /// The whole numbers in an array, each checked against `allowed`; nil if any is wrong.
    mutating func integers(_ value: JSONValue, _ key: String, allowed: ClosedRange<Int>) -> [Int]? {
        guard let items = array(value, key) else { return nil }
        var numbers: [Int] = []
        var ok = true
        for item in items {
            guard case .number(let text, let location) = item, let number = Int(text) else {
                fail(
                    item.location,
                    "each entry of `\(key)` must be a whole number, found \(item.kindName == "a number" ? "\(item)" : item.kindName)"
                )
                ok = false
                continue
            }
            guard allowed.contains(number) else {
                fail(
                    location,
                    "\(key == "lengths" ? "length" : "`\(key)` entry") \(number) is outside \(allowed.lowerBound)-\(allowed.upperBound)"
                )
                ok = false
                continue
            }
            numbers.append(number)
        }
        return ok ? numbers : nil
    }

    /// "3 or 4": the lengths a rule file may give a security code (`CardPolicy.securityCodeLengths`).
    static let securityCodeLengthWords = CardPolicy.securityCode(nil).lengthWords

    mutating func securityCode(_ value: JSONValue) -> CardNetwork.SecurityCode? {
        guard case .object(let members, let location) = value else {
            fail(
                value.location,
                "`cvv` must be an object like {\"name\": \"CVV\", \"length\": 3}, found \(value.kindName)")
            return nil
        }
        var name: String?
        var length: Int?
        var side = "back"
        for member in members {
            switch member.key {
            case "name":
                if let text = string(member.value, "cvv.name") {
                    name = text.value
                    checkShown(text, "cvv.name")
                }
            case "length":
                if case .number(let text, let at) = member.value, let number = Int(text) {
                    if CardPolicy.securityCodeLengths.contains(number) {
                        length = number
                    } else {
                        fail(at, "cvv length \(number) must be \(Self.securityCodeLengthWords)")
                    }
                } else {
                    fail(
                        member.value.location,
                        "`cvv.length` must be \(Self.securityCodeLengthWords), found \(member.value.kindName)")
                }
            case "side":
                if let text = string(member.value, "cvv.side") {
                    if text.value == "back" || text.value == "front" {
                        side = text.value
                    } else {
                        fail(text.location, "`cvv.side` must be \"back\" or \"front\"")
                    }
                }
            default:
                var message = "unknown field `cvv.\(member.key.escapingControlCharacters)`"
                if let guess = closest(to: member.key, in: ["name", "length", "side"]) {
                    message += "; did you mean `\(guess)`?"
                }
                fail(member.keyLocation, message)
            }
        }
        if name == nil && !members.contains(where: { $0.key == "name" }) {
            fail(location, "missing required field `cvv.name`")
        }
        if length == nil && !members.contains(where: { $0.key == "length" }) {
            fail(location, "missing required field `cvv.length`")
        }
        guard let name, let length else { return nil }
        return .init(name: name, length: length, side: side)
    }

    /// More characters than a pattern may have digits. Bytes are counted first: a string of
    /// at most 19 bytes cannot hold more characters, and counting characters costs far more.
    static func isTooLong(_ text: String) -> Bool {
        text.utf8.count > maxPatternLength && text.count > maxPatternLength
    }

    func isValidID(_ id: String) -> Bool {
        guard let first = id.utf8.first, first != UInt8(ascii: "-") else { return false }
        return id.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "-") }
    }
}

extension CardCheck {
    /// Whether a line is a JSON record (its first byte that is not blank is `{`) rather than a
    /// plain one.
    @inline(__always)
    public static func isJSONRecord(_ line: Span<UInt8>) -> Bool {
        for i in line.indices where line[i] != UInt8(ascii: " ") && line[i] != UInt8(ascii: "\t") {
            return line[i] == UInt8(ascii: "{")
        }
        return false
    }

    /// Checks one line holding a JSON object as `cardline --print` writes it:
    /// `"number"` (a string), `"expiry"` (`{"month":12,"year":2030}` or a string like `"12/30"`)
    /// and `"cvv"` (a string), each but the number optional; other members are ignored. The
    /// fields are checked exactly as the plain record `NUMBER,EXPIRY,CVV` is. A line that is not
    /// such an object is a `record_format` record, and `problem` says why in words (never
    /// with any text of the line, which may hold a card).
    public func checkJSON(_ line: Span<UInt8>) -> (result: Result, problem: String?) {
        func malformed(_ why: String) -> (Result, String?) {
            var result = Result()
            result.add(.recordFormat)
            return (result, why)
        }
        let value: JSONValue
        var bytes: [UInt8] = []
        bytes.reserveCapacity(line.count)
        defer { for i in bytes.indices { bytes[i] = 0 } }  // (it holds the number and the code)
        for index in line.indices { bytes.append(line[index]) }  // (a JSON record is rare: no hot loop)
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            return malformed("not a JSON object: the JSON is malformed at column \(error.location.column)")
        }
        guard case .object(let members, _) = value else {
            return malformed("not a card record: the line is \(value.kindName), not a JSON object")
        }
        func member(_ key: String) -> JSONValue? { members.last { $0.key == key }?.value }
        // The record as plain text, NUMBER,EXPIRY,CVV, then checked as one; wiped after.
        var record: [UInt8] = []
        defer { for i in record.indices { record[i] = 0 } }
        guard case .string(let number, _)? = member("number") else {
            return malformed(
                member("number") == nil
                    ? "not a card record: no \"number\"" : "not a card record: \"number\" is not a string")
        }
        record += number.utf8
        var expiryText = ""
        switch member("expiry") {
        case nil, .null?: break
        case .string(let text, _)?: expiryText = text
        case .object(let parts, _)?:
            guard case .number(let month, _)? = parts.last(where: { $0.key == "month" })?.value,
                case .number(let year, _)? = parts.last(where: { $0.key == "year" })?.value
            else {
                return malformed("not a card record: \"expiry\" needs a \"month\" and a \"year\" number")
            }
            expiryText = (month.count == 1 ? "0" + month : month) + "/" + year
        case let other?:
            return malformed("not a card record: \"expiry\" is \(other.kindName), not an object or a string")
        }
        var code: String?
        switch member("cvv") {
        case nil, .null?: break
        case .string(let text, _)?: code = text
        case let other?: return malformed("not a card record: \"cvv\" is \(other.kindName), not a string")
        }
        if code != nil || !expiryText.isEmpty {
            record.append(UInt8(ascii: ","))
            record += expiryText.utf8
        }
        if let code {
            record.append(UInt8(ascii: ","))
            record += code.utf8
        }
        // A comma or line break inside a field would move the fields apart.
        let fields = [number, expiryText, code ?? ""]
        if fields.contains(where: { $0.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\n") } }) {
            return malformed("not a card record: a field holds a comma or a line break")
        }
        let result = check(record.span)
        return (result, nil)
    }
}

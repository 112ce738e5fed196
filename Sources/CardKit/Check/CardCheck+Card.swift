extension CardCheck {
    /// The whole card of a record `check` (or `checkJSON`) found valid, for sealing it
    /// (`cardline check --encrypt-to`): nil when `result` is not valid or has no expiry. The
    /// caller wipes it (`PaymentCard.wipe()`) once used.
    ///
    /// The number, networks and expiry are the checker's own (`result`). The security code is
    /// taken from the record, relying on the checker's verdict on it: in a valid record the code
    /// is the third comma field, or (a record without commas) the word after the expiry, the
    /// first word holding a `/`; in a JSON record, `"cvv"`. No code: an empty one.
    public func card(of result: Result, line: Span<UInt8>) -> PaymentCard? {
        guard result.valid, let expiry = result.expiry, result.networkIndex >= 0 else { return nil }
        var number = result.digits
        defer { number.overwriteAndEmpty() }
        var code = Self.isJSONRecord(line) ? Self.jsonCode(line) : Self.plainCode(line)
        defer { code.overwriteAndEmpty() }
        let record = records[Int(result.record)]
        return PaymentCard(
            network: rules.networks[Int(record.network)], numberDigits: number, expiry: expiry,
            securityCodeDigits: code, alsoNetworks: record.also)
    }

    /// The digits of a valid plain record's code field (see `card(of:line:)`).
    private static func plainCode(_ line: Span<UInt8>) -> [UInt8] {
        var commas = 0
        var start = line.count
        var end = line.count
        for i in line.indices where line[i] == UInt8(ascii: ",") {
            commas += 1
            if commas == 2 { start = i + 1 }
        }
        if commas == 0 {
            // Words apart by whitespace: the one after the first word with a `/`.
            var i = 0
            var sawExpiry = false
            while i < line.count {
                while i < line.count && isBlank(line[i]) { i += 1 }
                let wordStart = i
                var slash = false
                while i < line.count && !isBlank(line[i]) {
                    if line[i] == UInt8(ascii: "/") { slash = true }
                    i += 1
                }
                if sawExpiry {
                    (start, end) = (wordStart, i)
                    break
                }
                sawExpiry = slash
            }
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(4)
        for i in start..<end where line[i] &- 48 < 10 { digits.append(line[i] - 48) }
        return digits
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// The digits of a valid JSON record's `"cvv"`.
    private static func jsonCode(_ line: Span<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(line.count)
        for index in line.indices { bytes.append(line[index]) }
        defer { bytes.overwriteAndEmpty() }
        guard case .object(let members, _)? = try? JSONValue.parse(bytes),
            case .string(let code, _)? = members.last(where: { $0.key == "cvv" })?.value
        else { return [] }
        return code.utf8.filter { $0 &- 48 < 10 }.map { $0 - 48 }
    }
}

/// The card record: a card as programs read it, in JSON, written here and nowhere else (issue
/// 38). `--print`, `--print-fd`, the library's JSON calls, the clear members beside an
/// encrypted card (`PaymentCard.appendJSONMembers`), `check`'s records (`CardCheck.appendJSON`)
/// and `replay --json` all write their cards through `appendMembers`, so the same card has the
/// same members with the same values wherever it comes out. Members, in this order:
/// `network`, `network_name`, `family`, `also_networks` (always, `[]` for one network),
/// `number` (full, only where the caller asked for it), `masked` (`*`), `last4`, `expiry`
/// (`{"month":12,"year":2030}`), `cvv` (only where asked), `entry`, `chip`, `pan_sequence`, `holder_name`,
/// `postal_code`; members that do not apply are left out. `schema/card.schema.json` describes
/// them.
public enum CardRecord {
    /// `"network":"visa","network_name":"Visa","family":"visa","also_networks":["dankort"]`: the
    /// members that name a card's networks, the first of `appendMembers`. Made once per network
    /// (and co-badged pair) by a caller that writes many records (`check`).
    public static func networkMembers(_ network: CardNetwork, also: [CardNetwork]) -> [UInt8] {
        var out: [UInt8] = []
        out += #""network":"#.utf8
        out += network.id.jsonQuoted.utf8
        out += #","network_name":"#.utf8
        out += network.name.jsonQuoted.utf8
        out += #","family":"#.utf8
        out += network.family.jsonQuoted.utf8
        out += #","also_networks":["#.utf8
        for (index, other) in also.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += other.id.jsonQuoted.utf8
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// What of the number `appendMembers` writes.
    public enum Number: Sendable {
        /// `number`, `masked` and `last4`.
        case full
        /// `masked` and `last4`.
        case masked
        /// `last4` alone (beside an encrypted card).
        case lastFour
    }

    /// Appends a card's members, comma-separated, without braces; with `comma`, a comma before
    /// the first. `networks` is `networkMembers`' (nil: no network known, `check`'s record of a
    /// number no network has); `digits` the number's (each 0–9; nil: a security code alone);
    /// `code` the security code's (written only when given). The fixed parts are copied whole
    /// into the array and only the digits written one by one, into room made for them
    /// (`check` writes millions of records).
    public static func appendMembers(
        networks: [UInt8]?, digits: Span<UInt8>?, number: Number, expiry: YearMonth?,
        code: [UInt8]? = nil, entry: PaymentCard.Entry? = nil, chip: Bool? = nil, panSequence: Int? = nil,
        holderName: String? = nil, postalCode: String? = nil, comma: Bool = false, to out: inout [UInt8]
    ) {
        var separator = comma
        if let networks {
            out.appendMember("", after: &separator)
            out += networks
        }
        if let digits {
            // Masked with `*` as `CardPolicy.shownDigits` says (`CardNumber.masked`'s policy).
            let shown = CardPolicy.shownDigits(count: digits.count)
            if number == .full {
                out.appendMember(#""number":""#, after: &separator)
                out.append(addingCapacity: digits.count + 1) { out in
                    for index in digits.indices { out.append(digits[index] &+ 48) }
                    out.append(UInt8(ascii: "\""))
                }
            }
            if number != .lastFour {
                out.appendMember(#""masked":""#, after: &separator)
                out.append(addingCapacity: digits.count + 1) { out in
                    for index in digits.indices {
                        out.append(shown.shows(index) ? digits[index] &+ 48 : UInt8(ascii: "*"))
                    }
                    out.append(UInt8(ascii: "\""))
                }
            }
            out.appendMember(#""last4":""#, after: &separator)
            out.append(addingCapacity: shown.last + 1) { out in
                for index in (digits.count - shown.last)..<digits.count { out.append(digits[index] &+ 48) }
                out.append(UInt8(ascii: "\""))
            }
        }
        if let expiry {
            out.appendMember(#""expiry":{"month":"#, after: &separator)
            out.writeDecimal(expiry.month)
            out.append(#","year":"#)
            out.writeDecimal(expiry.year)
            out.append(UInt8(ascii: "}"))
        }
        if let code {
            out.appendMember(#""cvv":""#, after: &separator)
            for digit in code { out.append(digit &+ 48) }
            out.append(UInt8(ascii: "\""))
        }
        if let entry {
            out.appendMember(#""entry":""#, after: &separator)
            out += entry.rawValue.utf8
            out.append(UInt8(ascii: "\""))
            if let chip { out.append(chip ? #","chip":true"# : #","chip":false"#) }
            if let panSequence {
                out.append(#","pan_sequence":"#)
                out.writeDecimal(panSequence)
            }
        }
        if let holderName {
            out.appendMember(#""holder_name":"#, after: &separator)
            out += holderName.jsonQuoted.utf8
        }
        if let postalCode {
            out.appendMember(#""postal_code":"#, after: &separator)
            out += postalCode.jsonQuoted.utf8
        }
    }
}

extension [UInt8] {
    /// Appends a member's name (`"cvv":`, with what opens its value), after a comma when one is
    /// due (`separator`: false before the first member).
    @inline(__always) mutating func appendMember(_ name: StaticString, after separator: inout Bool) {
        if separator { append(UInt8(ascii: ",")) }
        separator = true
        append(name)
    }
}

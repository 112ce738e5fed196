/// Which fields the entry engine asks for: the card's number, expiry and security code, and
/// when asked the cardholder's name (`--name`) and a postal code (`--postal-code COUNTRY`); or
/// only the security code of a card already on file (`--cvv-only --network ID`). The order is
/// always number → expiry → security code → name → postal code, each only when asked for.
public struct EntryForm: Sendable, Equatable {
    /// Whether the cardholder's name is asked for, after the security code.
    public var asksName: Bool
    /// The postal code's format when a postal code is asked for, last.
    public var postalCode: PostalCodeFormat?
    /// The network of a card on file whose security code alone is asked for (`--cvv-only`);
    /// nil for a whole card.
    public var securityCodeOnly: CardNetwork?

    /// A form; with no arguments, the card alone (number, expiry, code).
    public init(asksName: Bool = false, postalCode: PostalCodeFormat? = nil, securityCodeOnly: CardNetwork? = nil) {
        self.asksName = asksName
        self.postalCode = postalCode
        self.securityCodeOnly = securityCodeOnly
    }

    public static func == (a: EntryForm, b: EntryForm) -> Bool {
        a.asksName == b.asksName && a.postalCode == b.postalCode && a.securityCodeOnly === b.securityCodeOnly
    }

    /// The fields asked for, in entry order.
    public var fields: [Field] {
        var fields: [Field] = securityCodeOnly == nil ? [.number, .expiry, .cvv] : [.cvv]
        if asksName { fields.append(.name) }
        if postalCode != nil { fields.append(.postalCode) }
        return fields
    }

    /// Whether `field` is asked for.
    public func asks(_ field: Field) -> Bool {
        switch field {
        case .number, .expiry: return securityCodeOnly == nil
        case .cvv: return true
        case .name: return asksName
        case .postalCode: return postalCode != nil
        }
    }

    /// The field asked for after `field`, or nil after the last.
    public func field(after field: Field) -> Field? { Field.allCases.first { $0 > field && asks($0) } }

    /// The field asked for before `field`, or nil before the first.
    public func field(before field: Field) -> Field? { Field.allCases.last { $0 < field && asks($0) } }

    /// The first field asked for.
    public var firstField: Field { securityCodeOnly == nil ? .number : .cvv }
}

/// The cardholder's name as printed on a card: letters (any script), spaces, `'`, `-` and `.`,
/// at most 26 characters, a letter carrying at most three marks. The one home of that rule:
/// engine, piped lines and replay ask it. A name is not card data, but it is never kept for
/// recall or written to a history file.
public enum HolderName {
    /// The most characters a name on a card has (`length(of:)`).
    public static let maxLength = 26

    /// The most marks (accents, vowel signs, a virama: Unicode's combining marks) one letter of
    /// a name carries in a row. Vietnamese writes two on one letter (`ệ` decomposed), Thai a
    /// vowel and a tone mark; a letter typed with thousands of accents is still one character,
    /// and is refused.
    public static let maxMarksPerLetter = 3

    /// How long `name` is against `maxLength`: its characters, a mark counting with the letter
    /// it sits on, every other scalar as one (a Devanagari conjunct counts its consonants,
    /// Hangul typed as jamo each jamo). With `maxMarksPerLetter`, no name within the limit
    /// holds more than 26 × 4 Unicode scalars, whatever it is typed with.
    public static func length(of name: some StringProtocol) -> Int {
        var count = 0
        for scalar in name.unicodeScalars where !isMark(scalar) { count += 1 }
        return count
    }

    /// Why `character` cannot follow `name`, or nil when it can. A space at the start or
    /// after another space is not refused but skipped (`skips`).
    public static func refusal(of character: Character, after name: String, _ messages: MessageCatalog = .english)
        -> String?
    {
        let taken = length(of: name)
        if taken >= maxLength { return messages.text(.nameTooLong, ("count", String(maxLength))) }
        // Said before the character is quoted in a reason: it may hold thousands of marks.
        var marks = 0
        for scalar in character.unicodeScalars {
            marks = isMark(scalar) ? marks + 1 : 0
            if marks > maxMarksPerLetter { return messages.text(.nameMarks, ("count", String(maxMarksPerLetter))) }
        }
        if taken + length(of: String(character)) > maxLength {
            return messages.text(.nameTooLong, ("count", String(maxLength)))
        }
        if isAllowed(character) { return nil }
        if character.isNumber { return messages.text(.nameDigit) }
        return messages.text(.nameCharacter, ("character", quoted(character)))
    }

    /// Whether `character` may be in a name.
    static func isAllowed(_ character: Character) -> Bool {
        if character == " " || character == "'" || character == "-" || character == "." { return true }
        // A letter, and nothing invisible or acting on the terminal inside its cluster.
        guard character.isLetter else { return false }
        return character.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                return false
            default: return true
            }
        }
    }

    /// Whether `scalar` is a combining mark: it sits on the character before it.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// True for a space that is not kept: at the start of the name or after another space.
    public static func skips(_ character: Character, after name: String) -> Bool {
        character == " " && (name.isEmpty || name.last == " ")
    }

    /// The name as delivered: without a space at its end.
    public static func finished(_ name: String) -> String {
        var name = name
        while name.last == " " { name.removeLast() }
        return name
    }

    /// Why `name` cannot be delivered, or nil.
    public static func problem(_ name: String, _ messages: MessageCatalog = .english) -> String? {
        let name = finished(name)
        if name.isEmpty { return messages.text(.nameEmpty) }
        if !name.contains(where: \.isLetter) { return messages.text(.nameNoLetter) }
        return nil
    }
}

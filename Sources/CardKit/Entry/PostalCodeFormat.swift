/// One country's postal-code formats (`--postal-code GB`), read from the bundled data file
/// `data/postal-codes.json` (`PostalCodeFormats`): the one home of what the postal-code field
/// takes and how it shows it while it is typed. The words for it (the country's name, the
/// field's label, an example) are the message catalogs' (`name(_:)`, `label(_:)`, `example(_:)`).
///
/// A pattern is written with `9` for a digit, `A` for a letter, and a space or `-` that is put
/// in for the person (`AA9A 9AA`, `99999-9999`). The field keeps only the letters (made
/// uppercase) and digits typed, its `raw` value; the separators are the format's.
public struct PostalCodeFormat: Sendable, Equatable {
    /// The country's ISO 3166 code, uppercase: `GB`.
    public let country: String
    /// The patterns, as written in the data file.
    public let patterns: [String]

    /// A pattern's slots: what each typed character must be, and the separator put before it.
    struct Slot: Equatable, Sendable {
        var digit: Bool
        /// The separator written before this slot's character (`" "`, `"-"`), or nil.
        var separator: UInt8?
    }

    /// `patterns`, as slots.
    let slots: [[Slot]]

    init(country: String, patterns: [String]) {
        self.country = country
        self.patterns = patterns
        slots = patterns.map { pattern in
            var slots: [Slot] = []
            var pending: UInt8?
            for byte in pattern.utf8 {
                switch byte {
                case UInt8(ascii: "9"), UInt8(ascii: "A"):
                    slots.append(Slot(digit: byte == UInt8(ascii: "9"), separator: pending))
                    pending = nil
                default: pending = byte
                }
            }
            return slots
        }
    }

    /// The raw character a typed character stands for: a digit, or an ASCII letter made
    /// uppercase; nil for anything else (a separator, a symbol, a non-ASCII letter).
    public static func rawCharacter(_ character: Character) -> UInt8? {
        guard let byte = character.singleASCIIByte else { return nil }
        if byte &- 48 < 10 { return byte }
        if byte &- 65 < 26 { return byte }
        if byte &- 97 < 26 { return byte - 32 }
        return nil
    }

    private static func fits(_ raw: [UInt8], _ slots: [Slot], whole: Bool) -> Bool {
        guard raw.count <= slots.count, !whole || raw.count == slots.count else { return false }
        for (byte, slot) in zip(raw, slots) where (byte &- 48 < 10) != slot.digit { return false }
        return true
    }

    /// Whether `raw` is the start of a code of some pattern (or a whole one).
    public func canBegin(_ raw: [UInt8]) -> Bool { slots.contains { Self.fits(raw, $0, whole: false) } }

    /// Whether `raw` is a whole code of some pattern.
    public func isComplete(_ raw: [UInt8]) -> Bool { slots.contains { Self.fits(raw, $0, whole: true) } }

    /// The most characters a code has.
    public var longest: Int { slots.map(\.count).max() ?? 0 }

    /// `raw` as shown and delivered: with the separators of the patterns it can belong to,
    /// when they agree (`SW1A1` → `SW1A 1`; `SW1` could be `SW1 …` or `SW1A …`, so no space
    /// yet); a separator is shown only before a character typed after it.
    public func formatted(_ raw: [UInt8]) -> String {
        var shown: [UInt8]?
        for pattern in slots where Self.fits(raw, pattern, whole: false) {
            var bytes: [UInt8] = []
            for (byte, slot) in zip(raw, pattern) {
                if let separator = slot.separator { bytes.append(separator) }
                bytes.append(byte)
            }
            if let earlier = shown, earlier != bytes { return String(decoding: raw, as: UTF8.self) }
            shown = bytes
        }
        return String(decoding: shown ?? raw, as: UTF8.self)
    }

    /// The country's name (`postal.GB.name`: `United Kingdom`, `Royaume-Uni`), the field's label
    /// (`postal.GB.label`: `Postcode`, `Code postal`) and a valid code written as the patterns
    /// write it (`postal.GB.example`: `SW1A 1AA`), in `messages`'s language; a country the
    /// catalogs do not know is named by its code, labelled `label.postal-code`, with no example.
    public func name(_ messages: MessageCatalog) -> String { word("name", messages) ?? country }
    public func label(_ messages: MessageCatalog) -> String {
        word("label", messages) ?? messages.text(.labelPostalCode)
    }
    public func example(_ messages: MessageCatalog) -> String { word("example", messages) ?? "" }

    /// The label inside a sentence: lowercased first (`postcode`) where the catalog's own
    /// `field.postal-code` is (`postal code`; German's `Postleitzahl` is not).
    public func fieldName(_ messages: MessageCatalog) -> String {
        messages.text(.fieldPostalCode).first?.isUppercase == true ? label(messages) : label(messages).lowercasedFirst
    }

    private func word(_ part: String, _ messages: MessageCatalog) -> String? {
        MessageID(rawValue: "postal.\(country).\(part)").map { messages.text($0) }
    }

    /// Why `raw` is not a complete code, in words; nil when it is one.
    public func problem(_ raw: [UInt8], _ messages: MessageCatalog = .english) -> String? {
        if raw.isEmpty { return messages.text(.fieldEmpty, ("field", fieldName(messages))) }
        if isComplete(raw) { return nil }
        return messages.text(
            .postalLooksLike, ("country", name(messages)), ("label", fieldName(messages)),
            ("example", example(messages)), ("typed", formatted(raw)))
    }
}

/// Every postal-code format known: the bundled data file (`bundled`), or another read with
/// `parse(_:file:)`, whose problems are located (`file:line:column: error: …`).
public struct PostalCodeFormats: Sendable {
    /// The formats, in the data file's order.
    public let formats: [PostalCodeFormat]

    /// The country codes, in the file's order: `US, CA, GB, …`.
    public var countries: [String] { formats.map(\.country) }

    /// Said for a country with no format: `unknown country `XX` for a postal code (known: US, CA, …)`.
    public func unknownCountryMessage(_ country: String) -> String {
        "unknown country `\(country.escapingControlCharacters)` for a postal code (known: \(countries.joined(separator: ", ")))"
    }

    /// The format of `country` (any case: `gb`, `GB`), or nil.
    public func format(for country: String) -> PostalCodeFormat? {
        let wanted = country.uppercased()
        return formats.first { $0.country == wanted }
    }

    /// The formats compiled in from `data/postal-codes.json` (`BundledPostalCodes.swift`,
    /// made by `make rules`; `PostalCodeFormatTests` holds it to the file).
    public static let bundled: PostalCodeFormats = {
        let text = PostalCodeFormats.bundledText
        // unsafe: the compiled-in text's bytes copied out in one go, once.
        let bytes = text.withUTF8Buffer { Array($0) }
        do throws(RuleErrors) {
            return try parse(bytes, file: "data/postal-codes.json")
        } catch {
            preconditionFailure("the bundled postal-code formats are broken: \(error.description)")
        }
    }()

    /// Reads a postal-code data file: `{"formats": [{"country", "patterns"}, …]}`
    /// (and an optional `about` text). Every problem is reported with its place.
    public static func parse(_ bytes: [UInt8], file: String) throws(RuleErrors) -> PostalCodeFormats {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw RuleErrors(errors: [RuleError(file: file, location: error.location, message: error.message)])
        }
        var errors: [RuleError] = []
        func fail(_ location: SourceLocation, _ message: String) {
            errors.append(RuleError(file: file, location: location, message: message))
        }
        guard case .object(let members, let at) = document else {
            throw RuleErrors(errors: [
                RuleError(
                    file: file, location: document.location,
                    message: "the file must be an object with \"formats\"; got \(document.kindName)")
            ])
        }
        var formats: [PostalCodeFormat] = []
        var sawFormats = false
        for member in members {
            switch member.key {
            case "about":
                if case .string = member.value {
                } else {
                    fail(member.value.location, "\"about\" must be a string; got \(member.value.kindName)")
                }
            case "formats":
                sawFormats = true
                guard case .array(let entries, _) = member.value else {
                    fail(member.value.location, "\"formats\" must be an array of objects; got \(member.value.kindName)")
                    continue
                }
                for entry in entries {
                    if let format = readFormat(entry, fail: fail) {
                        if formats.contains(where: { $0.country == format.country }) {
                            fail(entry.location, "country \(format.country) is given twice")
                        } else {
                            formats.append(format)
                        }
                    }
                }
            default:
                fail(
                    member.keyLocation,
                    "unknown key \"\(member.key.escapingControlCharacters)\" (known: about, formats)")
            }
        }
        if !sawFormats { fail(at, "missing \"formats\"") }
        guard errors.isEmpty else { throw RuleErrors(errors: errors) }
        return PostalCodeFormats(formats: formats)
    }

    private static func readFormat(_ entry: JSONValue, fail: (SourceLocation, String) -> Void) -> PostalCodeFormat? {
        guard case .object(let members, let at) = entry else {
            fail(entry.location, "a format must be an object; got \(entry.kindName)")
            return nil
        }
        var country: String?
        var patterns: [String]?
        var ok = true
        for member in members {
            switch member.key {
            case "country":
                guard case .string(let text, _) = member.value else {
                    fail(member.value.location, "\"\(member.key)\" must be a string; got \(member.value.kindName)")
                    ok = false
                    continue
                }
                if text.utf8.count != 2 || !text.utf8.allSatisfy({ $0 &- 65 < 26 }) {
                    fail(
                        member.value.location,
                        "\"country\" must be two capital letters (ISO 3166), like \"GB\"; got \"\(text.escapingControlCharacters)\""
                    )
                    ok = false
                }
                country = text
            case "patterns":
                guard case .array(let items, let listAt) = member.value, !items.isEmpty else {
                    fail(member.value.location, "\"patterns\" must be a non-empty array of strings like \"A9A 9A9\"")
                    ok = false
                    continue
                }
                _ = listAt
                var read: [String] = []
                for item in items {
                    guard case .string(let pattern, let patternAt) = item else {
                        fail(item.location, "a pattern must be a string; got \(item.kindName)")
                        ok = false
                        continue
                    }
                    if let problem = patternProblem(pattern) {
                        fail(patternAt, problem)
                        ok = false
                    } else {
                        read.append(pattern)
                    }
                }
                patterns = read
            default:
                fail(
                    member.keyLocation,
                    "unknown key \"\(member.key.escapingControlCharacters)\" (known: country, patterns; the words are the message catalogs')"
                )
                ok = false
            }
        }
        if country == nil {
            fail(at, "missing \"country\"")
            ok = false
        }
        if patterns == nil {
            fail(at, "missing \"patterns\"")
            ok = false
        }
        guard ok, let patterns, let country else { return nil }
        return PostalCodeFormat(country: country, patterns: patterns)
    }

    /// What is wrong with a pattern: only `9`, `A`, one space or `-` between them.
    static func patternProblem(_ pattern: String) -> String? {
        let bytes = Array(pattern.utf8)
        let isSlot = { (byte: UInt8) in byte == UInt8(ascii: "9") || byte == UInt8(ascii: "A") }
        guard !bytes.isEmpty, bytes.count <= 16 else { return "a pattern has 1 to 16 characters" }
        for (index, byte) in bytes.enumerated() where !isSlot(byte) {
            guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") else {
                return
                    "a pattern holds 9 (a digit), A (a letter), a space or -; got \"\(pattern.escapingControlCharacters)\""
            }
            guard index > 0, index < bytes.count - 1, isSlot(bytes[index - 1]), isSlot(bytes[index + 1]) else {
                return
                    "a space or - in a pattern goes between a 9 or A and another; got \"\(pattern.escapingControlCharacters)\""
            }
        }
        return nil
    }
}

extension String {
    /// The text with its first letter lowercase: `Postcode` → `postcode` (`ZIP code` stays).
    var lowercasedFirst: String {
        guard let first, first.isUppercase, dropFirst().first?.isUppercase != true else { return self }
        return first.lowercased() + dropFirst()
    }
}

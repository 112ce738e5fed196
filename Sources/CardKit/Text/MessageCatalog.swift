/// The words the prompt shows, in one language: every label, hint, help line and message by
/// its `MessageID`. English is built in (`messages/en.json`, compiled in); another language's
/// catalog (a bundled one, a user's file, a library caller's texts) words what it has and
/// falls back to English id by id. Pure: the front end reads the files and the environment
/// and hands the engine a catalog (`EntryEngine.messages`).
///
/// A text may hold placeholders, `{count}`, `{network}`, filled by the code that shows it; a
/// translation may leave one out, never add one English's text lacks (`lint` refuses it).
public struct MessageCatalog: Sendable {
    /// One reference to share: an engine holding a catalog grows by a pointer.
    private final class Storage: Sendable {
        let language: String
        /// Every id's text, English where the catalog has none, by id.
        let texts: [String: String]
        /// The same texts in `MessageID.allCases` order, where `text(_:)` reads them, and
        /// their UTF-8 bytes, which `write` fills.
        let byIndex: [String]
        let bytesByIndex: [[UInt8]]
        /// The labels and hint read on every key, looked up once.
        let numberLabel: String, expiryLabel: String, expiryHint: String
        /// The valid number's note (`progress.valid`, "({count} valid)") around its count:
        /// the bytes before `{count}` and after it (`after` is nil when the text has no count).
        let validNoteBefore: [UInt8], validNoteAfter: [UInt8]?
        init(language: String, texts: [String: String]) {
            self.language = language
            self.texts = texts
            byIndex = MessageID.allCases.map { texts[$0.rawValue] ?? "" }
            bytesByIndex = byIndex.map { Array($0.utf8) }
            numberLabel = texts[MessageID.labelNumber.rawValue] ?? ""
            expiryLabel = texts[MessageID.labelExpiry.rawValue] ?? ""
            expiryHint = texts[MessageID.hintExpiry.rawValue] ?? ""
            let note = Array((texts[MessageID.progressValid.rawValue] ?? "").utf8)
            let placeholder = Array("{count}".utf8)
            if let at = note.indices.first(where: { note[$0...].starts(with: placeholder) }) {
                validNoteBefore = Array(note[..<at])
                validNoteAfter = Array(note[(at + placeholder.count)...])
            } else {
                (validNoteBefore, validNoteAfter) = (note, nil)
            }
        }
    }
    private let storage: Storage

    /// The catalog's language code (`en`, `fr`, `de`, `es`, or a user's own).
    public var language: String { storage.language }

    /// The catalog of `language`: `texts` over the bundled catalog of that language (if any)
    /// over English. An id that is not a `MessageID` is ignored. A text holding a control or
    /// bidirectional character is shown with it escaped (`shown(_:)`).
    public init(language: String, texts: [String: String] = [:]) {
        var merged = Self.bundledTexts["en"] ?? [:]
        if language != "en", let bundled = Self.bundledTexts[language] { merged.merge(bundled) { $1 } }
        for (id, text) in texts where merged[id] != nil { merged[id] = Self.shown(text) }
        storage = Storage(language: language, texts: merged)
    }

    /// A text from outside (a catalog file, a caller) as it may be shown: with any control or
    /// bidirectional character escaped (`escapingControlCharacters`), since it would act on
    /// the terminal or reorder what follows; unchanged (not even masked) when it holds none.
    static func shown(_ text: String) -> String {
        text.unicodeScalars.contains(where: isControl) ? text.escapingControlCharacters : text
    }

    /// English, as built in.
    public static let english = MessageCatalog(language: "en")

    /// The languages compiled in, sorted (`de`, `en`, `es`, `fr`).
    public static var bundledLanguages: [String] { bundledTexts.keys.sorted() }

    /// This catalog with `texts` (by id) in place of its own: a library caller's title,
    /// labels and messages over the catalog's. A text holding a control character is shown
    /// with it escaped (it would act on the terminal).
    public func overriding(_ texts: [String: String]) -> MessageCatalog {
        guard !texts.isEmpty else { return self }
        var merged = storage.texts
        for (id, text) in texts where merged[id] != nil { merged[id] = Self.shown(text) }
        return MessageCatalog(storage: Storage(language: language, texts: merged))
    }

    private init(storage: Storage) { self.storage = storage }

    /// Whether `other` is this very catalog (the same texts, overrides included), not just
    /// one of the same language.
    func isSame(as other: MessageCatalog) -> Bool { storage === other.storage }

    /// The label of the number field ("Card number"), of the expiry ("Expiry"), and the
    /// expiry's format hint ("MM/YY"): shown on every key, so looked up once.
    public var numberLabel: String { storage.numberLabel }
    public var expiryLabel: String { storage.expiryLabel }
    public var expiryHint: String { storage.expiryHint }

    /// Writes the note after a number's progress when the digits typed already make a valid
    /// number (`progress.valid`: "(13 valid)", "(13 valides)"), its `{count}` filled with `count`.
    /// (The view writes it on the digits that make such a number, so it is not made from the
    /// text each time.)
    func writeValidNote<Sink: ByteSink>(_ count: Int, into sink: inout Sink) {
        for byte in storage.validNoteBefore { sink.write(byte) }
        guard let after = storage.validNoteAfter else { return }
        sink.writeDecimal(count)
        for byte in after { sink.write(byte) }
    }

    /// The bytes `writeValidNote(count, into:)` writes.
    func validNoteLength(_ count: Int) -> Int {
        storage.validNoteBefore.count + (storage.validNoteAfter.map { count.decimalWidth + $0.count } ?? 0)
    }

    /// The text of `id`, its placeholders as written.
    public func text(_ id: MessageID) -> String { storage.byIndex[id.index] }

    /// The text of `id`, each `{name}` filled with its value (a placeholder without a value is
    /// left as written; a value is never read for placeholders).
    public func text(_ id: MessageID, _ values: (String, String)...) -> String {
        Self.fill(text(id), values)
    }

    /// `template` with each `{name}` replaced by the value given for it (a placeholder without
    /// a value is left as written).
    static func fill(_ template: String, _ values: [(String, String)]) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var result: [UInt8] = []
        result.reserveCapacity(template.utf8.count + 32)
        fill(Array(template.utf8), into: &result) { name, bytes in
            guard let value = values.first(where: { equal($0.0, name) })?.1 else { return false }
            bytes.appendUTF8(value)
            return true
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Writes `id`'s text with its placeholders filled from `arguments` (`Message`'s words,
    /// made where they are shown).
    func write(_ id: MessageID, _ arguments: [(String, Message.Value)], to bytes: inout [UInt8]) {
        Self.fill(storage.bytesByIndex[id.index], into: &bytes) { name, bytes in
            guard let argument = arguments.first(where: { Self.equal($0.0, name) }) else { return false }
            switch argument.1 {
            case .text(let text): bytes.appendUTF8(text)
            case .number(let number): bytes.appendDecimal(number)
            case .word(let id): bytes.appendUTF8(text(id))
            case .list(let items, let word): bytes.appendUTF8(listing(items, joinedBy: text(word)))
            }
            return true
        }
    }

    /// Writes `template` (UTF-8), each `{name}` by `value` (which writes the name's value and
    /// returns true, or returns false for a name it has no value for: the placeholder stays as
    /// written). A brace is never part of another character's bytes.
    private static func fill(
        _ template: [UInt8], into result: inout [UInt8], value: (ArraySlice<UInt8>, inout [UInt8]) -> Bool
    ) {
        var start = 0
        var index = 0
        while let open = template[index...].firstIndex(of: UInt8(ascii: "{")) {
            guard let close = template[open...].firstIndex(of: UInt8(ascii: "}")) else { break }
            result.append(contentsOf: template[start..<open])
            if value(template[(open + 1)..<close], &result) {
                start = close + 1
            } else {
                result.append(UInt8(ascii: "{"))
                start = open + 1
            }
            index = start
        }
        result.append(contentsOf: template[start...])
    }

    /// Whether `name` has the bytes `bytes` has. (Compared through spans: `elementsEqual`
    /// over the string's UTF-8 view cost a couple of hundred instructions a placeholder.)
    private static func equal(_ name: String, _ bytes: ArraySlice<UInt8>) -> Bool {
        let name = name.utf8.span
        let bytes = bytes.span
        guard name.count == bytes.count else { return false }
        for index in name.indices where name[index] != bytes[index] { return false }
        return true
    }

    /// Said when the prompt ends because no key came for `milliseconds` (the idle timeout):
    /// "Timed out: no key for 2.5 seconds; the card being entered was wiped".
    public func timedOut(milliseconds: Int64) -> String {
        let seconds = Double(milliseconds) / 1000
        guard seconds != 1 else { return text(.promptTimedOutOne) }
        return text(.promptTimedOut, ("seconds", seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"))
    }

    /// Items as a list with the catalog's "or": `16`, `16 or 19`, `12, 13 or 19`.
    public func orList(_ items: [String]) -> String {
        listing(items, joinedBy: text(.listOr))
    }

    /// A character that acts on a terminal, breaks a line or reorders what follows (a
    /// bidirectional control: `Unicode.Scalar.isControl`, the escaping's own test) rather than
    /// showing.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isControl || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// The placeholders a text holds (`{count}`), in order.
    public static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty && name.allSatisfy({ ("a"..."z").contains($0) || $0 == "-" }) {
                names.append(String(name))
            }
            rest = rest[rest.index(after: open)...]
        }
        return names
    }
}

// MARK: - The language

extension MessageCatalog {
    /// The language to speak: the first of `locale` (`--locale`), `LC_ALL`, `LC_MESSAGES`,
    /// `LANG` and `LANGUAGE` (a colon-separated list: its first entry) that is set and not
    /// empty, as its language code (`fr_FR.UTF-8@euro` → `fr`); `C` and `POSIX` are English,
    /// and so is nothing set. The code may name a language no catalog has: the loader then
    /// speaks English, without a warning. Read from the variables, not from the C library's
    /// locale (a desk's `fr_FR.UTF-8` need not be installed).
    public static func languageCode(locale: String?, environment: (String) -> String?) -> String {
        let candidates = [
            locale, environment("LC_ALL"), environment("LC_MESSAGES"), environment("LANG"),
            environment("LANGUAGE").map { String($0.split(separator: ":").first ?? "") },
        ]
        guard let name = candidates.lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) else { return "en" }
        return languageCode(of: name)
    }

    /// The language code of a locale name: `fr_FR.UTF-8` → `fr`, `de-CH` → `de`, `C` → `en`;
    /// anything that is not two or three ASCII letters → `en`.
    public static func languageCode(of name: String) -> String {
        let code = name.prefix { $0 != "_" && $0 != "." && $0 != "@" && $0 != "-" }.lowercased()
        guard (2...3).contains(code.count), code.allSatisfy({ ("a"..."z").contains($0) }) else { return "en" }
        return code
    }
}

// MARK: - Catalog files

extension MessageCatalog {
    /// A catalog file read and checked: its language (when it names one), its texts by id,
    /// and every problem with its line and column (errors refuse the file; warnings do not).
    public struct FileContents: Sendable {
        public var language: String?
        public var texts: [String: String] = [:]
        public var problems: [RuleError] = []
        /// Whether any problem is an error.
        public var isRefused: Bool { problems.contains { $0.severity == .error } }
    }

    /// Reads a catalog file (`{"language": "fr", "messages": {"label.number": "…", …}}`),
    /// naming it `file` in its problems: not JSON, not an object, a text that is not a string
    /// or holds a control character (bidirectional controls too), an id given twice, a
    /// placeholder English's text lacks (errors); an unknown id or member (warnings, ignored).
    public static func read(_ bytes: [UInt8], file: String) -> FileContents {
        var contents = FileContents()
        func problem(_ location: SourceLocation, _ message: String, _ severity: RuleError.Severity = .error) {
            contents.problems.append(RuleError(file: file, location: location, severity: severity, message: message))
        }
        let document: JSONValue
        do throws(JSONSyntaxError) {
            document = try JSONValue.parse(bytes)
        } catch {
            problem(error.location, error.message)
            return contents
        }
        guard case .object(let members, let start) = document else {
            problem(
                document.location,
                "a message catalog is an object, {\"language\": …, \"messages\": {…}}, not \(document.kindName)")
            return contents
        }
        var sawMessages = false
        for member in members {
            switch member.key {
            case "language":
                guard case .string(let language, _) = member.value else {
                    problem(
                        member.value.location,
                        "\"language\" is a language code like \"fr\", not \(member.value.kindName)")
                    continue
                }
                contents.language = language
            case "messages":
                sawMessages = true
                readTexts(member.value, into: &contents, file: file)
            case "$comment", "$schema":
                continue
            default:
                problem(
                    member.keyLocation,
                    "unknown member \"\(member.key.escapingControlCharacters)\" (a catalog has \"language\" and \"messages\"); it is ignored",
                    .warning)
            }
        }
        if !sawMessages { problem(start, "a message catalog needs \"messages\": {\"id\": \"text\", …}") }
        return contents
    }

    private static func readTexts(_ value: JSONValue, into contents: inout FileContents, file: String) {
        func problem(_ location: SourceLocation, _ message: String, _ severity: RuleError.Severity) {
            contents.problems.append(RuleError(file: file, location: location, severity: severity, message: message))
        }
        guard case .object(let members, _) = value else {
            return problem(value.location, "\"messages\" is an object of texts by id, not \(value.kindName)", .error)
        }
        let english = bundledTexts["en"] ?? [:]
        for member in members {
            let id = member.key.escapingControlCharacters
            guard let englishText = english[member.key] else {
                problem(member.keyLocation, "\"\(id)\" is not a message id; it is ignored", .warning)
                continue
            }
            guard case .string(let text, let location) = member.value else {
                problem(
                    member.value.location, "the text of \"\(id)\" must be a string, not \(member.value.kindName)",
                    .error)
                continue
            }
            if contents.texts[member.key] != nil {
                problem(member.keyLocation, "\"\(id)\" is given twice", .error)
                continue
            }
            if text.unicodeScalars.contains(where: isControl) {
                problem(
                    location, "the text of \"\(id)\" holds a control character (a text is one line of plain text)",
                    .error)
                continue
            }
            let allowed = Set(placeholders(in: englishText))
            if let extra = placeholders(in: text).first(where: { !allowed.contains($0) }) {
                let known = allowed.isEmpty ? "none" : allowed.sorted().map { "{\($0)}" }.joined(separator: ", ")
                problem(
                    location,
                    "the text of \"\(id)\" uses {\(extra)}, which the English text does not have (it has \(known))",
                    .error)
                continue
            }
            contents.texts[member.key] = text
        }
    }
}

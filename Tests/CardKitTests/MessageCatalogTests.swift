import CardKit
import Foundation
import Testing

/// The prompt's words by message id (issue 25, items 2–4): the bundled catalogs, English as
/// the fallback id by id, the language from the environment, catalog files' located errors,
/// and the engine speaking the catalog it is given.
@Suite struct MessageCatalogTests {
    /// The repository's `messages/` folder.
    static let folder: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("messages").path
    }()

    static func file(_ language: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: folder + "/" + language + ".json")!)
    }

    // MARK: - The bundled catalogs

    @Test func theBundledLanguagesAreEnglishFrenchGermanSpanish() {
        #expect(MessageCatalog.bundledLanguages == ["de", "en", "es", "fr"])
    }

    /// Each bundled file reads without a problem, names its language, and words every id
    /// (none falls back to English by accident); each text differs from English's somewhere.
    @Test(arguments: ["en", "fr", "de", "es"])
    func bundledFileIsCleanAndComplete(language: String) {
        let contents = MessageCatalog.read(Self.file(language), file: "messages/\(language).json")
        #expect(contents.problems.isEmpty, "\(contents.problems)")
        #expect(contents.language == language)
        #expect(Set(contents.texts.keys) == Set(MessageID.allCases.map(\.rawValue)))
        let catalog = MessageCatalog(language: language)
        for id in MessageID.allCases { #expect(catalog.text(id) == contents.texts[id.rawValue], "\(id)") }
        if language != "en" {
            #expect(catalog.numberLabel != MessageCatalog.english.numberLabel)
            #expect(catalog.text(.helpNumber) != MessageCatalog.english.text(.helpNumber))
        }
    }

    /// Every help line and `:help` line fits 80 columns in every language (with the longest
    /// values its placeholders take: a 4-digit CID, a side).
    @Test(arguments: ["en", "fr", "de", "es"])
    func helpLinesFitEightyColumns(language: String) {
        var engine = BundledRules.engine()
        engine.messages = MessageCatalog(language: language)
        var lines =
            EntryEngine.helpText(cancelEndsEntry: false, messages: engine.messages)
            + EntryEngine.helpText(cancelEndsEntry: true, messages: engine.messages)
        lines.append(engine.help.text)
        engine.type("3782")
        engine.type("82246310005")
        lines.append(engine.help.text)  // expiry
        engine.type("1230")
        lines.append(engine.help.text)  // the CID on the front
        for line in lines { #expect(line.unicodeScalars.count <= 80, "\(language): \(line)") }
        #expect(lines.last!.contains("CID"))
    }

    // MARK: - Falling back to English

    @Test func anIdMissingFromACatalogIsEnglish() {
        let catalog = MessageCatalog(language: "it", texts: ["label.number": "Numero della carta", "no.such.id": "x"])
        #expect(catalog.numberLabel == "Numero della carta")
        #expect(catalog.expiryLabel == "Expiry")
        #expect(catalog.text(.helpNumber) == MessageCatalog.english.text(.helpNumber))
        // A user's file over a bundled language: what it leaves out stays French, not English.
        let french = MessageCatalog(language: "fr", texts: ["label.number": "N° de carte"])
        #expect(french.numberLabel == "N° de carte")
        #expect(french.expiryLabel == "Expiration")
    }

    @Test func aCallersTextsOverrideTheCatalog() {
        let catalog = MessageCatalog(language: "de").overriding([
            "label.number": "Karte", "help.number": "Bitte die Karte eintippen.",
        ])
        #expect(catalog.numberLabel == "Karte")
        #expect(catalog.text(.helpNumber) == "Bitte die Karte eintippen.")
        #expect(catalog.expiryLabel == "Gültig bis")
        #expect(catalog.language == "de")
        let escaped = MessageCatalog.english.overriding(["label.number": "Card\u{1B}[2J"])
        #expect(!escaped.numberLabel.unicodeScalars.contains("\u{1B}"))
        // Bidirectional controls too (issue 36, item 9), and from a catalog's texts as from a
        // caller's: shown escaped, never raw.
        let reordered = MessageCatalog.english.overriding(["label.number": "Card \u{202E}rebmun"])
        #expect(reordered.numberLabel == "Card \\u{202E}rebmun")
        let made = MessageCatalog(
            language: "fr", texts: ["label.number": "\u{2067}Carte\u{2069}", "label.expiry": "Fin\u{1B}[2J"])
        #expect(made.numberLabel == "\\u{2067}Carte\\u{2069}")
        #expect(made.expiryLabel == "Fin\\u{1B}[2J")
        #expect(made.expiryHint == "MM/AA")
    }

    /// Every `--networks` refusal, the tray and `:network` speak the catalog too.
    @Test func refusalsOfAcceptedNetworksAndTheTrayAreWorded() {
        var engine = EntryEngine(
            rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            acceptedNetworks: try! AcceptedNetworks.parse("visa,mastercard", in: BundledRules.set))
        engine.messages = MessageCatalog(language: "es")
        #expect(
            engine.type("3").first?.refusal?.text
                == "ninguna red aceptada empieza por 3 (se aceptan: Visa y Mastercard)")
        engine.type(":cards")
        #expect(engine.handle(.enter).messages.first?.text == "aún no hay tarjetas")
    }

    @Test func placeholdersAreFilledOnceAndUnknownOnesKept() {
        let catalog = MessageCatalog.english
        #expect(catalog.text(.numberTooLong, ("count", "19")) == "no card network has numbers longer than 19 digits")
        // A value holding a placeholder is not filled again; a placeholder with no value stays.
        #expect(catalog.text(.keyDoesNothing, ("key", "{key}")) == "{key} does nothing here")
        #expect(catalog.text(.keyDoesNothing) == "{key} does nothing here")
        #expect(catalog.orList(["16", "18", "19"]) == "16, 18 or 19")
        #expect(MessageCatalog(language: "fr").orList(["3", "4"]) == "3 ou 4")
    }

    // MARK: - The language

    @Test(
        arguments: [
            (nil, ["LANG": "fr_FR.UTF-8"], "fr"),
            ("de", ["LANG": "fr_FR.UTF-8"], "de"),
            ("es_ES.UTF-8", [:], "es"),
            (nil, ["LC_ALL": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"], "de"),
            (nil, ["LC_ALL": "", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"], "fr"),
            (nil, ["LC_MESSAGES": "C", "LANG": "fr_FR.UTF-8"], "en"),
            (nil, ["LANG": "C.UTF-8"], "en"),
            (nil, ["LANG": "POSIX"], "en"),
            (nil, ["LANGUAGE": "es:fr"], "es"),
            (nil, ["LANG": "de_AT.ISO-8859-1@euro"], "de"),
            (nil, ["LANG": "pt-BR"], "pt"),
            (nil, ["LANG": "../../etc"], "en"),
            (nil, [:], "en"),
        ] as [(String?, [String: String], String)])
    func languageComesFromLocaleThenTheEnvironment(locale: String?, environment: [String: String], expected: String) {
        #expect(MessageCatalog.languageCode(locale: locale) { environment[$0] } == expected)
    }

    // MARK: - Catalog files

    func problems(_ text: String) -> [String] {
        MessageCatalog.read(Array(text.utf8), file: "fr.json").problems.map(\.description)
    }

    @Test func malformedCatalogsGetLocatedErrors() {
        #expect(
            problems("{\"language\": \"fr\",\n  \"messages\": {\"label.number\" \"Numéro\"}}\n") == [
                "fr.json:2:31: error: expected ':' after \"label.number\", found '\"'"
            ])
        #expect(
            problems("[1]") == [
                "fr.json:1:1: error: a message catalog is an object, {\"language\": …, \"messages\": {…}}, not an array"
            ])
        #expect(
            problems("{\"messages\": {\n  \"label.number\": 7}}") == [
                "fr.json:2:19: error: the text of \"label.number\" must be a string, not a number"
            ])
        #expect(
            problems("{\"messages\": {\n  \"number.too-long\": \"plus de {n} chiffres\"}}")
                == [
                    "fr.json:2:22: error: the text of \"number.too-long\" uses {n}, which the English text does not have (it has {count})"
                ])
        #expect(
            problems("{\"messages\": {\"label.number\": \"A\\u001b[2JB\"}}") == [
                "fr.json:1:31: error: the text of \"label.number\" holds a control character (a text is one line of plain text)"
            ])
        // Bidirectional controls too (issue 36, item 9): they reorder what the terminal shows.
        for bidi in ["\\u202e", "\\u2067", "\\u2069", "\u{202E}", "\u{2066}"] {
            #expect(
                problems("{\"messages\": {\"label.number\": \"A\(bidi)B\"}}") == [
                    "fr.json:1:31: error: the text of \"label.number\" holds a control character (a text is one line of plain text)"
                ], "\(bidi)")
        }
        #expect(
            problems("{\"messages\": {\"label.numbr\": \"A\"}}") == [
                "fr.json:1:15: warning: \"label.numbr\" is not a message id; it is ignored"
            ])
        #expect(
            problems("{\"language\": \"fr\"}") == [
                "fr.json:1:1: error: a message catalog needs \"messages\": {\"id\": \"text\", …}"
            ])
        #expect(
            problems("{\"messages\": {\"label.number\": \"A\", \"label.number\": \"B\"}}").contains(
                "fr.json:1:36: error: \"label.number\" is given twice"))
    }

    // MARK: - The engine in another language

    @Test func theEngineSpeaksItsCatalog() {
        var engine = BundledRules.engine()
        engine.messages = MessageCatalog(language: "fr")
        #expect(engine.view.label == "Numéro de carte")
        #expect(engine.view.transcriptLine.hasPrefix("Numéro de carte (#### #### #### ####): "))
        #expect(engine.help.text == "Tapez le numéro de carte ; les espaces se mettent seuls. :help : les touches.")
        let refused = engine.handle(.character("x"))
        #expect(refused.refusal?.text == "le numéro de carte ne prend que des chiffres, pas 'x'")
        engine.type("4111111111111111")
        #expect(engine.view.label == "Expiration" && engine.view.hint == "MM/AA")
        var transcript: [UInt8] = []
        engine.appendTranscriptLine(of: .expiry, to: &transcript)
        #expect(String(decoding: transcript, as: UTF8.self) == engine.view.transcriptLine)
        let moved = engine.type("1230").last!
        #expect(
            moved.messages.map(\.line) == [
                "✓ Visa •••• 1111, expire fin 12/30",
                "Tapez le CVV à 3 chiffres, au dos de la carte ; Entrée valide.",
            ])
        engine.type("12")
        let submitted = engine.handle(.enter)
        #expect(submitted.messages.map(\.line) == ["✗ Carte refusée : CVV — le CVV a 3 chiffres ; celui-ci en a 2"])
    }

    /// The note after a valid number's progress ("13/16 (13 valid)") is the catalog's
    /// `progress.valid`, in every bundled language, a user's words, and one that leaves the
    /// count out: in the view and the transcript line.
    @Test(arguments: [
        ("en", [:], "13/16 (13 valid)"), ("fr", [:], "13/16 (13 valides)"), ("de", [:], "13/16 (13 gültig)"),
        ("es", [:], "13/16 (13 válidos)"), ("en", ["progress.valid": "[{count} ok!]"], "13/16 [13 ok!]"),
        ("fr", ["progress.valid": "(valable)"], "13/16 (valable)"),
    ])
    func theValidNoteIsWorded(language: String, texts: [String: String], expected: String) {
        var engine = BundledRules.engine()
        engine.messages = MessageCatalog(language: language, texts: texts)
        engine.type("4211111111117")
        #expect(engine.view.progress == expected)
        var transcript: [UInt8] = []
        engine.appendTranscriptLine(of: .number, to: &transcript)
        #expect(String(decoding: transcript, as: UTF8.self) == engine.view.transcriptLine)
        #expect(engine.view.transcriptLine.hasSuffix(" " + expected + "]"))
        engine.type("1")
        #expect(engine.view.progress == "14/16")
    }

    /// English is the engine's default, and its words are those English always had.
    @Test func englishIsTheDefault() {
        var engine = BundledRules.engine()
        #expect(engine.messages.language == "en")
        #expect(engine.view.label == "Card number")
        engine.type("4111111111111111")
        engine.type("1230")
        #expect(engine.help.text == "Type the 3-digit CVV on the back of the card; Enter submits.")
    }
}

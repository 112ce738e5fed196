import CardPrompt
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt in the desk's language (issue 25, items 2–4): chosen by the locale alone, or
/// `--locale`; an unknown language is English without a warning; a user's catalog that
/// leaves an id out falls back; a malformed one gets a located error; `replay` stays English.
@Suite struct LanguageTests {
    let home = TemporaryHome()

    /// The child's environment with `changes` applied; a nil value removes the variable.
    func environment(_ changes: [String: String?]) -> [String: String] { home.environment(changing: changes) }

    func start(_ changes: [String: String?], _ arguments: [String] = []) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history", "--no-color"] + arguments,
            environment: environment(changes))
        t.waitForRawMode()
        return t
    }

    /// Writes a catalog into the user's folder, `config/cardline/messages/NAME`.
    func writeUserCatalog(_ name: String, _ text: String) throws -> String {
        let folder = home.path + "/config/cardline/messages"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        return folder + "/" + name
    }

    @Test(arguments: [
        (
            "fr_FR.UTF-8", "Numéro de carte (#### #### #### ####): ", "Expiration (MM/AA): ",
            "le numéro de carte ne prend que des chiffres, pas 'x'"
        ),
        (
            "de_DE.UTF-8", "Kartennummer (#### #### #### ####): ", "Gültig bis (MM/JJ): ",
            "in die Kartennummer gehören nur Ziffern, nicht 'x'"
        ),
        (
            "es_ES.UTF-8", "Número de tarjeta (#### #### #### ####): ", "Caducidad (MM/AA): ",
            "el número de tarjeta solo lleva dígitos, no 'x'"
        ),
        (
            "pt_BR.UTF-8", "Card number (#### #### #### ####): ", "Expiry (MM/YY): ",
            "only digits go in the card number, not 'x'"
        ),
    ])
    func theFirstPromptIsInTheLocalesLanguage(lang: String, prompt: String, expiry: String, refusal: String) throws {
        let t = try start(["LANG": lang])
        #expect(t.expect(prompt))
        t.send("x")
        #expect(t.expect(refusal))
        t.send("4111111111111111")
        #expect(t.expect(expiry))
        t.send("\u{04}")  // Ctrl-D on the empty expiry: refused, the prompt still runs
        #expect(!t.hasExited)
        // An unknown language says nothing about itself: no warning, no "locale" anywhere.
        if lang.hasPrefix("pt") { #expect(!t.text.lowercased().contains("locale") && !t.text.contains("warning")) }
    }

    /// The badge's note on a number that is already valid short of its longest length is in
    /// the language too ("13/16 (13 valides)"), and the counter goes on after it.
    @Test(arguments: [
        ("fr_FR.UTF-8", "13/16 (13 valides)"), ("de_DE.UTF-8", "13/16 (13 gültig)"),
        ("es_ES.UTF-8", "13/16 (13 válidos)"), ("C.UTF-8", "13/16 (13 valid)"),
    ])
    func theValidNoteOfTheBadgeIsInTheLanguage(lang: String, note: String) throws {
        let t = try start(["LANG": lang])
        t.send("4211111111117")
        #expect(t.waitForScreen("the note") { $0.cursorLine.hasSuffix("VISA " + note) } != nil, "\(t.screen.lines)")
        t.send("1")
        #expect(t.waitForScreen("the counter") { $0.cursorLine.hasSuffix("VISA 14/16") } != nil, "\(t.screen.lines)")
    }

    @Test func theHelpLineIsInTheLanguageToo() throws {
        let t = try start(["LANG": "de_DE.UTF-8"])
        #expect(t.expect("Kartennummer eingeben; Leerzeichen kommen von selbst. :help zeigt die Tasten."))
        t.send(":help\r")
        #expect(t.expect("Befehle (in jedem leeren Feld eingeben):"))
    }

    @Test func localeOptionWinsOverTheEnvironment() throws {
        let t = try start(["LANG": "fr_FR.UTF-8", "LC_ALL": "es_ES.UTF-8"], ["--locale", "de"])
        #expect(t.expect("Kartennummer (#### #### #### ####): "))
    }

    /// In an ASCII-only locale the words lose their accents, not their letters.
    @Test func anASCIILocaleShowsPlainLetters() throws {
        let t = try start(["LANG": "C"], ["--locale", "fr"])
        #expect(t.expect("Numero de carte (#### #### #### ####): "))
        #expect(!t.text.contains("?"), "\(t.text)")
    }

    /// A user's catalog for a language cardline does not bundle, with one id: that id in its
    /// words, every other in English.
    @Test func aCatalogMissingAnIdFallsBackToEnglish() throws {
        _ = try writeUserCatalog("it.json", #"{"language": "it", "messages": {"label.number": "Numero della carta"}}"#)
        let t = try start(["LANG": "it_IT.UTF-8"])
        #expect(t.expect("Type the card number; spaces are added for you."))
        #expect(t.expect("Numero della carta (#### #### #### ####): "))
        t.send("4111111111111111")
        #expect(t.expect("Expiry (MM/YY): "))
    }

    @Test func aMalformedUserCatalogGetsALocatedError() throws {
        let path = try writeUserCatalog(
            "fr.json", "{\"language\": \"fr\",\n  \"messages\": {\n    \"label.number\": 12\n  }\n}\n")
        let run = try runPiped([], input: "", environment: environment(["LANG": "fr_FR.UTF-8"]))
        #expect(run.status == 65)
        #expect(
            run.errors == "\(path):3:21: error: the text of \"label.number\" must be a string, not a number\n",
            "\(run.errors)")
        // Another language does not read it.
        let english = try runPiped([], input: "", environment: environment(["LANG": "C.UTF-8"]))
        #expect(english.status == 0, "\(english.errors)")
    }

    @Test func messagesLintLocatesErrors() throws {
        let path = try writeUserCatalog(
            "de.json", "{\"messages\": {\n  \"number.too-long\": \"mehr als {n} Ziffern\",\n  \"label.numbr\": \"x\"}}")
        let run = try runPiped(["messages", "lint", path], input: "", environment: home.environment)
        #expect(run.status == 65)
        #expect(
            run.output == """
                \(path):2:22: error: the text of "number.too-long" uses {n}, which the English text does not have (it has {count})
                \(path):3:3: warning: "label.numbr" is not a message id; it is ignored
                checked 1 catalog: 1 error, 1 warning

                """, "\(run.output)")
    }

    /// Bidirectional controls in a catalog's texts (issue 36, item 9) are errors `messages lint`
    /// locates, and the catalog is refused: never written raw to the prompt or to stderr.
    @Test func bidiControlsInACatalogAreErrorsNeverShown() throws {
        let path = try writeUserCatalog(
            "fr.json",
            "{\"messages\": {\n  \"label.number\": \"Num\u{202E}oremu\",\n  \"label.expiry\": \"\u{2067}Fin\u{2069}\"}}"
        )
        let lint = try runPiped(["messages", "lint", path], input: "", environment: home.environment)
        #expect(lint.status == 65)
        #expect(
            lint.output == """
                \(path):2:19: error: the text of "label.number" holds a control character (a text is one line of plain text)
                \(path):3:19: error: the text of "label.expiry" holds a control character (a text is one line of plain text)
                checked 1 catalog: 2 errors, 0 warnings

                """, "\(lint.output)")
        let prompt = try runPiped(
            ["--today", "2026-11", "--no-history", "--print", "--once"], input: "4111111111111111 12/30 987\n",
            environment: environment(["LANG": "fr_FR.UTF-8"]))
        #expect(prompt.status == 65, "\(prompt.errors)")
        #expect(prompt.output.isEmpty)
        #expect(
            prompt.errors.hasPrefix("\(path):2:19: error: the text of \"label.number\" holds a control character"),
            "\(prompt.errors)")
        for text in [prompt.output, prompt.errors, lint.output, lint.errors] {
            #expect(
                !text.unicodeScalars.contains { [0x202E, 0x2067, 0x2069].contains($0.value) },
                "\(text.debugDescription)")
        }
    }

    /// The library's loader: later folders win id by id, over the bundled catalog; a caller's
    /// texts win over every file; a language nobody has is English.
    @Test func catalogsLoadInOrderUnderTheCallersTexts() throws {
        let first = home.path + "/first"
        let second = home.path + "/second"
        for folder in [first, second] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try #"{"messages": {"label.number": "Carte", "label.expiry": "Fin"}}"#.write(
            toFile: first + "/fr.json", atomically: true, encoding: .utf8)
        try #"{"messages": {"label.number": "N° de carte"}}"#.write(
            toFile: second + "/fr.json", atomically: true, encoding: .utf8)
        let catalog = try MessageSources.load(language: "fr", folders: [first, second, home.path + "/none"])
        #expect(catalog.numberLabel == "N° de carte" && catalog.expiryLabel == "Fin" && catalog.expiryHint == "MM/AA")
        let called = try MessageSources.load(
            language: "fr", folders: [first, second], overrides: ["label.number": "Votre carte"])
        #expect(called.numberLabel == "Votre carte")
        let unknown = try MessageSources.load(language: "pt", folders: [first, second])
        #expect(unknown.language == "en" && unknown.numberLabel == "Card number")
        // A broken file refuses the language it words, with every error located.
        try "{\"messages\": {\"label.number\": [1]}}".write(
            toFile: second + "/de.json", atomically: true, encoding: .utf8)
        #expect(throws: RuleSources.LoadError.self) {
            try MessageSources.load(language: "de", folders: [first, second])
        }
        // A language code is never a path.
        #expect(try MessageSources.load(language: "../first/fr", folders: [second]).numberLabel == "Card number")
    }

    /// `replay` pins English: a French desk replays the same transcript as anyone.
    @Test func replayIsEnglishWhateverTheLocale() throws {
        let script = home.path + "/fr.session"
        try "@today 2026-11\n4111111111111111\n@expect message \"Type the expiry date as MM/YY\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        let run = try runPiped(
            ["replay", script], input: "",
            environment: environment(["LANG": "fr_FR.UTF-8", "LC_ALL": "fr_FR.UTF-8"]))
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("Card number ("), "\(run.output)")
    }

    /// Issue 39: the postal code's label, example and country are the language's, at the
    /// prompt and on a pipe (they were the data file's English).
    @Test func thePostalCodeIsWordedInTheLocalesLanguage() throws {
        let t = try start(["LANG": "fr_FR.UTF-8"], ["--postal-code", "FR"])
        t.send("4111111111111111" + "1230" + "123\r")
        #expect(t.expect("Code postal (75008): "))
        let run = try runPiped(
            ["--today", "2026-11", "--postal-code", "US"], input: "4111111111111111 12/30 123\n9410\n",
            environment: environment(["LANG": "de_DE.UTF-8"]))
        #expect(run.output.contains("✗ Zeile 2: ZIP-Code: "), "\(run)")
        #expect(!run.output.contains("ZIP code"), "\(run)")
    }
}

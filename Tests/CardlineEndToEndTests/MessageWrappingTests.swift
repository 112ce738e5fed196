import CardKit
import CardPrompt
import Testing

/// Issue 39 item 2: every line cardline writes for a person fits the terminal and breaks only
/// between words. Every message of every catalog, filled with the longest real arguments, goes
/// through the one wrapper (`Style.wrapped`) at 80 and 40 columns; the prompt, accessible mode
/// and the command line's errors are seen wrapped at a pty.
@Suite struct MessageWrappingTests {
    let home = TemporaryHome()
    static let rules = try! RuleSources.load(folders: [RuleSources.compiledIn])

    /// The longest real value of each placeholder (every network's name for a list of them).
    static let values: [String: String] = {
        let names = rules.networks.map(\.name)
        let longestName = names.max { $0.count < $1.count } ?? ""
        let longestID = rules.networks.map(\.id).max { $0.count < $1.count } ?? ""
        return [
            "a": "an", "accepted": names.joined(separator: ", "), "card": longestName + " 378282•••••0005",
            "character": "'x'", "code": "CID", "command": ":network " + longestID, "count": "19",
            "country": "Vereinigtes Königreich", "digit": "9", "digits": "6011 00", "example": "01310-100",
            "expiry": "12/2030", "field": "Postleitzahl", "guess": ":network", "hint": "#### #### #### #### ###",
            "id": longestID, "ids": rules.networks.map(\.id).joined(separator: ", "), "key": "Shift-Ctrl-Alt-F12",
            "label": "Postleitzahl", "last": "1111", "lengths": "13, 14, 15, 16, 17, 18 or 19", "line": "1000000",
            "longest": "4", "month": "12", "name": longestName, "network": longestName,
            "networks": names.map { $0 + " (" + $0.lowercased() + ")" }.joined(separator: ", "),
            "number": "1000000", "others": names.prefix(4).joined(separator: ", "),
            "problem": "the CVV has 3 digits; this has 2", "problems": "the CVV has 3 digits; this has 2",
            "reason": "the CVV has 3 digits; this has 2", "seconds": "86400", "shortest": "3", "side": "back",
            "today": "2026-11", "typed": "SW1A 1A", "years": "20",
        ]
    }()

    @Test(arguments: MessageCatalog.bundledLanguages, [80, 40])
    func everyMessageFitsAndBreaksOnlyBetweenWords(language: String, columns: Int) {
        let messages = MessageCatalog(language: language)
        for id in MessageID.allCases {
            var text = messages.text(id)
            for name in MessageCatalog.placeholders(in: text) {
                text = text.replacing("{\(name)}", with: Self.values[name] ?? "placeholder")
            }
            for kind in [Message.Kind.error, .info] {
                let line = Message(kind, text).line
                let rows = Style.wrapped(line, columns: columns)
                #expect(rows.allSatisfy { $0.count <= columns }, "\(language) \(id): \(rows)")
                // Nothing lost, no word cut: the rows hold the line's words, in order.
                #expect(
                    rows.flatMap { $0.split(separator: " ") } == line.split(separator: " "),
                    "\(language) \(id): \(rows)")
            }
        }
    }

    /// The hanging indent stands under the text after the mark; a word longer than a row is
    /// cut where the row ends (nothing else can fit it).
    @Test func rowsHangUnderTheMark() {
        #expect(Style.wrapped("✗ one two three four", columns: 10) == ["✗ one two", "  three", "  four"])
        // Wide characters take two columns each: rows are measured in columns, not characters
        // (four ideographs fill an 8-column row; a 40-column row holds 20).
        let wide = "✗ 年月年月年月 年月年月年月年月 年月年月年月年月年月年月 年月年月"
        let columnsOf = { (row: String) in row.reduce(0) { $0 + ($1.unicodeScalars.first!.value >= 0x3000 ? 2 : 1) } }
        for columns in [8, 12, 20, 40] {
            let rows = Style.wrapped(wide, columns: columns)
            #expect(rows.allSatisfy { columnsOf($0) <= columns }, "\(columns): \(rows)")
            #expect(rows.joined().filter { $0 != " " && $0 != "✗" } == wide.filter { $0 != " " && $0 != "✗" })
        }
        #expect(Style.wrapped("cardline: error: abc", columns: 12) == ["cardline:", "  error: abc"])
        #expect(Style.wrapped("abcdefghijkl mn", columns: 8) == ["abcdefgh", "ijkl mn"])
        #expect(Style.wrapped("short", columns: 80) == ["short"])
    }

    /// At an 80-column prompt, a refusal longer than the row goes on under its mark (it broke
    /// mid-word: `(accep` / `ted: …`).
    @Test func aLongRefusalWrapsBetweenWordsAtThePrompt() throws {
        let t = try PseudoTerminal.prompt(["--networks", "visa"], home: home, columns: 80)
        t.expect("Card number (#### #### #### ####): ")
        t.send("7")
        let screen = try #require(
            t.waitForScreen("the refusal") { $0.lines.contains { $0.hasPrefix("✗ a number starting 7") } })
        let at = try #require(screen.lines.firstIndex { $0.hasPrefix("✗ a number starting 7") })
        #expect(screen.lines[at].hasSuffix("none accepted here"), "\(screen.lines)")
        #expect(screen.lines[at + 1].hasPrefix("  (accepted: Visa)"), "\(screen.lines)")
    }

    /// A card number in a refused argument is masked before the error is wrapped: cut across
    /// rows first, each piece was too short to be seen as a number, and the rows held more of
    /// its digits than the masking policy shows (all sixteen at 8 columns).
    @Test(arguments: [8, 12, 20, 40, 80])
    func aNumberInARefusedArgumentIsMaskedWhateverTheWidth(columns: Int) throws {
        for padding in [0, 3, 7, 64] {
            let t = try PseudoTerminal(
                arguments: ["--timeout", String(repeating: "x", count: padding) + "4111111111111111"],
                environment: home.environment, columns: columns)
            #expect(t.waitForExit() == 64)
            // The rows joined back, without the indents: at most `411111` and `1111` of it.
            let joined = t.screen.lines.map { $0.filter { $0 != " " } }.joined()
            #expect(joined.contains("411111••••••1111`"), "\(columns) columns, \(padding) before: \(t.screen.lines)")
            #expect(!joined.contains("4111111"), "\(columns), \(padding): \(t.screen.lines)")
        }
    }

    /// A command-line error at a 40-column terminal: each row fits, broken between words.
    @Test func anErrorWrapsAtANarrowTerminal() throws {
        let t = try PseudoTerminal(
            arguments: ["--timeout", "abcdefghijkl"], environment: home.environment, columns: 40)
        #expect(t.waitForExit() == 64)
        let rows = t.screen.lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
        #expect(rows.first == "cardline: error: --timeout takes a", "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "\(rows)")
        #expect(
            rows.joined(separator: " ").split(separator: " ").joined(separator: " ").hasSuffix(
                "like 60 or 2.5; got `abcdefghijkl`"))
    }
}

import Testing

@testable import CardKit

/// The rule-file JSON reader on long lines, deep nesting and a byte order mark (issue 10).
@Suite struct JSONReaderTests {
    /// A minified rule file (one line) with `count` six-digit prefixes, the last one `last`.
    static func minifiedRuleFile(prefixes count: Int, last: String = "199999") -> String {
        let prefixes = (0..<count - 1).map { "\"\(100_000 + $0)\"" } + ["\"\(last)\""]
        return "{\"id\":\"big\",\"name\":\"Big\",\"prefixes\":[" + prefixes.joined(separator: ",")
            + "],\"lengths\":[16],\"cvv\":{\"name\":\"CVV\",\"length\":3}}"
    }

    /// The column of the first `needle` in a one-line `text`, counted as the reader counts
    /// (Unicode scalars, 1-based).
    static func column(of needle: String, in text: String) -> Int {
        text.unicodeScalars.count - text[text.range(of: needle)!.lowerBound...].unicodeScalars.count + 1
    }

    /// Every value on one long line located exactly. (Columns are worked out from the one
    /// before, not by rescanning the line; nothing here times it: a quadratic reader shows as
    /// the 100,000-prefix test below taking minutes.)
    @Test(arguments: [2_000, 20_000])
    func valuesOnOneLongLineAreLocated(prefixes: Int) throws {
        let text = Self.minifiedRuleFile(prefixes: prefixes)
        let bytes = Array(text.utf8)
        var reader = JSONReader(bytes: bytes)
        let value = try reader.readDocument()
        guard case .object(let members, _) = value, case .array(let items, _) = members[2].value else {
            Issue.record("not the object it was given")
            return
        }
        #expect(items.count == prefixes)
        #expect(items.first?.location == SourceLocation(line: 1, column: Self.column(of: "\"100000\"", in: text)))
        #expect(items.last?.location == SourceLocation(line: 1, column: Self.column(of: "\"199999\"", in: text)))
    }

    /// A 2 MB array of ones on one line (the issue's second example), its last value located.
    @Test func aMinifiedArrayIsLocatedToItsLastValue() throws {
        let bytes = Array(("[" + Array(repeating: "1", count: 1_000_000).joined(separator: ",") + "]").utf8)
        var reader = JSONReader(bytes: bytes)
        guard case .array(let items, _) = try reader.readDocument() else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == 1_000_000)
        #expect(items.last?.location == SourceLocation(line: 1, column: bytes.count - 1))
    }

    /// The issue's file: 100,000 prefixes on one line, the last one broken. Loading it used
    /// to take minutes (140 s in a release build); the message's column must still be exact.
    @Test func hundredThousandPrefixesOnOneLineAreLocatedExactly() {
        let text = Self.minifiedRuleFile(prefixes: 100_000, last: "4a")
        let at = SourceLocation(line: 1, column: Self.column(of: "\"4a\"", in: text))
        #expect(at.column > 900_000)
        #expect(
            throws: RuleErrors(errors: [
                RuleError(file: "big.json", location: at, message: "prefix \"4a\" must be one or more digits 0-9")
            ])
        ) {
            try RuleSet.load(folders: [[.init(path: "big.json", bytes: Array(text.utf8))]])
        }
        let valid = Self.minifiedRuleFile(prefixes: 100_000)
        let set = try? RuleSet.load(folders: [[.init(path: "big.json", bytes: Array(valid.utf8))]])
        #expect(set?.networks.first?.patterns.count == 100_000)
        #expect(
            set?.networks.first?.patternLocations.last
                == SourceLocation(line: 1, column: Self.column(of: "\"199999\"", in: valid)))
    }

    /// Columns count characters (Unicode scalars), not bytes, and restart on each line.
    @Test func columnsCountCharactersAndRestartOnEachLine() throws {
        let text = "{\"a\": \"é✓\", \"b\": 1,\n  \"ç\": [\"x\",\n\"y\"]}"
        guard case .object(let members, _) = try JSONValue.parse(Array(text.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(
            members.map(\.keyLocation) == [
                .init(line: 1, column: 2), .init(line: 1, column: 13), .init(line: 2, column: 3),
            ])
        guard case .array(let items, let at) = members[2].value else {
            Issue.record("not an array")
            return
        }
        #expect(at == SourceLocation(line: 2, column: 8))
        #expect(items.map(\.location) == [.init(line: 2, column: 9), .init(line: 3, column: 1)])
        // An error after a backtrack (a malformed number) is still placed at its start.
        #expect(throws: JSONSyntaxError(location: .init(line: 2, column: 5), message: "malformed number '01'")) {
            try JSONValue.parse(Array("[\"é\",\n1,  01]".utf8))
        }
    }

    /// `depth` arrays (or objects) around a number.
    static func nested(_ depth: Int, objects: Bool = false) -> [UInt8] {
        Array(
            (objects
                ? String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
                : String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)).utf8)
    }

    @Test(arguments: [false, true])
    func sixtyFourLevelsAreAllowed(objects: Bool) throws {
        var value = try JSONValue.parse(Self.nested(64, objects: objects))
        var levels = 0
        while true {
            if case .array(let items, _) = value {
                value = items[0]
            } else if case .object(let members, _) = value {
                value = members[0].value
            } else {
                break
            }
            levels += 1
        }
        #expect(levels == 64)
        #expect(value.description == "1")
    }

    @Test(arguments: [false, true])
    func sixtyFiveLevelsAreRefusedAtTheSixtyFifth(objects: Bool) {
        #expect(
            throws: JSONSyntaxError(
                location: .init(line: 1, column: objects ? 64 * 5 + 1 : 65),
                message: "JSON nested more than 64 levels deep")
        ) {
            try JSONValue.parse(Self.nested(65, objects: objects))
        }
    }

    static let visa =
        "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}"
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A UTF-8 byte order mark at the start is skipped, and columns on the first line do
    /// not count it; anywhere else it is not JSON.
    @Test func byteOrderMarkAtTheStartIsSkipped() throws {
        let set = try RuleSet.load(folders: [[.init(path: "x.json", bytes: Self.bom + Array(Self.visa.utf8))]])
        #expect(set.networks.map(\.idLocation) == [SourceLocation(line: 1, column: 8)])
        #expect(
            throws: RuleErrors(errors: [
                RuleError(
                    file: "x.json", location: .init(line: 1, column: 1),
                    message: "a rule file holds one JSON object, found an array")
            ])
        ) {
            try RuleSet.load(folders: [[.init(path: "x.json", bytes: Self.bom + Array("[]".utf8))]])
        }
        #expect(
            throws: RuleErrors(errors: [
                RuleError(
                    file: "x.json", location: .init(line: 1, column: 1),
                    message: "invalid JSON: expected a JSON value, found the end of the file")
            ])
        ) {
            try RuleSet.load(folders: [[.init(path: "x.json", bytes: Self.bom)]])
        }
        #expect(
            throws: RuleErrors(errors: [
                RuleError(
                    file: "x.json", location: .init(line: 1, column: 2),
                    message: "invalid JSON: expected a JSON value, found byte 0xEF")
            ])
        ) {
            try RuleSet.load(folders: [
                [.init(path: "x.json", bytes: Array(" ".utf8) + Self.bom + Array(Self.visa.utf8))]
            ])
        }
    }

    /// Found by Tests/Fuzz/RuleFileFuzz.swift: a backslash at the end of a line was reported
    /// one column past the end of that line (after the newline it had read as an escape).
    @Test func anUnknownEscapeIsLocatedAtItsBackslash() {
        #expect(
            throws: JSONSyntaxError(
                location: .init(line: 1, column: 30), message: "unknown escape '\\' followed by byte 0xA")
        ) {
            try JSONValue.parse(Array("{\"id\": \"x\\u001bnB\", \"\\th\":  \"\\\n".utf8))
        }
        #expect(throws: JSONSyntaxError(location: .init(line: 2, column: 3), message: "unknown escape '\\q'")) {
            try JSONValue.parse(Array("[\n \"\\q\"]".utf8))
        }
    }

    /// Strings of every length around eight bytes, with escapes after plain runs: each comes
    /// back as written, and a control character in one is found at its place.
    @Test func stringsAroundWordEdgesReadBack() throws {
        let pieces = ["a", "Bank 7", "é", "\u{1F600}", "\"", "\\", "\n", "\u{7F}", "-", "12345678"]
        var random = SeededRandom(seed: 89)
        for _ in 0..<500 {
            let text = (0..<Int(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            let parsed = try JSONValue.parse(Array(text.jsonQuoted.utf8))
            guard case .string(let read, _) = parsed else {
                Issue.record("\(text.debugDescription)")
                continue
            }
            #expect(read == text)
            // A raw control character after a plain run: an error at its column.
            let plainRun = String(repeating: "x", count: Int(random.next() % 20))
            #expect(
                throws: JSONSyntaxError(
                    location: .init(line: 1, column: 2 + plainRun.count), message: "control character in a string")
            ) {
                try JSONValue.parse(Array(("\"" + plainRun + "\u{1}yz\"").utf8))
            }
        }
    }

    /// Columns count characters: a value after text of one- to four-byte characters, at
    /// every length, stands in the column of the characters before it.
    @Test func columnsAfterCharactersOfEveryWidthAreCounted() {
        let pieces = ["a", " ", "é", "€", "\u{1F600}", "Ω"]
        var random = SeededRandom(seed: 90)
        for _ in 0..<400 {
            let text = (0..<Int(random.next() % 30)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            // `["…", x]`: x stands after the string, its quotes, a comma and a space.
            #expect(
                throws: JSONSyntaxError(
                    location: .init(line: 1, column: 6 + text.unicodeScalars.count),
                    message: "expected a JSON value, found 'x'")
            ) {
                try JSONValue.parse(Array(("[\"" + text + "\", x]").utf8))
            }
        }
    }
}

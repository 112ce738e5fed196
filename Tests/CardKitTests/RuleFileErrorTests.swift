import CardKit
import Testing

/// Broken rule files and the exact located message each one gets.
@Suite struct RuleFileErrorTests {
    static let cases: [(String, String)] = [
        (
            "{\"id\": \"x\",\n  \"name\": \"X\"\n  \"lengths\": [16]}",
            "bad.json:3:3: error: invalid JSON: expected ',' or '}' in an object, found '\"'"
        ),
        ("[1, 2]", "bad.json:1:1: error: a rule file holds one JSON object, found an array"),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lenghts\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:45: error: unknown field `lenghts`; did you mean `lengths`?"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4a\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:39: error: prefix \"4a\" must be one or more digits 0-9"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"ranges\": [[\"30\", \"2\"]], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:37: error: range ends \"30\" and \"2\" must have the same number of digits"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"ranges\": [[\"50\", \"40\"]], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:37: error: range low end \"50\" is above its high end \"40\""
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [7], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:57: error: length 7 is outside 8-19"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 5}}",
            "bad.json:1:95: error: cvv length 5 must be 3 or 4"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"groups\": [4, 4, 4], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:72: error: groups add up to 12 digits, which is not one of the lengths 16"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:38: error: a network needs at least one IIN pattern in `prefixes` or `ranges`"
        ),
        (
            "{\"id\": \"X Y\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:8: error: id `X Y` must be lower-case letters, digits and '-', starting with a letter or digit"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": \"16\", \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:56: error: `lengths` must be an array, found a string"
        ),
        (
            "{\"id\": \"x\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:1: error: missing required field `name`"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"luhn\": \"yes\", \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:70: error: `luhn` must be true or false, found a string"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"lenght\": 3}}",
            "bad.json:1:85: error: unknown field `cvv.lenght`; did you mean `length`?"
        ),
        (
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"autoAdvance\": [13], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
            "bad.json:1:78: error: autoAdvance length 13 is not one of the network's lengths"
        ),
        ("", "bad.json:1:1: error: invalid JSON: expected a JSON value, found the end of the file"),
        ("{\"id\": \"x\u{FF}\"}", "bad.json:1:8: error: invalid JSON: the string is not valid UTF-8"),
    ]

    @Test(arguments: cases)
    func brokenFileGetsLocatedMessage(text: String, expected: String) {
        var bytes = Array(text.utf8)
        // "\xff" in the table stands for one invalid byte.
        if let range = text.range(of: "\u{FF}") {
            let offset = text.utf8.distance(from: text.startIndex, to: range.lowerBound)
            bytes.replaceSubrange(offset..<offset + 2, with: [0xFF])
        }
        do {
            _ = try RuleSet.load(folders: [[RuleSet.FileText(path: "bad.json", bytes: bytes)]])
            Issue.record("accepted a broken file; expected \(expected)")
        } catch {
            #expect(error.errors.first?.description == expected, "\(error.description)")
        }
    }

    @Test func anOutOfRangeLengthIsTheOnlyLengthError() {
        let text =
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [7], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}"
        #expect(
            throws: RuleErrors(errors: [
                RuleError(file: "bad.json", location: .init(line: 1, column: 57), message: "length 7 is outside 8-19")
            ])
        ) {
            try RuleSet.load(folders: [[.init(path: "bad.json", bytes: Array(text.utf8))]])
        }
    }

    @Test func duplicateIDInOneFolderNamesTheOtherFile() {
        let text = Array(
            "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}"
                .utf8)
        do {
            _ = try RuleSet.load(folders: [[.init(path: "a.json", bytes: text), .init(path: "b.json", bytes: text)]])
            Issue.record("accepted a duplicate id")
        } catch {
            #expect(error.description == "b.json:1:8: error: network id `x` is also defined in a.json")
        }
    }

}

/// Text from a rule file (keys, ids, names, other strings) and file names reach messages with
/// their control characters escaped: no forged `file:line:column` line, no screen clear.
@Suite struct RuleMessageEscapingTests {
    static func messages(_ files: [(String, String)]) -> [String] {
        do {
            let set = try RuleSet.load(folders: [files.map { RuleSet.FileText(path: $0.0, bytes: Array($0.1.utf8)) }])
            return set.warnings.map(\.description)
        } catch {
            return error.errors.map(\.description)
        }
    }

    static func expectNoControlBytes(_ messages: [String]) {
        for message in messages {
            #expect(
                !message.utf8.contains { $0 < 0x20 || $0 == 0x7F }
                    && !message.unicodeScalars.contains { (0x80...0x9F).contains($0.value) },
                "\(message.debugDescription)")
        }
    }

    @Test func keysIDsNamesAndStringsAreEscaped() {
        // Written with JSON escapes: the key is a newline, a forged diagnostic and a screen clear.
        let text =
            #"{"\nrules/visa.json:1:1: error: forged\u001b[2J": 1, "id": "x\u001b[2J", "name": "Visa\n\u009b2J", "logo": "\u007f", "#
            + #""prefixes": ["4\r"], "ranges": [["1\t", "2"]], "lengths": [16], "cvv": {"name": "CVV\u0007", "length": 3, "\u001bside": "back"}}"#
        let messages = Self.messages([("bad.json", text)])
        #expect(
            messages == [
                #"bad.json:1:2: error: unknown field `\nrules/visa.json:1:1: error: forged\u{1B}[2J`"#,
                #"bad.json:1:60: error: id `x\u{1B}[2J` must be lower-case letters, digits and '-', starting with a letter or digit"#,
                #"bad.json:1:82: error: `name` "Visa\n\u{9B}2J" must not contain control characters"#,
                #"bad.json:1:108: error: `logo` "\u{7F}" must not contain control characters"#,
                #"bad.json:1:131: error: prefix "4\r" must be one or more digits 0-9"#,
                #"bad.json:1:151: error: range end "1\t" must be one or more digits 0-9"#,
                #"bad.json:1:198: error: `cvv.name` "CVV\u{7}" must not contain control characters"#,
                #"bad.json:1:224: error: unknown field `cvv.\u{1B}side`; did you mean `side`?"#,
            ], "\(messages)")
        Self.expectNoControlBytes(messages)
    }

    @Test func syntaxErrorsEscapeTheKeyAndTheEscapedByte() {
        let messages = Self.messages([
            ("a.json", "{\"a\\u001b\" 1}"), ("b.json", "[\"\\\u{1B}\"]"), ("c.json", "[\"\\\u{85}\"]"),
        ])
        #expect(
            messages == [
                #"a.json:1:12: error: invalid JSON: expected ':' after "a\u{1B}", found '1'"#,
                #"b.json:1:3: error: invalid JSON: unknown escape '\' followed by byte 0x1B"#,
                #"c.json:1:3: error: invalid JSON: unknown escape '\' followed by byte 0xC2"#,
            ], "\(messages)")
        Self.expectNoControlBytes(messages)
    }

    @Test func disabledIDsAndFileNamesAreEscaped() {
        let disable = #"{"id": "x\u001b[2J", "disabled": true}"#
        let messages = Self.messages([("one\n.json", disable), ("two\u{1B}.json", disable)])
        #expect(
            messages == [
                #"two\u{1B}.json:1:8: error: network id `x\u{1B}[2J` is also defined in one\n.json"#,
                #"one\n.json:1:8: warning: disables `x\u{1B}[2J`, which no earlier rule folder defines"#,
            ], "\(messages)")
        Self.expectNoControlBytes(messages)
    }
}

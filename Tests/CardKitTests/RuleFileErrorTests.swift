import CardKit
import Testing

/// Broken rule files and the exact located message each one gets.
@Suite struct RuleFileErrorTests {
    static let cases: [(String, String)] = [
        ("{\"id\": \"x\",\n  \"name\": \"X\"\n  \"lengths\": [16]}", "bad.json:3:3: error: invalid JSON: expected ',' or '}' in an object, found '\"'"),
        ("[1, 2]", "bad.json:1:1: error: a rule file holds one JSON object, found an array"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lenghts\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:45: error: unknown field `lenghts`; did you mean `lengths`?"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4a\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:39: error: prefix \"4a\" must be one or more digits 0-9"),
        ("{\"id\": \"x\", \"name\": \"X\", \"ranges\": [[\"30\", \"2\"]], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:37: error: range ends \"30\" and \"2\" must have the same number of digits"),
        ("{\"id\": \"x\", \"name\": \"X\", \"ranges\": [[\"50\", \"40\"]], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:37: error: range low end \"50\" is above its high end \"40\""),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [7], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:57: error: length 7 is outside 8-19"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 5}}",
         "bad.json:1:95: error: cvv length 5 must be 3 or 4"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"groups\": [4, 4, 4], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:72: error: groups add up to 12 digits, which is not one of the lengths 16"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:38: error: a network needs at least one IIN pattern in `prefixes` or `ranges`"),
        ("{\"id\": \"X Y\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:8: error: id `X Y` must be lower-case letters, digits and '-', starting with a letter or digit"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": \"16\", \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:56: error: `lengths` must be an array, found a string"),
        ("{\"id\": \"x\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:1: error: missing required field `name`"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"luhn\": \"yes\", \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:70: error: `luhn` must be true or false, found a string"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"lenght\": 3}}",
         "bad.json:1:85: error: unknown field `cvv.lenght`; did you mean `length`?"),
        ("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"autoAdvance\": [13], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
         "bad.json:1:78: error: autoAdvance length 13 is not one of the network's lengths"),
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
        let text = "{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [7], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}"
        #expect(throws: RuleErrors(errors: [RuleError(file: "bad.json", location: .init(line: 1, column: 57), message: "length 7 is outside 8-19")])) {
            try RuleSet.load(folders: [[.init(path: "bad.json", bytes: Array(text.utf8))]])
        }
    }

    @Test func duplicateIDInOneFolderNamesTheOtherFile() {
        let text = Array("{\"id\": \"x\", \"name\": \"X\", \"prefixes\": [\"4\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}".utf8)
        do {
            _ = try RuleSet.load(folders: [[.init(path: "a.json", bytes: text), .init(path: "b.json", bytes: text)]])
            Issue.record("accepted a duplicate id")
        } catch {
            #expect(error.description == "b.json:1:8: error: network id `x` is also defined in a.json")
        }
    }
}

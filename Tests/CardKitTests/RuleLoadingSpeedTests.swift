@testable import CardKit
import Testing

/// The fast ways through rule loading (issue 13) give exactly what the general ones give.
@Suite struct RuleLoadingSpeedTests {
    /// A valid rule file with prefixes and ranges, indented, with a name that is not ASCII
    /// (columns count characters).
    static let sample = """
        {
          "$schema": "./schema.json",
          "id": "acme-pay",
          "name": "Acmé Pay — ünïcode",
          "prefixes": ["4", "51", "6011", "0042"],
          "ranges": [["2221", "2720"], ["880000", "880999"], ["0000000000000000001", "9999999999999999999"]],
          "lengths": [16, 19],
          "cvv": {"name": "CVV", "length": 3}
        }
        """

    /// Both ways through one text: the same network (patterns, their places) or the same problems.
    static func decodeBothWays(_ bytes: [UInt8]) -> (fast: String, general: String) {
        func describe(_ scanning: Bool) -> String {
            var decoder = RuleFile(file: "x.json")
            let content = decoder.decode(bytes, scanning: scanning)
            var text = decoder.problems.map(\.description).joined(separator: "\n")
            if case .network(let network)? = content {
                text += "network \(network.id) \(network.name) \(network.patterns) \(network.patternLocations) \(network.lengths) \(network.idLocation)"
            } else if case .disable(let id, let at)? = content {
                text += "disable \(id) \(at)"
            }
            return text
        }
        return (describe(true), describe(false))
    }

    @Test func theOnePassReaderReadsTheSampleAsTheGeneralReaderDoes() {
        let (fast, general) = Self.decodeBothWays(Array(Self.sample.utf8))
        #expect(fast == general)
        #expect(fast.contains("network acme-pay"), "\(fast)")
        #expect(fast.contains("0042") && fast.contains("0000000000000000001-9999999999999999999"), "\(fast)")
    }

    /// Loading takes the one-pass reader for every well-formed file: the bundled rules, and
    /// generated bank files (100 ranges each, indented and on one line), through the same
    /// `RuleSet.load` the prompt, `check` and `replay` use. A file the one-pass reader hands
    /// over (an escape in a prefix) is read by the general reader, and counted apart.
    @Test func loadingReadsWellFormedFilesInOnePass() throws {
        let bundled = try RuleSet.load(folders: [BundledRules.files])
        #expect(BundledRules.files.count > 30)
        #expect(bundled.filesReadInOnePass == BundledRules.files.count)

        var random = SeededRandom(seed: 21)
        var bank: [RuleSet.FileText] = []
        for n in 0..<20 {
            let ranges = (0..<100).map { r -> String in
                let low = 30_000_000 + (r * 20 + n) * 100
                return "[\"\(low)\", \"\(low + Int(random.next() % 100))\"]"
            }
            let text = n % 2 == 0
                ? "{\n  \"id\": \"bank-\(n)\",\n  \"name\": \"Bank \(n)\",\n  \"ranges\": [\n    \(ranges.joined(separator: ",\n    "))\n  ],\n  \"lengths\": [16],\n  \"cvv\": {\"name\": \"CVV\", \"length\": 3}\n}\n"
                : "{\"id\":\"bank-\(n)\",\"name\":\"Bank \(n)\",\"ranges\":[\(ranges.joined(separator: ","))],\"lengths\":[16],\"cvv\":{\"name\":\"CVV\",\"length\":3}}"
            bank.append(RuleSet.FileText(path: "bank/bank-\(n).json", bytes: Array(text.utf8)))
        }
        let loaded = try RuleSet.load(folders: [BundledRules.files, bank])
        #expect(loaded.networks.count == bundled.networks.count + 20)
        #expect(loaded.filesReadInOnePass == BundledRules.files.count + 20)

        // The same file with an escape in one prefix: valid, read by the general reader alone.
        let escaped = RuleSet.FileText(path: "escaped.json", bytes: Array(#"{"id": "escaped", "name": "E", "prefixes": ["3\u0039"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#.utf8))
        let mixed = try RuleSet.load(folders: [bank, [escaped]])
        #expect(mixed.network(id: "escaped")?.patterns == [IINPattern(prefix: "39")!])
        #expect(mixed.filesReadInOnePass == bank.count)
    }

    /// Every single-byte change of the sample (a byte replaced by one of a set chosen to break
    /// strings, numbers, escapes and structure), and every cut: both readers agree, errors,
    /// their places and all. Most variants are errors, many inside the pattern arrays.
    /// The one-pass reader's eight-digits-at-once step (`eightDigits`) gives what reading the
    /// digits one by one gives: the value when all eight bytes are ASCII digits, nil when any
    /// byte is not (every byte value, at every place, including the neighbours of '0' and '9').
    @Test func eightDigitsAtOnceAreReadAsOneByOne() {
        func oneByOne(_ bytes: [UInt8]) -> UInt64? {
            var value: UInt64 = 0
            for byte in bytes {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        var texts: [[UInt8]] = [Array("00000000".utf8), Array("99999999".utf8), Array("30012345".utf8)]
        var random = SeededRandom(seed: 8)
        for _ in 0..<200 { texts.append((0..<8).map { _ in UInt8(ascii: "0") + UInt8(random.next() % 10) }) }
        var wrong = 0
        for text in texts {
            #expect(eightDigits(text.span, at: 0) == oneByOne(text))
            for place in 0..<8 {
                for byte in 0...255 {
                    var changed = text
                    changed[place] = UInt8(byte)
                    if eightDigits(changed.span, at: 0) != oneByOne(changed) { wrong += 1 }
                }
            }
            // Read from the middle of longer text, as the reader does.
            let longer = Array("[\"".utf8) + text + Array("\"]".utf8)
            #expect(eightDigits(longer.span, at: 2) == oneByOne(text))
        }
        #expect(wrong == 0)
    }

    /// Each byte of `bytes` at `positions` replaced by each of `replacements` (where it
    /// differs), and the text cut there: both readers read each the same. How many changed
    /// texts were compared, and how many of them were errors.
    static func changeEachByte(_ bytes: [UInt8], at positions: Range<Int>, to replacements: [UInt8]) -> (compared: Int, errors: Int) {
        var compared = 0, errors = 0
        for position in positions {
            for replacement in replacements where bytes[position] != replacement {
                var changed = bytes
                changed[position] = replacement
                let (fast, general) = decodeBothWays(changed)
                #expect(fast == general, "byte \(position) → \(replacement): \(fast) / \(general)")
                compared += 1
                if !fast.hasPrefix("network") { errors += 1 }
            }
            let (fast, general) = decodeBothWays(Array(bytes[..<position]))
            #expect(fast == general, "cut at \(position)")
        }
        return (compared, errors)
    }

    @Test func everyOneByteChangeIsReadTheSameBothWays() {
        let bytes = Array(Self.sample.utf8)
        let (compared, errors) = Self.changeEachByte(bytes, at: bytes.indices, to: Array("0 9\"\\[],:{}a-\n".utf8) + [0x01, 0xC3, 0xFF])
        #expect(compared > 3_000 && errors > compared / 2, "\(compared) variants, \(errors) with errors")
    }

    /// The same for a bank's file, whose eight-digit ranges the one-pass reader takes in one
    /// step each (`usualRange`): every byte of its ranges changed, and every cut.
    @Test func everyOneByteChangeOfABanksRangesIsReadTheSameBothWays() {
        let text = """
            {
              "id": "bank-1",
              "name": "Bank 1",
              "ranges": [
                ["30000000", "30000050"],
                ["30000100", "30000100"],
                ["39999900", "39999999"]
              ],
              "lengths": [16],
              "cvv": {"name": "CVV", "length": 3}
            }
            """
        let bytes = Array(text.utf8)
        let ranges = text.utf8.distance(from: text.startIndex, to: text.range(of: "[\n")!.lowerBound)..<text.utf8.distance(from: text.startIndex, to: text.range(of: "\"lengths\"")!.lowerBound)
        let (fast, general) = Self.decodeBothWays(bytes)
        #expect(fast == general && fast.hasPrefix("network"), "\(fast)")
        let (compared, errors) = Self.changeEachByte(bytes, at: ranges, to: Array("0 9\"\\[],:{}a-\n/:".utf8) + [0x01, 0xC3, 0xFF])
        #expect(compared > 1_500 && errors > compared / 2, "\(compared) variants, \(errors) with errors")
    }

    /// Texts the one-pass reader must hand over: each ends with the general reader's words.
    @Test(arguments: [
        #"{"id": "a", "name": "A", "prefixes": ["4\u0031"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "prefixes": ["12345678901234567890"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "prefixes": [""], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "prefixes": ["4"], "prefixes": ["5"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "ranges": [["30", "2"]], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "ranges": [["5", "1"]], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "ranges": [["1", "2", "3"]], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "ranges": [["1", "2"],], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "prefixes": [4], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#,
        #"{"id": "a", "name": "A", "prefixes": ["4"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}} x"#,
        "\u{FEFF}{\"id\": \"a\", \"name\": \"Ä\", \"prefixes\": [\"4\", \"4x\"], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}",
    ])
    func theGeneralReaderWordsWhatTheFastOneRefuses(text: String) {
        let (fast, general) = Self.decodeBothWays(Array(text.utf8))
        #expect(fast == general)
    }

    /// The radix sort gives the order of a sort by (key, index): ascending keys, ties in index order.
    @Test(arguments: [0, 1, 300, 5_000])
    func theRadixOrderIsTheStableOrder(count: Int) {
        var random = SeededRandom(seed: UInt64(count) + 1)
        // Few distinct high parts and many repeats, so that ties and skipped passes both occur.
        let keys = (0..<count).map { _ in (random.next() % 4) << 48 | (random.next() % 50) << 20 | random.next() % 3 }
        let expected = keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map(Int32.init)
        #expect(stableOrder(ofKeys: keys) == expected)
    }

    /// A level of thousands of intervals (radix-sorted) ties and merges as a small one does:
    /// the same set loaded as one network per range and as the same ranges shuffled.
    @Test func largeLevelsReportTiesInOrder() {
        var texts: [String] = []
        for n in 0..<3 {
            // Each network lists 400 eight-digit ranges; network 2 repeats two of network 0's.
            var ranges = (0..<400).map { r in "[\"\(40_000_000 + (r * 3 + n) * 100)\", \"\(40_000_000 + (r * 3 + n) * 100 + 50)\"]" }
            if n == 2 { ranges += ["[\"40000000\", \"40000010\"]", "[\"40030000\", \"40030010\"]"] }
            texts.append("{\"id\": \"bank-\(n)\", \"name\": \"Bank \(n)\", \"ranges\": [\(ranges.joined(separator: ", "))], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}")
        }
        let files = texts.indices.map { RuleSet.FileText(path: "bank-\($0).json", bytes: Array(texts[$0].utf8)) }
        /// The 1-based column of the first `needle` in a one-line ASCII text.
        func column(_ needle: String, in text: String) -> Int { text.distance(from: text.startIndex, to: text.range(of: needle)!.lowerBound) + 1 }
        let expected = [
            "bank-2.json:1:\(column("[\"40000000\", \"40000010\"]", in: texts[2])): error: pattern 40000000-40000010 of `bank-2` ties with pattern 40000000-40000050 of `bank-0` (bank-0.json:1:\(column("[\"40000000\"", in: texts[0]))); make one of them more specific",
            "bank-2.json:1:\(column("[\"40030000\", \"40030010\"]", in: texts[2])): error: pattern 40030000-40030010 of `bank-2` ties with pattern 40030000-40030050 of `bank-0` (bank-0.json:1:\(column("[\"40030000\"", in: texts[0]))); make one of them more specific",
        ]
        #expect {
            try RuleSet.load(folders: [files])
        } throws: { error in
            (error as? RuleErrors)?.errors.map(\.description) == expected
        }
    }

    /// The one-pass reader's word-at-a-time steps (an indent's spaces eight at a time, a
    /// top-level key found and matched as two words) read what the general reader reads:
    /// random layouts (runs of spaces of every length around eight, tabs, line breaks, CRs),
    /// and keys that are known, one byte off, escaped, unknown, repeated, 15 to 17 bytes long,
    /// ending in raw NUL bytes, or cut, each also near the end of the text (where fewer than sixteen bytes are left).
    @Test func indentsAndKeysReadByWordsAreReadAsTheGeneralReaderReadsThem() {
        var random = SeededRandom(seed: 2112)
        func blanks() -> String {
            let pieces = [" ", "  ", "    ", "       ", "        ", "         ", "                 ", "\n", "\t", "\r\n", "\n  ", "\n        "]
            return (0..<Int(random.next() % 3)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        let oddKeys = ["$schemb", "Id", "nam", "namee", "lengthsFo", "lengthsForX", "autoAdvance5", "i\\u0064", "x", "abcdefghijklmno",
                       "abcdefghijklmnop", "abcdefghijklmnopq", "coBadged\\\"", "\u{E9}t", "", "id\u{0}", "cvv\u{0}\u{0}"]
        var compared = 0, inOnePass = 0
        for round in 0..<600 {
            let ranges = (0..<Int(random.next() % 4 + 1)).map { r in
                "[" + blanks() + "\"\(30_000_000 + r * 100)\"" + blanks() + "," + blanks() + "\"\(30_000_000 + r * 100 + 50)\"" + blanks() + "]"
            }
            var members = [
                ("id", "\"bank-\(round)\""), ("name", "\"Bank\""),
                ("ranges", "[" + blanks() + ranges.joined(separator: blanks() + "," + blanks()) + blanks() + "]"),
                ("lengths", "[16]"), ("cvv", "{\"name\": \"CVV\", \"length\": 3}"),
            ]
            switch random.next() % 4 {
            case 0: members.insert((oddKeys[Int(random.next() % UInt64(oddKeys.count))], "\"x\""), at: Int(random.next() % 6))
            case 1: members.append((members[Int(random.next() % 5)].0, "[]"))  // a key twice
            case 2: members.append(("note", "\"n\""))  // last, close to the end
            case 3 where random.next() % 2 == 0:
                // A known key with raw NUL bytes after it (its words are the key's own).
                let k = Int(random.next() % 5)
                members[k].0 += String(repeating: "\u{0}", count: Int(random.next() % 3) + 1)
            default: break
            }
            var text = "{" + blanks() + members.map { "\"\($0.0)\"" + blanks() + ":" + blanks() + $0.1 }.joined(separator: blanks() + "," + blanks()) + blanks() + "}"
            if random.next() % 8 == 0 { text = String(text.dropLast(Int(random.next() % 12))) }
            let bytes = Array(text.utf8)
            let (fast, general) = Self.decodeBothWays(bytes)
            #expect(fast == general, "\(text)")
            compared += 1
            var decoder = RuleFile(file: "x.json")
            _ = decoder.decode(bytes)
            if decoder.readInOnePass { inOnePass += 1 }
        }
        // (Odd keys, repeats and cuts go to the general reader, and so do odd spaces around a
        // range's comma; about a third of the texts take the one pass all the way.)
        #expect(compared == 600 && inOnePass > 120 && inOnePass < 450, "\(inOnePass) of \(compared) read in one pass")
    }

    /// The load's one table of ids tells what its two did: a network replaced in place, one
    /// disabled (those after it moving up) and brought back later at the end, an id named
    /// twice in one folder (a disabling file counts) an error at the second, and disabling
    /// an id no earlier folder defines a warning.
    @Test func oneIDTableLoadsFoldersAsBefore() throws {
        func network(_ path: String, _ id: String, prefix: String) -> RuleSet.FileText {
            RuleSet.FileText(path: path, bytes: Array(#"{"id": "\#(id)", "name": "N", "prefixes": ["\#(prefix)"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#.utf8))
        }
        func disabling(_ path: String, _ id: String) -> RuleSet.FileText {
            RuleSet.FileText(path: path, bytes: Array(#"{"id": "\#(id)", "disabled": true}"#.utf8))
        }
        let first = [network("1/a.json", "a", prefix: "11"), network("1/b.json", "b", prefix: "12"), network("1/c.json", "c", prefix: "13")]
        let second = [disabling("2/b-off.json", "b"), network("2/c.json", "c", prefix: "14"), disabling("2/d-off.json", "d")]
        let third = [network("3/b.json", "b", prefix: "16"), network("3/d.json", "d", prefix: "15")]
        let set = try RuleSet.load(folders: [first, second, third])
        #expect(set.networks.map(\.id) == ["a", "c", "b", "d"])
        #expect(set.networks.map(\.file) == ["1/a.json", "2/c.json", "3/b.json", "3/d.json"])
        #expect(set.warnings.map(\.description) == ["2/d-off.json:1:8: warning: disables `d`, which no earlier rule folder defines"])
        // Named twice in one folder: after a disabling file, and after a stray one.
        let twice = second + [network("2/b.json", "b", prefix: "17"), network("2/d.json", "d", prefix: "18")]
        #expect {
            try RuleSet.load(folders: [first, twice, third])
        } throws: { error in
            (error as? RuleErrors)?.errors.map(\.description) == [
                "2/b.json:1:8: error: network id `b` is also defined in 2/b-off.json",
                "2/d.json:1:8: error: network id `d` is also defined in 2/d-off.json",
                "2/d-off.json:1:8: warning: disables `d`, which no earlier rule folder defines",
            ]
        }
    }
}

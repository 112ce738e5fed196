import Testing

@testable import CardKit

/// Loading rule files into one rule set: the order of patterns, ties in big levels, one table
/// of ids across folders, and what the reader makes of escapes.
@Suite struct RuleLoadingTests {
    /// A prefix written with a JSON escape (`"3\u0039"`) is the prefix it spells.
    @Test func anEscapedPrefixIsThePrefixItSpells() throws {
        let escaped = RuleSet.FileText(
            path: "escaped.json",
            bytes: Array(
                #"{"id": "escaped", "name": "E", "prefixes": ["3\u0039"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#
                    .utf8))
        let set = try RuleSet.load(folders: [[escaped]])
        #expect(set.network(id: "escaped")?.patterns == [IINPattern(prefix: "39")!])
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
            var ranges = (0..<400).map { r in
                "[\"\(40_000_000 + (r * 3 + n) * 100)\", \"\(40_000_000 + (r * 3 + n) * 100 + 50)\"]"
            }
            if n == 2 { ranges += ["[\"40000000\", \"40000010\"]", "[\"40030000\", \"40030010\"]"] }
            texts.append(
                "{\"id\": \"bank-\(n)\", \"name\": \"Bank \(n)\", \"ranges\": [\(ranges.joined(separator: ", "))], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}"
            )
        }
        let files = texts.indices.map { RuleSet.FileText(path: "bank-\($0).json", bytes: Array(texts[$0].utf8)) }
        /// The 1-based column of the first `needle` in a one-line ASCII text.
        func column(_ needle: String, in text: String) -> Int {
            text.distance(from: text.startIndex, to: text.range(of: needle)!.lowerBound) + 1
        }
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

    /// The load's one table of ids tells what its two did: a network replaced in place, one
    /// disabled (those after it moving up) and brought back later at the end, an id named
    /// twice in one folder (a disabling file counts) an error at the second, and disabling
    /// an id no earlier folder defines a warning.
    @Test func oneIDTableLoadsFoldersAsBefore() throws {
        func network(_ path: String, _ id: String, prefix: String) -> RuleSet.FileText {
            RuleSet.FileText(
                path: path,
                bytes: Array(
                    #"{"id": "\#(id)", "name": "N", "prefixes": ["\#(prefix)"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}"#
                        .utf8))
        }
        func disabling(_ path: String, _ id: String) -> RuleSet.FileText {
            RuleSet.FileText(path: path, bytes: Array(#"{"id": "\#(id)", "disabled": true}"#.utf8))
        }
        let first = [
            network("1/a.json", "a", prefix: "11"), network("1/b.json", "b", prefix: "12"),
            network("1/c.json", "c", prefix: "13"),
        ]
        let second = [
            disabling("2/b-off.json", "b"), network("2/c.json", "c", prefix: "14"), disabling("2/d-off.json", "d"),
        ]
        let third = [network("3/b.json", "b", prefix: "16"), network("3/d.json", "d", prefix: "15")]
        let set = try RuleSet.load(folders: [first, second, third])
        #expect(set.networks.map(\.id) == ["a", "c", "b", "d"])
        #expect(set.networks.map(\.file) == ["1/a.json", "2/c.json", "3/b.json", "3/d.json"])
        #expect(
            set.warnings.map(\.description) == [
                "2/d-off.json:1:8: warning: disables `d`, which no earlier rule folder defines"
            ])
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

import CardKit
import Foundation
import Testing

/// `RuleDiff`: each kind of change to a copy of a bundled file shows as exactly the stretch it
/// moves; changes that move nothing show nothing.
@Suite struct RuleDiffTests {
    /// The bundled set with `file` (a bundled file's name) replaced by `edit` of its text.
    static func edited(_ file: String, _ edit: (String) -> String) throws -> RuleSet {
        let original = try #require(BundledRules.files.first { $0.path == "rules/" + file })
        let text = edit(String(decoding: original.bytes, as: UTF8.self))
        #expect(text != String(decoding: original.bytes, as: UTF8.self), "the edit changed nothing")
        let layer = [RuleSet.FileText(path: "edited/" + file, bytes: Array(text.utf8))]
        return try RuleSet.load(folders: [BundledRules.files, layer])
    }

    @Test func theBundledSetAgainstItselfHasNoDifference() {
        #expect(RuleDiff(BundledRules.set, BundledRules.set).isEmpty)
    }

    @Test func reorderingAndSplittingAPatternMoveNothing() throws {
        let reordered = try Self.edited("mastercard.json") {
            $0.replacingOccurrences(
                of: #"[["51", "55"], ["2221", "2720"], ["22", "27"]]"#,
                with: #"[["22", "27"], ["2221", "2720"], ["51", "55"]]"#)
        }
        #expect(RuleDiff(BundledRules.set, reordered).isEmpty)
        let split = try Self.edited("mastercard.json") {
            $0.replacingOccurrences(of: #"["51", "55"]"#, with: #"["51", "52"], ["53", "55"]"#)
        }
        #expect(RuleDiff(BundledRules.set, split).isEmpty)
    }

    @Test func aLengthAddedShowsOnEveryStretchTheNetworkDecides() throws {
        let after = try Self.edited("mastercard.json") {
            $0.replacingOccurrences(of: #""lengths": [16]"#, with: #""lengths": [16, 19]"#)
        }
        let diff = RuleDiff(BundledRules.set, after)
        #expect(!diff.differences.isEmpty)
        for difference in diff.differences {
            #expect(difference.before?.network == "mastercard")
            #expect(difference.before?.lengths == [16])
            #expect(difference.after?.lengths == [16, 19])
            #expect(difference.numbers.map(\.length) == [16, 19])
        }
        // Every Mastercard number changes, and nothing else: a number of each stretch decided
        // by Mastercard before, and one just outside, checked against detection itself.
        #expect(diff.differences.contains { $0.low.hasPrefix("51") })
        #expect(!diff.differences.contains { $0.low.hasPrefix("4") })
    }

    @Test func aRangeTakenAwayLeavesItsNumbersToNoNetwork() throws {
        let after = try Self.edited("mastercard.json") {
            $0.replacingOccurrences(of: #"["51", "55"]"#, with: #"["51", "54"]"#)
        }
        let diff = RuleDiff(BundledRules.set, after)
        #expect(!diff.differences.isEmpty)
        for difference in diff.differences {
            #expect(difference.low.hasPrefix("55") && difference.high.hasPrefix("55"))
            #expect(difference.before?.network == "mastercard")
            #expect(difference.after == nil)
        }
    }

    @Test func luhnCodeAndGroupingChangesAreEachTheirOwn() throws {
        let code = RuleDiff(
            BundledRules.set,
            try Self.edited("mastercard.json") {
                $0.replacingOccurrences(
                    of: #""cvv": {"name": "CVC", "length": 3}"#, with: #""cvv": {"name": "CVC", "length": 4}"#)
            })
        #expect(!code.differences.isEmpty)
        #expect(code.differences.allSatisfy { $0.before?.codeLengths == 3...3 && $0.after?.codeLengths == 4...4 })
        let groups = RuleDiff(
            BundledRules.set,
            try Self.edited("mastercard.json") {
                $0.replacingOccurrences(of: #""groups": [4, 4, 4, 4]"#, with: #""groups": [4, 6, 6]"#)
            })
        #expect(
            groups.differences.allSatisfy { $0.before?.groups == [[4, 4, 4, 4]] && $0.after?.groups == [[4, 6, 6]] })
        #expect(!groups.differences.isEmpty)
        let luhn = RuleDiff(
            BundledRules.set,
            try Self.edited("mastercard.json") {
                $0.replacingOccurrences(of: #""lengths": [16],"#, with: #""lengths": [16], "luhn": false,"#)
            })
        #expect(!luhn.differences.isEmpty)
        #expect(luhn.differences.allSatisfy { $0.before?.luhn == true && $0.after?.luhn == false })
    }

    /// A pattern longer than a number it begins leaves that number undecided: the shorter
    /// numbers it covers are walked at their own length, and shown as numbers of that length.
    @Test func aLongPatternChangesShorterNumbersItBegins() throws {
        let long = #"""
            {"id": "x", "name": "X", "logo": "X", "ranges": [["4000000000000002000", "4000000000000002999"]],
             "lengths": [19], "cvv": {"name": "CVV", "length": 3}}
            """#
        let after = try RuleSet.load(folders: [
            BundledRules.files, [RuleSet.FileText(path: "mine/x.json", bytes: Array(long.utf8))],
        ])
        let diff = RuleDiff(BundledRules.set, after)
        let sixteen = try #require(diff.differences.first { $0.length == 16 })
        #expect(sixteen.low == "4000000000000002" && sixteen.high == "4000000000000002")
        #expect(sixteen.before?.network == "visa")
        #expect(sixteen.after == nil, "the 16-digit Visa number is no longer decided")
        #expect(after.detect(digits("4000000000000002")).network == nil)
        #expect(sixteen.numbers.map(\.length) == [16] && sixteen.numbers.first?.count == 1)
        let whole = try #require(diff.differences.first { $0.length == nil })
        #expect(whole.after?.network == "x")
    }

    @Test func aNetworkAddedIsListedAndTheNumbersItTakesShown() throws {
        let acme = #"""
            {"id": "acme-pay", "name": "Acme Pay", "logo": "ACME", "ranges": [["880000", "880999"]],
             "lengths": [16], "groups": [4, 4, 4, 4], "cvv": {"name": "CVV", "length": 3}, "note": "inside UnionPay's 88"}
            """#
        let after = try RuleSet.load(folders: [
            BundledRules.files, [RuleSet.FileText(path: "mine/acme-pay.json", bytes: Array(acme.utf8))],
        ])
        let diff = RuleDiff(BundledRules.set, after)
        #expect(diff.added.map(\.id) == ["acme-pay"])
        #expect(diff.removed.isEmpty)
        #expect(diff.differences.count == 1)
        let moved = try #require(diff.differences.first)
        #expect(moved.low.hasPrefix("880000") && moved.high.hasPrefix("880999"))
        #expect(moved.before?.network == "unionpay")
        #expect(moved.after?.network == "acme-pay")
        // Against its reverse: removed, and moved back.
        let back = RuleDiff(after, BundledRules.set)
        #expect(back.removed.map(\.id) == ["acme-pay"])
        #expect(back.differences.first?.before?.network == "acme-pay")
    }
}

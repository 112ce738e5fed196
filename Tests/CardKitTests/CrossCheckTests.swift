import CardKit
import Foundation
import Testing

/// `Tests/crosscheck/prefixes.json`: prefixes and numbers that public BIN tables assign to a
/// network cardline ships, each with the tables named. The bundled rules must never refuse
/// one, so that an edit that would turn away a real card fails `make test`.
///
/// Each case: `digits`, `network` (the id the named `sources` give), `sources`, `valid` where
/// the sources judge the whole number valid or invalid, and, where cardline deliberately
/// answers otherwise, `expect` (the id asserted instead) or `expectValid` with `why`. A source
/// naming a family (`visa`) agrees with a network of that family (Visa Electron, V Pay), and a
/// source naming one network of a co-badged card with the card (Dankort/Visa).
/// For every case, typing the digits one by one is never refused and stays in the number
/// field until the last digit, and the network (or one of its family) is among the candidates
/// for the digits. When the digits are a whole number (12 digits or more), `check` names that
/// network (or one of its family), and judges it valid as `valid` says (without `valid`: valid
/// when it passes Luhn). At least 97 % of the whole numbers that test-card pages and card
/// libraries publish (`testNumberSources`) are named and judged as their sources do.
@Suite struct CrossCheckTests {
    struct Case: Decodable, CustomTestStringConvertible {
        var digits: String
        var network: String
        var sources: [String]
        var valid: Bool?
        var expect: String?
        var expectValid: Bool?
        /// Where cardline moves on to the expiry after this many digits on purpose (a length
        /// the sources give that cardline does not take for that BIN).
        var expectCutShortAt: Int?
        var why: String?
        /// The network cardline must give.
        var expected: String { expect ?? network }
        /// Whether cardline must find the whole number valid (nil: not judged).
        var expectedValid: Bool? { expectValid ?? valid }
        /// Where cardline answers otherwise than the sources, on purpose.
        var differs: Bool { expect != nil || expectValid != nil || expectCutShortAt != nil }
        var testDescription: String { "\(digits) → \(expected)" }
    }

    struct Table: Decodable {
        var sources: [String: String]
        /// The sources that publish whole numbers (test-card pages, libraries' tests), not
        /// prefixes or numbers made up from a table's ranges.
        var testNumberSources: [String]
        var cases: [Case]
    }

    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("crosscheck/prefixes.json").path
    }()

    /// The table; an unreadable file gives no cases, which `theTableHasCasesAndNamesItsSources` reports.
    static let table: Table? = FileManager.default.contents(atPath: path).flatMap {
        try? JSONDecoder().decode(Table.self, from: $0)
    }

    @Test func theTableHasCasesAndNamesItsSources() throws {
        let table = try #require(Self.table, "\(Self.path) is missing or not in the cross-check format")
        #expect(table.cases.count >= 10, "the cross-check table has only \(table.cases.count) cases")
        for item in table.cases {
            #expect(!item.sources.isEmpty, "\(item.digits) names no source")
            for source in item.sources {
                #expect(
                    table.sources[source] != nil, "\(item.digits): source `\(source)` is not described in `sources`")
            }
            #expect(
                !item.differs || item.why != nil,
                "\(item.digits): `expect`, `expectValid` or `expectCutShortAt` without `why`")
            #expect(
                item.expectValid == nil || item.valid != nil,
                "\(item.digits): `expectValid` without the sources' `valid`")
            #expect(
                !item.digits.isEmpty && item.digits.allSatisfy { $0.isASCII && $0.isNumber },
                "\(item.digits) is not digits")
        }
    }

    @Test func publishedNumbersAgreeWithTheirSources() throws {
        let table = try #require(Self.table)
        for source in table.testNumberSources {
            #expect(table.sources[source] != nil, "`\(source)` in testNumberSources is not described")
        }
        let published = table.cases.filter {
            $0.digits.count >= 12 && !Set($0.sources).isDisjoint(with: table.testNumberSources)
        }
        #expect(published.count >= 500, "only \(published.count) published whole numbers")
        let agreeing = published.filter { !$0.differs }.count
        #expect(
            agreeing * 100 >= published.count * 97,
            "\(agreeing) of \(published.count) published numbers agree with their sources")
    }

    /// Whether `id` is `expected` or a network of that family.
    static func names(_ set: RuleSet, _ id: String, as expected: String) -> Bool {
        id == expected || set.network(id: id)?.family == expected
    }

    @Test(arguments: table?.cases ?? [])
    func theBundledRulesTakeIt(item: Case) throws {
        let set = BundledRules.set
        let number = digits(item.digits)
        #expect(
            set.networks.contains { Self.names(set, $0.id, as: item.expected) },
            "cardline ships no network `\(item.expected)`")

        var engine = BundledRules.engine()
        for (typed, digit) in item.digits.enumerated() {
            if let cut = item.expectCutShortAt, typed == cut {
                #expect(engine.field == .expiry, "\(item.digits): still in the number after \(cut) digits")
                return
            }
            try #require(engine.field == .number, "\(item.digits): moved on to the expiry after \(typed) digits")
            let outcome = engine.handle(.character(digit))
            try #require(
                outcome.refusal?.text == nil,
                "\(item.digits): digit \(typed + 1) refused: \(outcome.refusal?.text ?? "")")
        }
        #expect(engine.numberDigits == number || engine.field != .number)

        // With the partners of a co-badged pattern that decides the digits.
        let candidates = set.candidates(number).map(\.id) + set.detect(number).coBadged.map(\.id)
        #expect(
            candidates.contains { Self.names(set, $0, as: item.expected) },
            "\(item.digits): candidates are \(candidates), not \(item.expected)")

        guard number.count >= 12 else { return }
        let record = Array((item.digits + ",12/30").utf8)
        let checker = CardCheck(rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        let result = checker.check(record.span)
        let found = result.networkIndex >= 0 ? set.networks[Int(result.networkIndex)].id : "none"
        // A co-badged card is a card of each of its networks (Dankort and Visa): a source
        // naming either agrees; `check` reports one of them.
        let cardNetworks = set.detect(number).networks.map(\.id)
        #expect(
            found == "none" || cardNetworks.contains(found),
            "\(item.digits): check says \(found), the card's networks are \(cardNetworks)")
        let named = cardNetworks.contains { Self.names(set, $0, as: item.expected) }
        #expect(named, "\(item.digits): check says \(found)")
        if let valid = item.expectedValid ?? (CardNumber.passesLuhn(number) ? true : nil) {
            #expect(
                result.valid == valid,
                "\(item.digits): check finds \(result.problems.map(\.rawValue)), not \(valid ? "valid" : "invalid")")
        }
    }
}

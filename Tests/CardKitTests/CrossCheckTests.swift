import CardKit
import Foundation
import Testing

/// `Tests/crosscheck/prefixes.json`: prefixes and numbers that public BIN tables assign to a
/// network cardline ships, each with the tables named. The bundled rules must never refuse
/// one, so that an edit that would turn away a real card fails `make test`.
///
/// Each case: `digits`, `network` (the id the named `sources` give), `sources`, and, where
/// cardline deliberately answers otherwise, `expect` (the id asserted instead) with `why`.
/// For every case, typing the digits one by one is never refused and stays in the number
/// field until the last digit, and the network is among the candidates for the digits. When
/// the digits are a whole number (12 digits or more, Luhn-valid), `check` finds it a valid
/// number of that network.
@Suite struct CrossCheckTests {
    struct Case: Decodable, CustomTestStringConvertible {
        var digits: String
        var network: String
        var sources: [String]
        var expect: String?
        var why: String?
        /// The network cardline must give.
        var expected: String { expect ?? network }
        var testDescription: String { "\(digits) → \(expected)" }
    }

    struct Table: Decodable {
        var sources: [String: String]
        var cases: [Case]
    }

    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("crosscheck/prefixes.json").path
    }()

    /// The table; an unreadable file gives no cases, which `theTableHasCasesAndNamesItsSources` reports.
    static let table: Table? = FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Table.self, from: $0) }

    @Test func theTableHasCasesAndNamesItsSources() throws {
        let table = try #require(Self.table, "\(Self.path) is missing or not in the cross-check format")
        #expect(table.cases.count >= 10, "the cross-check table has only \(table.cases.count) cases")
        for item in table.cases {
            #expect(!item.sources.isEmpty, "\(item.digits) names no source")
            for source in item.sources { #expect(table.sources[source] != nil, "\(item.digits): source `\(source)` is not described in `sources`") }
            #expect(item.expect == nil || item.why != nil, "\(item.digits): `expect` without `why`")
            #expect(!item.digits.isEmpty && item.digits.allSatisfy { $0.isASCII && $0.isNumber }, "\(item.digits) is not digits")
        }
    }

    @Test(arguments: table?.cases ?? [])
    func theBundledRulesTakeIt(item: Case) throws {
        let set = BundledRules.set
        let number = digits(item.digits)
        #expect(set.network(id: item.expected) != nil, "cardline ships no network `\(item.expected)`")

        var engine = BundledRules.engine()
        for (typed, digit) in item.digits.enumerated() {
            try #require(engine.field == .number, "\(item.digits): moved on to the expiry after \(typed) digits")
            let outcome = engine.handle(.character(digit))
            try #require(outcome.refusal == nil, "\(item.digits): digit \(typed + 1) refused: \(outcome.refusal ?? "")")
        }
        #expect(engine.numberDigits == number || engine.field != .number)

        let candidates = set.candidates(number).map(\.id)
        #expect(candidates.contains(item.expected), "\(item.digits): candidates are \(candidates), not \(item.expected)")

        guard number.count >= 12, CardNumber.passesLuhn(number) else { return }
        let record = Array((item.digits + ",12/30").utf8)
        let checker = CardCheck(rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
        let result = checker.check(record.span)
        let found = result.networkIndex >= 0 ? set.networks[Int(result.networkIndex)].id : "none"
        #expect(found == item.expected, "\(item.digits): check says \(found)")
        #expect(result.valid, "\(item.digits): check finds \(result.problems.map(\.rawValue))")
    }
}

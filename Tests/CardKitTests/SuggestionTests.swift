import CardKit
import Testing

/// "Did you mean": typos by edit distance, network names by their ids, badge names and
/// abbreviations (issue 26 item 4).
@Suite struct SuggestionTests {
    @Test(arguments: [
        ("chek", ["enter", "replay", "rules", "check"], "check"),
        ("lst", ["list", "show", "test", "lint", "sample"], "list"),
        ("vias", ["visa", "jcb"], "visa"),  // two letters swapped: one edit
        ("mastercad", ["visa", "mastercard"], "mastercard"),
        ("lenghts", ["lengths", "name"], "lengths"),
    ])
    func aTypoFindsWhatWasMeant(typed: String, candidates: [String], expected: String) {
        #expect(closest(to: typed, in: candidates) == expected)
    }

    /// Short words are not typos of other short words: `mc` is not `jcb`.
    @Test(arguments: [("mc", ["jcb", "mir", "elo"]), ("xyz", ["visa"]), ("chequer", ["check"])])
    func nothingCloseSuggestsNothing(typed: String, candidates: [String]) {
        #expect(closest(to: typed, in: candidates) == nil)
    }

    @Test(arguments: [
        ("mc", "mastercard"), ("MC", "mastercard"), ("vias", "visa"), ("dinners", "diners-club"),
        ("amx", "american-express"), ("dinners-club", "diners-club"), ("cup", "unionpay"),
    ])
    func aNetworkNameFindsItsNetwork(typed: String, id: String) {
        #expect(NetworkNames.suggestion(for: typed, among: BundledRules.set.networks) == id)
    }

    @Test func anAbbreviationOfANetworkNotLoadedSuggestsNothing() {
        let visaOnly = BundledRules.set.networks.filter { $0.id == "visa" }
        #expect(NetworkNames.suggestion(for: "mc", among: visaOnly) == nil)
    }

    /// `--networks mc` says `mastercard` (it said `jcb`): the message the command line prints.
    @Test func acceptedNetworksSuggestTheAbbreviatedNetwork() {
        do throws(AcceptedNetworks.UnknownNetwork) {
            _ = try AcceptedNetworks.parse("visa,mc", in: BundledRules.set)
            Issue.record("`mc` was taken")
        } catch {
            #expect(error.message == "unknown network `mc`; did you mean `mastercard`?")
        }
    }
}

/// Tables fitted to a width: `rules list` and `:rules` (issue 26 item 7).
@Suite struct TextTableTests {
    let rows = [
        ["ID", "NAME", "FILE"],
        ["american-express", "American Express International", "/a/long/folder/american-express.json"],
        ["visa", "Visa", "visa.json"],
    ]

    @Test func aTableThatFitsIsAlignedAndUncut() {
        let lines = TextTable(rows: rows, shrinking: [1, 2]).lines(fitting: 200)
        #expect(lines[1] == "american-express  American Express International  /a/long/folder/american-express.json")
        #expect(lines[2] == "visa              Visa                            visa.json")
    }

    @Test(arguments: [40, 50, 60, 80])
    func aWideTableIsCutToTheWidthButNeverItsIds(width: Int) {
        var table = TextTable(rows: rows, shrinking: [1, 2])
        table.cutAtStart = [2]
        let lines = table.lines(fitting: width)
        #expect(lines.allSatisfy { $0.unicodeScalars.count <= width }, "\(lines)")
        #expect(lines[1].hasPrefix("american-express  "))
        // Columns stay aligned: the files start in the same column.
        let starts = lines.map { $0.unicodeScalars.count - ($0.split(separator: " ").last?.unicodeScalars.count ?? 0) }
        #expect(Set(starts).count == 1, "\(lines)")
        // A cut file keeps its end (the file's name), marked at its start.
        #expect(lines[1].hasSuffix(".json") && lines[1].contains("…"), "\(lines)")
    }

    /// `:rules` fits the terminal it is asked on (the prompt keeps `columns` current), with or
    /// without the accepted column.
    @Test(arguments: [40, 60, 80, 132])
    func theRulesCommandFitsTheTerminal(columns: Int) throws {
        var engine = BundledRules.engine()
        if columns == 60 {
            engine = EntryEngine(
                rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(iso: "2026-11")!),
                acceptedNetworks: try AcceptedNetworks.parse("visa,mastercard,amex", in: BundledRules.set))
        }
        engine.columns = columns
        let lines = engine.handle(Key.typing(":rules") + [.enter]).last!.messages.filter { $0.kind == .info }.map(
            \.text)
        // (80 at most on a wider terminal, as every message line.)
        #expect(
            lines.allSatisfy { $0.unicodeScalars.count < min(columns, 80) },
            "\(lines.filter { $0.unicodeScalars.count >= min(columns, 80) })")
        let rows = lines.filter { line in BundledRules.set.networks.contains { line.hasPrefix($0.id + " ") } }
        #expect(rows.count == BundledRules.set.networks.count)
        #expect(rows.contains { $0.hasPrefix("nps-pridnestrovie ") })
        #expect(columns != 60 || rows.contains { $0.hasPrefix("visa ") && $0.hasSuffix("  accepted") }, "\(rows)")
        // Aligned: every name starts in the same column.
        let nameColumn = rows.map { line in
            let id = line.prefix { $0 != " " }
            return id.count + line.dropFirst(id.count).prefix { $0 == " " }.count
        }
        #expect(Set(nameColumn).count == 1)
    }
}

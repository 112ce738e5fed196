import CardKit
import Testing

@Suite struct RuleSetTests {
    @Test func shipsAtLeastTwentyNetworksEachCitingASource() throws {
        #expect(BundledRules.set.networks.count >= 20)
        for file in BundledRules.files {
            let text = String(decoding: file.bytes, as: UTF8.self)
            #expect(text.contains("\"source\""), "\(file.path) has no source")
        }
        let ids = Set(BundledRules.set.networks.map(\.id))
        for id in [
            "visa", "mastercard", "american-express", "discover", "jcb", "diners-club", "unionpay",
            "maestro", "mir", "elo", "hipercard", "hiper", "troy", "verve", "rupay", "naranja",
            "dankort", "uatp",
        ] {
            #expect(ids.contains(id), "missing \(id)")
        }
        #expect(BundledRules.set.network(id: "unionpay")?.luhn == false)
    }

    /// One complete number per network: the most specific pattern decides.
    @Test(arguments: [
        ("4111111111111111", "visa"), ("4012888888881881", "visa"), ("5555555555554444", "mastercard"),
        ("2223003122003222", "mastercard"), ("378282246310005", "american-express"),
        ("371449635398431", "american-express"),
        ("6011111111111117", "discover"), ("6445644564456445", "discover"), ("6500000000000002", "discover"),
        ("3530111333300000", "jcb"), ("36227206271667", "diners-club"), ("30569309025904", "diners-club"),
        ("6200000000000005", "unionpay"), ("8100000000000000", "unionpay"), ("6759649826438453", "maestro"),
        ("5018000000000009", "maestro"), ("2200000000000004", "mir"), ("4011780000000000", "elo"),
        ("6362970000457013", "elo"), ("5090000000000000", "elo"), ("6062826786276634", "hipercard"),
        ("6370950000000005", "hiper"), ("6373742300000000", "hiper"), ("9792000000000000", "troy"),
        ("5060990580000217", "verve"), ("6521500000000000", "rupay"), ("8172000000000000", "rupay"),
        ("5895620000000000", "naranja"), ("5019717010103742", "dankort"), ("122000000000003", "uatp"),
        ("6360000000000000", "interpayment"), ("6380000000000000", "instapayment"), ("3571110000000000", "lankapay"),
        ("2205000000000000", "borica"), ("9860000000000000", "humo"), ("8600000000000000", "uzcard"),
        ("6040010000000000", "ukrcard"),
    ])
    func detectsCompleteNumbers(number: String, network: String) {
        let detection = BundledRules.set.detect(digits(number))
        #expect(detection.network?.id == network)
        #expect(BundledRules.set.candidates(digits(number)).map(\.id) == [network])
    }

    /// Partial numbers: the networks still possible, in load order, and the decided one if any.
    @Test(arguments: [
        ("", nil as String?, 59),  // the active bundled networks; retired ones are not matched
        ("3", nil, 6),  // american-express, china-t-union, diners-club, jcb, hipercard (384100), lankapay (357111)
        ("37", "american-express", 1),
        // visa, and elo's, maestro's (493698), visa-electron's, v-pay's (401325) 4xxxxx patterns, and the co-badged ones of bancontact, cartes-bancaires, dankort, eftpos and mada
        ("4", nil, 10),
        ("41", nil, 4),  // visa, visa-electron (417500), eftpos's and mada's co-badged 41xxxx
        ("4242", "visa", 1),
        ("5", nil, 0),
        ("2", nil, 5),  // borica, carnet (286900), jcb (2131), mastercard, mir
        ("22", nil, 3),
        ("2221", "mastercard", 1),
        ("6011", "discover", 1),
        ("65", nil, 6),  // cabal (65008700 ...), discover, elo, rupay, troy (650052 ...), verve
    ])
    func detectsPartialNumbers(prefix: String, network: String?, candidates: Int) {
        let detection = BundledRules.set.detect(digits(prefix))
        let found = BundledRules.set.candidates(digits(prefix))
        #expect(detection.network?.id == network)
        if candidates > 0 { #expect(found.count == candidates, "\(found.map(\.id))") }
        #expect(!found.isEmpty && detection.hasCandidates)
    }

    @Test(arguments: ["0", "72", "99", "1" + "x"].filter { !$0.contains("x") })
    func nothingStartsWith(prefix: String) {
        #expect(BundledRules.set.candidates(digits(prefix)).isEmpty)
        #expect(!BundledRules.set.detect(digits(prefix)).hasCandidates)
    }

    @Test func partialRangeMatching() throws {
        let range = try #require(IINPattern(low: "2221", high: "2720"))
        #expect(range.match(digits("2")) == .partial)
        #expect(range.match(digits("22")) == .partial)
        #expect(range.match(digits("222")) == .partial)
        #expect(range.match(digits("220")) == .none)
        #expect(range.match(digits("273")) == .none)
        #expect(range.match(digits("2720")) == .full)
        #expect(range.match(digits("27201234")) == .full)
        #expect(range.match(digits("2721")) == .none)
        #expect(IINPattern(low: "30", high: "2") == nil)
        #expect(IINPattern(low: "5", high: "1") == nil)
        #expect(IINPattern(prefix: "4a") == nil)
    }

    @Test func laterFolderOverridesByID() throws {
        let custom = RuleSet.FileText(
            path: "mine/visa.json",
            bytes: Array(
                """
                {"id": "visa", "name": "Visa Test", "prefixes": ["4"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}
                """.utf8))
        let set = try RuleSet.load(folders: [BundledRules.files, [custom]])
        #expect(set.networks.count == BundledRules.set.networks.count)
        #expect(set.network(id: "visa")?.name == "Visa Test")
        #expect(set.network(id: "visa")?.file == "mine/visa.json")
    }

    @Test func aDisablingFileRemovesTheNetworkFromEarlierFolders() throws {
        let disable = RuleSet.FileText(
            path: "mine/no-maestro.json", bytes: Array(#"{"id": "maestro", "disabled": true}"#.utf8))
        let set = try RuleSet.load(folders: [BundledRules.files, [disable]])
        #expect(set.network(id: "maestro") == nil)
        #expect(set.networks.count == BundledRules.set.networks.count - 1)
        #expect(set.detect(digits("6759649826438453")).network == nil, "a Maestro number no longer matches")
        // Disabling comes before a later definition: the later folder brings it back.
        let again = RuleSet.FileText(
            path: "later/maestro.json", bytes: BundledRules.files.first { $0.path.hasSuffix("/maestro.json") }!.bytes)
        #expect(
            try RuleSet.load(folders: [BundledRules.files, [disable], [again]]).network(id: "maestro")?.file
                == "later/maestro.json")
        // Disabling a network no folder defines is worth a warning, not an error.
        let stray = RuleSet.FileText(
            path: "mine/no-such.json", bytes: Array(#"{"id": "no-such", "disabled": true}"#.utf8))
        #expect(
            try RuleSet.load(folders: [[stray]]).warnings.map(\.description)
                == ["mine/no-such.json:1:8: warning: disables `no-such`, which no earlier rule folder defines"])
    }

    @Test func tiesBetweenNetworksAreErrors() {
        let file = RuleSet.FileText(
            path: "mine/copycat.json",
            bytes: Array(
                """
                {"id": "copycat", "name": "Copycat", "prefixes": ["37"], "lengths": [15], "cvv": {"name": "CVV", "length": 3}}
                """.utf8))
        #expect(throws: RuleErrors.self) { try RuleSet.load(folders: [BundledRules.files, [file]]) }
        do {
            _ = try RuleSet.load(folders: [BundledRules.files, [file]])
        } catch {
            #expect(
                error.description
                    == "mine/copycat.json:1:51: error: pattern 37 of `copycat` ties with pattern 37 of `american-express` (rules/american-express.json:6:22); make one of them more specific"
            )
        }
    }
}

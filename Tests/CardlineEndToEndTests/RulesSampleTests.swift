import Foundation
import Testing

/// `rules sample`, the reachability proof of `rules test` with no number, `lengthsFor` seen
/// through `check`, and `--retired`, run through the real binary on fixture rule folders.
@Suite struct RulesSampleTests {
    let home = TemporaryHome()

    func cardline(_ arguments: [String], input: String = "") throws -> (
        status: Int32, output: String, errors: String, timedOut: Bool
    ) {
        try runPiped(arguments, input: input, environment: home.environment)
    }

    /// Visa with 13 digits only under 4026; a retired Switch under Visa's `4`.
    func fixture() throws -> String {
        let folder = home.path + "/fixture"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        {"id": "visa", "name": "Visa", "logo": "VISA", "prefixes": ["4"], "lengths": [16, 19], "autoAdvance": [16],
         "lengthsFor": [{"prefixes": ["4026"], "lengths": [13, 16, 19]}], "cvv": {"name": "CVV", "length": 3}}

        """.write(toFile: folder + "/visa.json", atomically: true, encoding: .utf8)
        try """
        {"id": "switch", "name": "Switch", "status": "retired", "prefixes": ["4903"], "lengths": [16, 18, 19],
         "cvv": {"name": "CVV", "length": 3}}

        """.write(toFile: folder + "/switch.json", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func sampleIsDeterministicDigitsOnlyAndChecksAsTheNetwork() throws {
        let first = try cardline(["rules", "sample", "mastercard", "--count", "6", "--seed", "3"])
        #expect(first.status == 0)
        let lines = first.output.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.allSatisfy { $0.allSatisfy(\.isNumber) && $0.count == 16 })
        #expect(try cardline(["rules", "sample", "mastercard", "--count", "6", "--seed", "3"]).output == first.output)
        #expect(try cardline(["rules", "sample", "mastercard", "--count", "6", "--seed", "4"]).output != first.output)
        let check = try cardline(["check", "--today", "2026-11"], input: first.output)
        #expect(check.status == 0, "\(check.output)")
        #expect(
            check.output.split(separator: "\n").filter { $0.contains(#""network":"mastercard","valid":true"#) }.count
                == 6)
    }

    /// Issue 22: every active bundled network (the new meal, fleet, private-label and domestic
    /// ones too) yields one number per pattern, each a valid number that `rules test` says that
    /// network decides (a co-badged pattern's numbers too: the domestic network decides them).
    @Test func sampleCoversEveryBundledNetwork() throws {
        let list = try cardline(["rules", "list", "--json"])
        let networks = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        let active = networks.filter { $0["status"] as? String == "active" }
        #expect(active.count >= 45, "only \(active.count) active bundled networks")
        for network in active {
            let id = try #require(network["id"] as? String)
            let patterns = try #require(network["patterns"] as? [String])
            let sample = try cardline(["rules", "sample", id, "--count", String(patterns.count)])
            #expect(sample.status == 0, "\(id): \(sample.errors)")
            let numbers = sample.output.split(separator: "\n").map(String.init)
            #expect(
                numbers.count == patterns.count && numbers.allSatisfy { $0.allSatisfy(\.isNumber) },
                "\(id): \(sample.output)")
            let test = try cardline(["rules", "test"] + numbers)
            #expect(test.status == 0, "\(id): \(test.output)")
            let decided = test.output.split(separator: "\n").filter { $0.hasPrefix("  network:") }
            #expect(
                decided.count == numbers.count && decided.allSatisfy { $0.hasPrefix("  network:   \(id) (") },
                "\(id): \(decided)")
        }
    }

    @Test func sampleRefusesAnUnknownNetworkAndABadCount() throws {
        let unknown = try cardline(["rules", "sample", "vias"])
        #expect(unknown.status == 1)
        #expect(
            unknown.errors == "cardline: error: no network has the id `vias`\ncardline: hint: did you mean `visa`?\n")
        #expect(unknown.output.isEmpty)
        let zero = try cardline(["rules", "sample", "visa", "--count", "0"])
        #expect(zero.status == 64)
        #expect(zero.errors.contains("--count takes a number from 1 to 1000000; got 0"))
        // Issue 39: a negative count is a count refused, not a missing value.
        let negative = try cardline(["rules", "sample", "visa", "--count", "-1"])
        #expect(negative.status == 64)
        #expect(negative.errors.hasPrefix("cardline: error: --count takes a number from 1 to 1000000; got -1\n"))
    }

    @Test func checkGivesThirteenDigitsOnlyInsideTheirRange() throws {
        let folder = try fixture()
        // 4026 0000 0000 1 and 4111 1111 1111 3: both Luhn-valid, 13 digits.
        let run = try cardline(
            ["check", "--today", "2026-11", "--no-default-rules", "--rules", folder],
            input: "4026000000001\n4111111111113\n")
        #expect(run.status == 1)
        #expect(
            run.output.contains(#"{"line":1,"network":"visa","valid":true,"number":"402600***0001","errors":[]}"#),
            "\(run.output)")
        #expect(
            run.output.contains(
                #"{"line":2,"network":"visa","valid":false,"number":"411111***1113","errors":["length"]}"#),
            "\(run.output)")
    }

    @Test func retiredNetworksAreListedButMatchedOnlyWithRetired() throws {
        let folder = try fixture()
        let list = try cardline(["rules", "list", "--no-default-rules", "--rules", folder])
        #expect(list.output.contains("retired (matched only with --retired):\nswitch "), "\(list.output)")
        let number = "4903000000000008\n"
        let plain = try cardline(
            ["check", "--today", "2026-11", "--no-default-rules", "--rules", folder], input: number)
        #expect(plain.output.contains(#""network":"visa""#), "\(plain.output)")
        let opted = try cardline(
            ["check", "--today", "2026-11", "--retired", "--no-default-rules", "--rules", folder], input: number)
        #expect(opted.output.contains(#""network":"switch""#), "\(opted.output)")
        // Sampling a retired network works without --retired.
        let sample = try cardline([
            "rules", "sample", "switch", "--count", "2", "--no-default-rules", "--rules", folder,
        ])
        #expect(sample.status == 0)
        #expect(sample.output.split(separator: "\n").allSatisfy { $0.hasPrefix("4903") })
    }

    /// The bundled retired networks share prefixes with Maestro (Laser's 6304, Switch's 6759):
    /// with --retired they win those, instead of the rules failing to load.
    @Test func bundledRetiredNetworksLoadWithRetired() throws {
        let laser = try cardline(["rules", "sample", "laser", "--count", "4"])
        #expect(laser.status == 0, "\(laser.errors)")
        #expect(laser.output.split(separator: "\n").count == 4)
        let number = try #require(laser.output.split(separator: "\n").first { $0.hasPrefix("6304") })
        let opted = try cardline(["check", "--today", "2026-11", "--retired"], input: number + "\n")
        #expect(opted.status == 0, "\(opted.errors)")
        #expect(opted.output.contains(#""network":"laser""#), "\(opted.output)")
        let plain = try cardline(["check", "--today", "2026-11"], input: number + "\n")
        #expect(plain.output.contains(#""network":"maestro""#), "\(plain.output)")
    }

    @Test func testWithNoNumberProvesEveryPatternReachable() throws {
        let bundled = try cardline(["rules", "test"])
        #expect(bundled.status == 0, "\(bundled.output)")
        let summary = try #require(bundled.output.split(separator: "\n").last)
        let words = summary.split(separator: " ")
        #expect(words.count > 3 && words[0] == words[2] && Int(words[0])! > 25, "every pattern reachable: \(summary)")
        // A pattern of our own that more specific patterns of another network cover.
        let folder = home.path + "/shadow"
        try writeTestNetwork(to: folder, id: "broad", prefix: "70")
        try writeTestNetwork(to: folder, id: "narrow", prefix: "700", extra: #", "ranges": [["701", "709"]]"#)
        let shadowed = try cardline(["rules", "test", "--no-default-rules", "--rules", folder])
        #expect(shadowed.status == 1)
        #expect(shadowed.errors.contains("warning: network `broad` can never be detected"), "\(shadowed.errors)")
        #expect(
            shadowed.output.contains(
                "\(folder)/broad.json:1:68: warning: pattern 70 of `broad` can never decide a number"),
            "\(shadowed.output)")
        #expect(shadowed.output.hasSuffix("2 of 3 patterns of 2 networks yield a valid number of their network\n"))
        let lint = try cardline(["rules", "lint", "--no-default-rules", folder])
        #expect(lint.status == 0, "warnings only")
    }
}

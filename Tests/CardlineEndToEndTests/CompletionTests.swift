import CardKit
import Foundation
import Testing

/// What tab completion gets from cardline itself (`cardline ---completion …`, the call the
/// bash, zsh and fish scripts make for a value; Sources/cardline/Completions.swift): network
/// ids from the rules the command line would load. Tests/install-check.sh drives the installed
/// scripts in the shells themselves.
@Suite struct CompletionTests {
    let home = TemporaryHome()

    /// The candidates for the last of `words` (typed after `cardline`), as the shells ask for a
    /// value of `option` of `command` (`enter`, `rules show`).
    func candidates(_ command: [String], _ option: String, _ words: [String]) throws -> [String] {
        let line = ["cardline"] + words
        let arguments =
            ["---completion"] + command + ["--", option, String(line.count - 1), String(line.last!.count)] + line
        let run = try runPiped(arguments, input: "", environment: home.environment)
        #expect(run.status == 0, "\(run.errors)")
        return run.output.split(separator: "\n").map(String.init)
    }

    func writeRule(_ id: String, prefix: String, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        {"id": "\(id)", "name": "\(id)", "prefixes": ["\(prefix)"], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}
        """.write(toFile: folder + "/\(id).json", atomically: true, encoding: .utf8)
    }

    @Test func networksOffersTheIdsStartingWithTheLastItemOfTheList() throws {
        #expect(try candidates(["enter"], "--networks", ["--networks", "vi"]) == ["visa", "visa-electron"])
        #expect(
            try candidates(["enter"], "--networks", ["--networks", "mastercard,vi"]) == [
                "mastercard,visa", "mastercard,visa-electron",
            ])
        // An id already in the list is not offered again; an empty last item offers the rest.
        let rest = try candidates(["check"], "--networks", ["--networks", "visa,"])
        #expect(rest.count > 30 && rest.allSatisfy { $0.hasPrefix("visa,") } && !rest.contains("visa,visa"))
        #expect(rest.contains("visa,american-express"))
        // Retired networks are not matched without --retired, so --networks does not offer them.
        #expect(try candidates(["enter"], "--networks", ["--networks", "las"]) == [])
        #expect(try candidates(["enter"], "--networks", ["--retired", "--networks", "las"]) == ["laser"])
    }

    /// Issue 39: `--postal-code <Tab>` offers the countries with a postal-code format.
    @Test func postalCodeOffersTheCountries() throws {
        let all = try candidates(["enter"], "--postal-code", ["--postal-code", ""])
        #expect(all == PostalCodeFormats.bundled.countries && all.contains("GB"), "\(all)")
        #expect(try candidates(["enter"], "--postal-code", ["--postal-code", "G"]) == ["GB"])
        #expect(try candidates(["enter"], "--postal-code", ["--postal-code", "n"]) == ["nl"])
    }

    @Test func networksOffersTheUsersOwnRulesAndThoseOfRulesOnTheCommandLine() throws {
        try writeRule("acme-pay", prefix: "880", in: home.path + "/config/cardline/rules")
        #expect(try candidates(["enter"], "--networks", ["--networks", "acme"]) == ["acme-pay"])
        try writeRule("zeta-card", prefix: "881", in: home.path + "/more rules")
        #expect(
            try candidates(["enter"], "--networks", ["--rules", "'\(home.path)/more rules'", "--networks", "zet"]) == [
                "zeta-card"
            ])
        #expect(
            try candidates(["enter"], "--networks", ["--rules=\(home.path)/more\\ rules", "--networks", "zet"]) == [
                "zeta-card"
            ])
        // --no-default-rules leaves the bundled networks out, as the command would.
        #expect(
            try candidates(
                ["enter"], "--networks", ["--no-default-rules", "--rules", home.path + "/more rules", "--networks", ""])
                == ["acme-pay", "zeta-card"])
    }

    @Test func brokenRulesStillLeaveTheBundledIds() throws {
        let folder = home.path + "/config/cardline/rules"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "{\"id\": \"broken\",\n".write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        #expect(try candidates(["enter"], "--networks", ["--networks", "americ"]) == ["american-express"])
    }

    @Test func rulesShowAndSampleOfferEveryNetworkRetiredToo() throws {
        #expect(
            try candidates(["rules", "show"], "positional@0", ["rules", "show", "american-"]) == ["american-express"])
        #expect(try candidates(["rules", "sample"], "positional@0", ["rules", "sample", "las"]) == ["laser"])
    }
}

import Foundation
import Testing

/// `cardline rules diff`: exit status as diff(1), the README walkthrough's Acme Pay file, and
/// what a bad or missing folder gives.
@Suite struct RulesDiffTests {
    let home = TemporaryHome()

    func diff(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let run = try runPiped(["rules", "diff"] + arguments, input: "", environment: home.environment)
        return (run.status, run.output, run.errors)
    }

    @Test func anEmptyFolderChangesNothingAndExitsZero() throws {
        let empty = home.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let run = try diff(["--bundled", empty])
        #expect(run.status == 0)
        #expect(run.output == "no difference\n")
        #expect(try diff([empty, empty]).status == 0)
    }

    @Test func theAcmePayFileShowsTheStretchItTakesFromUnionPay() throws {
        let mine = home.path + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        try #"""
        {"id": "acme-pay", "name": "Acme Pay", "logo": "ACME", "ranges": [["880000", "880999"]], "lengths": [16],
         "luhn": false, "cvv": {"name": "TSC", "length": 3}}
        """#.write(toFile: mine + "/acme-pay.json", atomically: true, encoding: .utf8)
        let run = try diff(["--bundled", mine])
        #expect(run.status == 1, "\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("added: acme-pay") == true, "\(lines)")
        // UnionPay's 880000-880999 goes to the new network: one stretch, merged, written short.
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("880: unionpay (") && $0.contains("→ acme-pay (16; no Luhn; TSC 3") })
        let json = try diff(["--bundled", mine, "--json"])
        #expect(json.status == 1)
        let records = json.output.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == lines.count && records.allSatisfy { $0 != nil })
        #expect(records.contains { ($0?["after"] as? [String: Any])?["network"] as? String == "acme-pay" })
    }

    @Test func badFoldersAndArgumentsHaveTheirStatus() throws {
        #expect(try diff([home.path + "/missing", home.path + "/missing"]).status == 66)
        let broken = home.path + "/broken"
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        try "{\"id\": ".write(toFile: broken + "/bad.json", atomically: true, encoding: .utf8)
        let run = try diff(["--bundled", broken])
        #expect(run.status == 65)
        #expect(run.errors.contains("bad.json:1:"))
        #expect(try diff([broken]).status == 64)
    }
}

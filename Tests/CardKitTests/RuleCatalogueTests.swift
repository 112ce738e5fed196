import CardKit
import Foundation
import Testing

/// `Tests/RuleCatalogue/`: one folder per broken rule set, holding the rule files and
/// `expected.txt`, every message the loader must print for it, exactly.
@Suite struct RuleCatalogueTests {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("RuleCatalogue").path
    }()

    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()

    @Test func catalogueHasAtLeastThirtyCases() {
        #expect(Self.cases.count >= 30)
    }

    @Test(arguments: cases)
    func loaderPrintsExactlyTheExpectedMessages(name: String) throws {
        let folder = Self.root + "/" + name
        let label = "RuleCatalogue/" + name
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
            .sorted().map {
                RuleSet.FileText(
                    path: label + "/" + $0, bytes: [UInt8](FileManager.default.contents(atPath: folder + "/" + $0)!))
            }
        #expect(!files.isEmpty)
        let expected = try String(contentsOfFile: folder + "/expected.txt", encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.replacingOccurrences(of: "{dir}", with: label) }
        #expect(!expected.isEmpty)
        let actual: [String]
        do {
            actual = try RuleSet.load(folders: [files]).warnings.map(\.description)
        } catch {
            actual = error.errors.map(\.description)
            #expect(error.errors.contains { $0.severity == .error })
        }
        #expect(actual == expected)
    }
}

import CardPrompt
import Foundation
import Testing

/// The rule files compiled into CardPrompt (Sources/CardPrompt/Sources/BundledRuleFiles.swift, written by
/// rules/bundle.py) are rules/*.json byte for byte, as the compiler reads the string literals,
/// and a program that is not installed reads them, named `<bundled>/…`.
@Suite struct CompiledInRulesTests {
    static let rulesFolder: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("rules").path
    }()

    @Test func compiledInFilesAreTheRuleFilesExactly() throws {
        let compiled = try RuleSources.read(folder: RuleSources.compiledIn)
        let files = try RuleSources.read(folder: Self.rulesFolder)
        #expect(compiled.count == files.count && files.count > 30)
        for (inside, onDisk) in zip(compiled, files) {
            #expect(inside.path == "<bundled>/" + (onDisk.path as NSString).lastPathComponent)
            #expect(inside.bytes == onDisk.bytes, "\(inside.path) differs from \(onDisk.path): run `make rules`")
        }
    }

    /// This test runner is not installed (no rules beside it or in ../share/cardline/rules):
    /// the bundled source is the compiled-in copy, and it loads.
    @Test func aProgramThatIsNotInstalledReadsTheCompiledInCopy() throws {
        let folders = RuleSources.folders(bundled: true, extra: [], personal: false)
        #expect(folders == [RuleSources.compiledIn])
        let rules = try RuleSources.load(folders: folders)
        #expect(rules.networks.contains { $0.id == "visa" })
    }
}

import CardPrompt
import Foundation
import Testing

/// `RuleSources.read(folder:)` reads rule files straight into bytes (`Paths.contents(of:)`,
/// open/fstat/read): every `*.json` but `schema.json`, sorted by name, each byte for byte
/// however large; a `.json` that cannot be read is named in the error.
@Suite struct RuleFolderReadingTests {
    /// A new empty folder under the temporary folder.
    func makeFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "cardline-rule-read-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func readsEveryRuleFileWholeInNameOrder() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Larger than one 64 KiB read, and with every byte value, so a short or partial read shows.
        let large = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let small = Array("{\"id\": \"b\"}\n".utf8)
        try Data(large).write(to: URL(fileURLWithPath: folder + "/b.json"))
        try Data(small).write(to: URL(fileURLWithPath: folder + "/a.json"))
        try Data().write(to: URL(fileURLWithPath: folder + "/c.json"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/schema.json"))
        try Data("not a rule".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

        // With and without a trailing slash, the same paths.
        for given in [folder, folder + "/"] {
            let files = try RuleSources.read(folder: given)
            #expect(files.map(\.path) == [folder + "/a.json", folder + "/b.json", folder + "/c.json"])
            #expect(files.map(\.bytes) == [small, large, []])
        }
    }

    @Test func aRuleFileThatCannotBeReadIsNamed() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/a.json"))
        // A folder named like a rule file: it opens, but read(2) refuses it (EISDIR).
        try FileManager.default.createDirectory(atPath: folder + "/b.json", withIntermediateDirectories: false)
        #expect(throws: RuleSources.UnreadableFolder.self) { try RuleSources.read(folder: folder) }
        do {
            _ = try RuleSources.read(folder: folder)
        } catch {
            #expect(error.path == folder + "/b.json")
            #expect(error.reason == "the file cannot be read")
        }
        #expect(Paths.contents(of: folder + "/no-such.json") == nil)
        #expect(Paths.contents(of: folder + "/a.json") == Array("{}".utf8))
    }
}

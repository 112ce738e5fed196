import CardKit
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
            #expect(error.reason == "it is a folder")
        }
        #expect(throws: Paths.Unreadable(reason: "No such file or directory")) {
            try Paths.contents(of: folder + "/no-such.json", limit: 100)
        }
        #expect(try Paths.contents(of: folder + "/a.json", limit: 100) == Array("{}".utf8))
    }

    /// A file whose size fstat does not know (a /proc file says 0) is read to its end, not
    /// cut at the size said: only a regular file that gave exactly its size ends without a
    /// last empty read.
    @Test func aFileOfUnknownSizeIsReadToItsEnd() throws {
        let status = try Paths.contents(of: "/proc/self/status", limit: 1 << 20)
        let text = String(decoding: status, as: UTF8.self)
        #expect(text.hasPrefix("Name:"))
        #expect(text.contains("\nVmRSS:") || text.contains("\nThreads:"))
        #expect(text.hasSuffix("\n"))
    }

    /// `count` rule files in a new folder, `bank-000.json` …: bank `n` has the 100-number
    /// blocks 30000000 + 100 × (n + k × count) for k in 0..<5, each to a high end within it.
    /// `broken` files name no lengths (an error), `tied` ones take bank 0's first block (a tie
    /// between networks, found only when the files are put together).
    func makeBankFolder(_ count: Int, broken: Set<Int> = [], tied: Set<Int> = []) throws -> String {
        let folder = try makeFolder()
        for n in 0..<count {
            var ranges = (0..<5).map { k -> String in
                let low = 30_000_000 + 100 * (n + k * count)
                return "[\"\(low)\", \"\(low + (n * 7 + k) % 100)\"]"
            }
            if tied.contains(n) { ranges.append("[\"30000000\", \"30000000\"]") }
            let lengths = broken.contains(n) ? "" : "\"lengths\": [16],\n"
            let text =
                "{\n  \"id\": \"bank-\(n)\",\n  \"name\": \"Bank \(n)\",\n  \"ranges\": [\n    \(ranges.joined(separator: ",\n    "))\n  ],\n  \(lengths)  \"cvv\": {\"name\": \"CVV\", \"length\": 3}\n}\n"
            try Data(text.utf8).write(
                to: URL(fileURLWithPath: folder + "/bank-" + String(1000 + n).dropFirst() + ".json"))
        }
        return folder
    }

    /// A folder whose files are each decoded as they are read (`RuleSources.load`) gives the
    /// same rule set as reading them all and then loading them (`RuleSet.load(folders:)`): the
    /// same networks in the same order, the same warnings, the same detections; and with wrong
    /// files, the same errors in the same order.
    @Test func filesDecodedAsTheyAreReadLoadAsWhenReadFirst() throws {
        let count = 193
        let good = try makeBankFolder(count)
        defer { try? FileManager.default.removeItem(atPath: good) }
        let threaded = try RuleSources.load(folders: [good])
        let serial = try RuleSet.load(folders: [RuleSources.read(folder: good)])
        #expect(threaded.networks.count == count)
        #expect(threaded.networks.map(\.id) == serial.networks.map(\.id))
        #expect(threaded.networks == serial.networks)
        #expect(threaded.warnings == serial.warnings)
        for n in [0, 1, count / 2, count - 1] {
            for k in 0..<5 {
                let low = 30_000_000 + 100 * (n + k * count)
                for probe in [low, low + (n * 7 + k) % 100, low + 99] {
                    let digits = String(probe).utf8.map { $0 - 48 }
                    #expect(threaded.detect(digits) == serial.detect(digits))
                }
                #expect(threaded.detect(String(low).utf8.map { $0 - 48 }).network?.id == "bank-\(n)")
            }
        }

        let wrong = try makeBankFolder(count, broken: [3, count - 2], tied: [count / 2])
        defer { try? FileManager.default.removeItem(atPath: wrong) }
        var threadedErrors: RuleErrors?
        var serialErrors: RuleErrors?
        do { _ = try RuleSources.load(folders: [wrong]) } catch { threadedErrors = error.ruleErrors }
        let wrongTexts = try RuleSources.read(folder: wrong)
        do { _ = try RuleSet.load(folders: [wrongTexts]) } catch { serialErrors = error }
        #expect(threadedErrors != nil)
        #expect(threadedErrors?.errors.count == 3)
        #expect(threadedErrors == serialErrors)
    }

    /// Among many files, the first that cannot be read in name order is the one named, as when
    /// they are all read first.
    @Test func manyFilesNameTheFirstUnreadableOne() throws {
        let count = 193
        let folder = try makeBankFolder(count)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        for index in [count - 1, count / 2, 5] {  // each earlier than the one before
            try FileManager.default.removeItem(atPath: folder + "/" + names[index])
            try FileManager.default.createDirectory(
                atPath: folder + "/" + names[index], withIntermediateDirectories: false)
            do {
                _ = try RuleSources.load(folders: [folder])
                Issue.record("a folder with an unreadable file loaded")
            } catch {
                // (The folder's random name may hold a run of digits, which messages mask.)
                #expect(error.description.hasPrefix("cardline: error: cannot read rule file "))
                #expect(error.description.hasSuffix("/\(names[index]): it is a folder"))
            }
        }
    }
}

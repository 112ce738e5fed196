import CardKit
import Foundation

/// The repository's `rules/` folder, loaded once for the tests.
enum BundledRules {
    static let folder: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("rules").path
    }()

    static let files: [RuleSet.FileText] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted().map {
            RuleSet.FileText(path: "rules/" + $0, bytes: [UInt8](FileManager.default.contents(atPath: folder + "/" + $0)!))
        }
    }()

    static let set: RuleSet = try! RuleSet.load(folders: [files])

    static func engine(today: String = "2026-11") -> EntryEngine {
        EntryEngine(rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(iso: today)!))
    }
}

func digits(_ text: String) -> [UInt8] { text.compactMap { $0.wholeNumberValue.map(UInt8.init) } }

extension EntryEngine {
    /// Types text key by key and returns the outcomes.
    @discardableResult
    mutating func type(_ text: String) -> [Outcome] { handle(Key.typing(text)) }
}

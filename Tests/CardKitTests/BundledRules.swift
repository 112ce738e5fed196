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

extension EntryEngine {
    /// A random key as a person might press it while entering cards (`ExtendViewTests`,
    /// `NextDigitTests`): most often the next digit of one of `samples` (sample numbers), else
    /// a stray digit, a deletion, Ctrl-N, Ctrl-U, a `:`, Enter, a space or Ctrl-C.
    func randomKey(samples: [[UInt8]], using random: inout SeededRandom) -> Key {
        switch random.next() % 20 {
        case 0: return .backspace
        case 1: return .nextNetwork
        case 2: return .clearLine
        case 3: return .character(":")
        case 4: return .enter
        case 5: return .character(" ")
        case 6: return .cancel
        case 7, 8, 9: return .character(Character(Unicode.Scalar(UInt8(48 + random.next() % 10))))
        default:
            // The next digit of a sample number, as a person types one.
            let sample = samples[Int(random.next() % UInt64(samples.count))]
            let typed = numberDigits
            if field == .number, typed.count < sample.count, Array(sample.prefix(typed.count)) == typed {
                return .character(Character(Unicode.Scalar(sample[typed.count] + 48)))
            } else if field == .number, typed.isEmpty {
                return .character(Character(Unicode.Scalar(sample[0] + 48)))
            }
            return .character(Character(Unicode.Scalar(UInt8(48 + random.next() % 10))))
        }
    }
}

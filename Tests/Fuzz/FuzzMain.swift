// The one libFuzzer entry point of the fuzzing binary built by `Tests/Fuzz/fuzz.sh`: it runs
// the harness named by CARDLINE_FUZZ_TARGET (key-decoder, rule-file, session, check-record).
// The harnesses that need rules read the bundled ones from CARDLINE_FUZZ_RULES (default
// `rules`, from the repository's root).
import Foundation

enum Fuzz {
    static let target = ProcessInfo.processInfo.environment["CARDLINE_FUZZ_TARGET"] ?? ""

    /// The bundled rules, read once.
    static let rules: RuleSet = {
        let folder = ProcessInfo.processInfo.environment["CARDLINE_FUZZ_RULES"] ?? "rules"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") && $0 != "schema.json" }
        let files = names.sorted().compactMap { name in
            FileManager.default.contents(atPath: folder + "/" + name).map { RuleSet.FileText(path: name, bytes: [UInt8]($0)) }
        }
        guard !files.isEmpty, let set = try? RuleSet.load(folders: [files]) else { fatalError("no rules in \(folder)") }
        return set
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    switch Fuzz.target {
    case "key-decoder": fuzzKeyDecoder(input)
    case "session": fuzzSession(input)
    case "check-record": fuzzCheckRecord(input)
    case "rule-file": fuzzRuleFile(input)
    default: fatalError("set CARDLINE_FUZZ_TARGET to key-decoder, rule-file, session or check-record")
    }
    return 0
}

import CardChip

// The one libFuzzer entry point of the fuzzing binary built by `Tests/Fuzz/fuzz.sh`: it runs
// the harness named by CARDLINE_FUZZ_TARGET (key-decoder, rule-file, session, check-record,
// postal-codes, message-catalog, track-data, chip-flow, session-record).
// The harnesses that need rules read the bundled ones from CARDLINE_FUZZ_RULES (default
// `rules`, from the repository's root).
//
// No Foundation: the binary is built with swiftc from CardKit's sources and these files alone
// (CardKit does not use Foundation either), and the toolchain's Foundation cannot be linked
// into a -sanitize=fuzzer build. The C library reads the folder and the files.
#if canImport(Glibc)
    import Glibc
#endif

enum Fuzz {
    static let target = environment("CARDLINE_FUZZ_TARGET") ?? ""

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// The bundled rules, read once.
    static let rules: RuleSet = {
        let folder = environment("CARDLINE_FUZZ_RULES") ?? "rules"
        let files = jsonNames(in: folder).sorted().compactMap { name in
            contents(of: folder + "/" + name).map { RuleSet.FileText(path: name, bytes: $0) }
        }
        guard !files.isEmpty, let set = try? RuleSet.load(folders: [files]) else { fatalError("no rules in \(folder)") }
        return set
    }()

    /// The `.json` files of a folder, schema.json left out.
    static func jsonNames(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".json") && name != "schema.json" { names.append(name) }
        }
        return names
    }

    /// A file's bytes, nil when it cannot be read.
    static func contents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    switch Fuzz.target {
    case "key-decoder": fuzzKeyDecoder(input)
    case "session": fuzzSession(input)
    case "check-record": fuzzCheckRecord(input)
    case "rule-file": fuzzRuleFile(input)
    case "postal-codes": fuzzPostalCodes(input)
    case "message-catalog": fuzzMessageCatalog(input)
    case "track-data": fuzzTrackData(input)
    case "chip-flow": fuzzChipFlow(input)
    case "session-record": fuzzSessionRecord(input)
    default:
        fatalError(
            "set CARDLINE_FUZZ_TARGET to key-decoder, rule-file, session, check-record, postal-codes, message-catalog, track-data, chip-flow or session-record"
        )
    }
    return 0
}

/// A harness's check. Unlike `precondition`, whose message an optimised build (the fuzzing
/// binary's) leaves out, it says which check failed and why.
func finding(_ holds: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !holds { fatalError(message(), file: file, line: line) }
}

/// A finding that needs no condition.
func findingFailure(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}

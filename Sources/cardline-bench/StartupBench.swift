// Start-up and rule loading (issues 13 and 21): the first prompt (< 15 ms), with an empty Swift
// binary timed in the same run for comparison, the first prompt with 100,000 IIN ranges, and
// loading time per range at 10,000 and 100,000 ranges and with every range on one line, to
// show it grows linearly.
import CardKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The empty Swift program built beside this one (the `bench-empty` target).
let emptyBinary = (cardline as NSString).deletingLastPathComponent + "/bench-empty"

/// `networks` bank networks with `perNetwork` eight-digit ranges each, written as rule files
/// into `folder` (emptied first): the ranges are the 100-number blocks 30000000, 30000100, …
/// dealt out to the networks at random (fixed seed), each block's high end within it. Eight
/// digits, under 3: no bundled pattern of that length is there, so nothing ties. With
/// `oneLine`, each file is minified to one line; otherwise one range per line.
func generateBankRules(into folder: String, networks: Int, perNetwork: Int, oneLine: Bool) {
    try? FileManager.default.removeItem(atPath: folder)
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var random = SeededRandom(seed: 13)
    var blocks = Array(0..<(networks * perNetwork))
    for i in stride(from: blocks.count - 1, to: 0, by: -1) { blocks.swapAt(i, Int(random.next() % UInt64(i + 1))) }
    for n in 0..<networks {
        let ranges = (0..<perNetwork).map { r -> String in
            let low = 30_000_000 + blocks[n * perNetwork + r] * 100
            return "[\"\(low)\", \"\(low + Int(random.next() % 100))\"]"
        }
        let text =
            oneLine
            ? "{\"id\":\"bank-\(n)\",\"name\":\"Bank \(n)\",\"ranges\":[\(ranges.joined(separator: ","))],\"lengths\":[16],\"cvv\":{\"name\":\"CVV\",\"length\":3}}\n"
            : "{\n  \"id\": \"bank-\(n)\",\n  \"name\": \"Bank \(n)\",\n  \"ranges\": [\n    \(ranges.joined(separator: ",\n    "))\n  ],\n  \"lengths\": [16],\n  \"cvv\": {\"name\": \"CVV\", \"length\": 3}\n}\n"
        try! text.write(toFile: folder + "/bank-\(n).json", atomically: false, encoding: .utf8)
    }
}

/// The rule files of a folder, read once (loading is then timed without the file system).
func readRuleTexts(_ folder: String) -> [RuleSet.FileText] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }
        .sorted()
    return names.map {
        RuleSet.FileText(
            path: folder + "/" + $0, bytes: [UInt8](FileManager.default.contents(atPath: folder + "/" + $0)!))
    }
}

/// The fastest of `runs` loads of `texts` into a rule set, in this process: the least
/// disturbed by the other work on a shared machine, for comparing sizes with each other.
func loadSeconds(_ texts: [RuleSet.FileText], runs: Int) -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = now()
        let rules = try! RuleSet.load(folders: [texts])
        times.append(now() - start)
        precondition(!rules.networks.isEmpty)
    }
    return times.min()!
}

func startupBenchmarks() -> [Row] {
    var rows: [Row] = []
    guard FileManager.default.isExecutableFile(atPath: emptyBinary) else {
        say("no \(emptyBinary): build the bench-empty target (make bench builds everything)")
        return [Row(name: "empty Swift binary", figure: "missing", target: "built", met: false)]
    }

    // The baseline and the first prompt, runs interleaved so that both see the same machine,
    // after one start of each that is not timed (as hyperfine's `--warmup`: the first start
    // of a program after a pause, or after its inputs were written, pays for caches the
    // others find warm).
    _ = run([], executable: emptyBinary)
    _ = timeToFirstPrompt()
    var emptyRuns: [Double] = []
    var promptRuns: [Double] = []
    for _ in 0..<31 {
        emptyRuns.append(run([], executable: emptyBinary).seconds)
        promptRuns.append(timeToFirstPrompt())
    }
    let empty = median(emptyRuns)
    let prompt = median(promptRuns)
    rows.append(
        Row(
            name: "empty Swift binary, spawn to exit (baseline)", figure: String(format: "%.1f ms", empty * 1000),
            target: "—", met: true))
    // The target is absolute (issue 21): the ratio to the empty binary is shown for comparison.
    rows.append(
        Row(
            name: "start to first prompt, runs beside the empty binary",
            figure: String(format: "%.1f ms (%.2f× empty)", prompt * 1000, prompt / empty),
            target: "< 15 ms", met: prompt > 0 && prompt < 0.015))

    // 100,000 ranges over 1,000 networks, beside the bundled rules.
    let bankFolder = work + "/rules-100k"
    generateBankRules(into: bankFolder, networks: 1_000, perNetwork: 100, oneLine: false)
    // (a warm-up, not timed: the files were just written)
    _ = timeToFirstPrompt(extraArguments: ["--rules", bankFolder])
    let bankPromptRuns = (0..<11).map { _ in timeToFirstPrompt(extraArguments: ["--rules", bankFolder]) }
    let bankPrompt = median(bankPromptRuns)
    rows.append(
        Row(
            name: "start to first prompt, 100,000 IIN ranges", figure: String(format: "%.1f ms", bankPrompt * 1000),
            target: "≤ 60 ms", met: bankPrompt > 0 && bankPrompt <= 0.060))

    // Issue 41: `rules diff` of that folder against the bundled set, the whole process (it
    // exits 1: there are differences).
    let diffSeconds = medianSeconds(3, cardline, ["rules", "diff", "--bundled", bankFolder])
    rows.append(
        Row(
            name: "rules diff --bundled, 100,000 IIN ranges", figure: String(format: "%.2f s", diffSeconds),
            target: "≤ 2 s", met: diffSeconds > 0 && diffSeconds <= 2))

    // Loading alone, in this process: per range at 10,000 and 100,000, and with each file on one line.
    let tenKFolder = work + "/rules-10k-lines"
    let lineFolder = work + "/rules-100k-one-line"
    generateBankRules(into: tenKFolder, networks: 100, perNetwork: 100, oneLine: false)
    generateBankRules(into: lineFolder, networks: 10, perNetwork: 10_000, oneLine: true)
    let tenK = loadSeconds(readRuleTexts(tenKFolder), runs: 11)
    let hundredK = loadSeconds(readRuleTexts(bankFolder), runs: 7)
    let oneLine = loadSeconds(readRuleTexts(lineFolder), runs: 7)
    rows.append(
        Row(
            name: "load 10,000 ranges (100 files), fastest run",
            figure: String(format: "%.1f ms (%.2f µs a range)", tenK * 1000, tenK / 10_000 * 1e6),
            target: "—", met: true))
    rows.append(
        Row(
            name: "load 100,000 ranges (1,000 files), per range ÷ 10,000's",
            figure: String(format: "%.1f ms (%.2f×)", hundredK * 1000, hundredK / 10 / tenK),
            target: "≤ 1.5×", met: hundredK / 10 / tenK <= 1.5))
    rows.append(
        Row(
            name: "load 100,000 ranges on 10 one-line files ÷ indented",
            figure: String(format: "%.1f ms (%.2f×)", oneLine * 1000, oneLine / hundredK),
            target: "≤ 1.5×", met: oneLine / hundredK <= 1.5))
    return rows
}

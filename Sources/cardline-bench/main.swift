// cardline-bench: the figures behind the README's performance table. Run with `make bench`
// (release build). Generates its inputs with fixed seeds into .build/bench/, then measures:
// keystrokes in the engine (in process), and `check`, `replay`, start-up and `--version` as
// whole processes of the release `cardline` beside this binary. Prints medians and targets.
import CardKit
import Foundation
import PTYSupport

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Clock, statistics, processes

/// Writes a line to stdout at once (unbuffered, so progress shows even when redirected).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func now() -> Double { monotonicSeconds() }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let here = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let cardline = (here as NSString).deletingLastPathComponent + "/cardline"
let work = FileManager.default.currentDirectoryPath + "/.build/bench"
try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)

/// The environment of every process the bench starts: the caller's, without any CARDLINE_*
/// variable and with HOME and the XDG folders in a folder of its own (so neither the caller's
/// rule folders, history nor settings take part). `TERM` for the pseudo-terminal runs.
let isolatedHome = work + "/home"
let benchEnvironment: [String] = {
    for folder in ["", "/.config", "/.cache", "/.local/share", "/.local/state"] {
        try? FileManager.default.createDirectory(atPath: isolatedHome + folder, withIntermediateDirectories: true)
    }
    var environment = ProcessInfo.processInfo.environment.filter { key, _ in
        !key.hasPrefix("CARDLINE_") && !key.hasPrefix("XDG_") && key != "HOME" && key != "TERM"
    }
    environment["HOME"] = isolatedHome
    environment["XDG_CONFIG_HOME"] = isolatedHome + "/.config"
    environment["XDG_CACHE_HOME"] = isolatedHome + "/.cache"
    environment["XDG_DATA_HOME"] = isolatedHome + "/.local/share"
    environment["XDG_STATE_HOME"] = isolatedHome + "/.local/state"
    environment["TERM"] = "xterm"
    return environment.map { "\($0.key)=\($0.value)" }.sorted()
}()

/// Runs cardline with stdout to `stdoutPath` (or /dev/null); returns seconds, exit status, the
/// processor time it used (user and system, every thread), and, when asked, its peak memory in
/// KiB (sampled every millisecond, which costs a little CPU, so timed runs do not sample).
@discardableResult
func run(
    _ arguments: [String], stdoutPath: String = "/dev/null", measuringMemory: Bool = false,
    executable: String = cardline
) -> (seconds: Double, status: Int32, peakKiB: Int, cpuSeconds: Double) {
    let start = now()
    guard
        let child = try? SpawnedProcess(
            [executable] + arguments, environment: benchEnvironment,
            descriptors: [(0, .null), (1, .open(stdoutPath, flags: O_WRONLY | O_CREAT | O_TRUNC)), (2, .null)])
    else { fatalError("cannot start \(executable)") }
    let pid = child.pid
    var status: Int32 = 0
    var peak = 0
    var usage = rusage()
    if measuringMemory {
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            if let sample = peakResidentKiB(pid) { peak = max(peak, sample) }
            usleep(1000)
        }
    } else {
        wait4(pid, &status, 0, &usage)
    }
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return (now() - start, (status >> 8) & 0xFF, peak, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// Seconds from spawning cardline on a pseudo-terminal (100 × 24, its own session, the bench's
/// environment) until its first prompt is on screen.
func timeToFirstPrompt(extraArguments: [String] = []) -> Double {
    var environment: [String: String] = [:]
    for entry in benchEnvironment {
        let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        environment[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    var failed = false
    guard
        let t = try? PseudoTerminal(
            command: [cardline, "--no-history", "--today", "2026-11"] + extraArguments, environment: environment,
            columns: 100, rows: 24, onFailure: { _ in failed = true })
    else {
        fatalError("cannot start \(cardline) on a pty")
    }
    let prompt = Array("Card number".utf8)
    var elapsed = 0.0
    // The prompt's text as it arrives (checked after every read, so the time is that read's).
    t.until("the first prompt", seconds: 10) {
        let seen = t.raw
        guard seen.count >= prompt.count,
            (0...(seen.count - prompt.count)).contains(where: { seen[$0...].starts(with: prompt) })
        else { return false }
        elapsed = now() - t.spawnedAt
        return true
    }
    if failed { return 0 }
    kill(t.pid, SIGTERM)
    t.waitForExit()
    return elapsed
}

// MARK: - Inputs (fixed seeds)

func loadRules(_ folder: String) -> RuleSet {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
        $0.hasSuffix(".json") && $0 != "schema.json"
    }.sorted()
    let files = names.map {
        RuleSet.FileText(
            path: folder + "/" + $0, bytes: [UInt8](FileManager.default.contents(atPath: folder + "/" + $0)!))
    }
    return try! RuleSet.load(folders: [files])
}

/// 500 networks with 20 six-digit ranges each (10,000 ranges), written as rule files.
func generateRangeRules(into folder: String) {
    try? FileManager.default.removeItem(atPath: folder)
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var random = SeededRandom(seed: 42)
    var starts = Set<Int>()
    while starts.count < 10_000 { starts.insert(300_000 + Int(random.next() % 59_000) * 10) }
    let sorted = starts.sorted()
    for n in 0..<500 {
        let ranges = (0..<20).map { r -> String in
            let low = sorted[r * 500 + n]
            return "[\"\(low)\", \"\(low + Int(random.next() % 10))\"]"
        }
        let text = """
            {"id": "bank-\(n)", "name": "Bank \(n)", "ranges": [\(ranges.joined(separator: ", "))], "lengths": [16], "cvv": {"name": "CVV", "length": 3}}

            """
        try! text.write(toFile: folder + "/bank-\(n).json", atomically: false, encoding: .utf8)
    }
}

/// A number for `network`, `length` digits long, valid for Luhn unless `breakLuhn`.
func makeNumber(_ network: CardNetwork, length: Int, breakLuhn: Bool, _ random: inout SeededRandom) -> [UInt8] {
    let pattern = network.patterns[Int(random.next() % UInt64(network.patterns.count))]
    var digits = pattern.low
    while digits.count < length - 1 { digits.append(UInt8(random.next() % 10)) }
    digits = Array(digits.prefix(length - 1))
    for check in UInt8(0)...9 where CardNumber.passesLuhn(digits + [check]) != breakLuhn {
        return digits + [check]
    }
    return digits + [0]
}

/// One million records: mixed networks, lengths and separators, about 20 % invalid.
func generateCheckInput(_ path: String, rules: RuleSet, count: Int) {
    var random = SeededRandom(seed: 7)
    var out: [UInt8] = []
    out.reserveCapacity(count * 36)
    _ = FileManager.default.createFile(atPath: path, contents: nil)  // empty, or emptied
    let handle = FileHandle(forWritingAtPath: path)!
    for i in 0..<count {
        let network = rules.networks[Int(random.next() % UInt64(rules.networks.count))]
        let roll = random.next() % 100
        var length = network.lengths[Int(random.next() % UInt64(network.lengths.count))]
        if roll < 4 { length = max(8, length - 1) }  // wrong length
        let digits = makeNumber(network, length: length, breakLuhn: roll >= 4 && roll < 12 && network.luhn, &random)
        let text = CardNumber.string(digits)
        switch random.next() % 3 {
        case 0: out += text.utf8
        // (Spaces only between groups of at most six digits, as `check`'s plain form takes them:
        // BP Plus's 5-9-3 is written with dashes.)
        case 1 where network.groups.allSatisfy { $0 <= 6 }:
            out += CardPolicy.grouped(digits, groups: network.groups).utf8
        default: out += CardPolicy.grouped(digits, groups: network.groups).replacingOccurrences(of: " ", with: "-").utf8
        }
        if random.next() % 4 != 0 {
            let month = 1 + Int(random.next() % 12)
            let year = roll >= 12 && roll < 16 ? 2024 : 2027 + Int(random.next() % 8)  // some expired
            out +=
                ",\(month < 10 ? "0" : "")\(month)/\(random.next() % 2 == 0 ? String(year % 100) : String(year))".utf8
            if random.next() % 2 == 0 {
                let codeLength = roll >= 16 && roll < 20 ? 5 : network.cvv.length  // some wrong codes
                out += ",".utf8 + (0..<codeLength).map { _ in UInt8(48 + random.next() % 10) }
            }
        }
        out.append(10)
        if out.count > 1 << 20 || i == count - 1 {
            handle.write(Data(out))
            out.removeAll(keepingCapacity: true)
        }
    }
    handle.closeFile()
}

/// A `.session` script entering `count` cards, each checked.
func generateReplayScript(_ path: String, rules: RuleSet, count: Int) {
    var random = SeededRandom(seed: 11)
    var text = "# generated: \(count) card entries\n@today 2026-11\n"
    // Patterns of one length in networks that check Luhn: a complete number moves on by itself.
    // Numbers come from the rule set's sampler, so each is decided by its own network (a
    // random number under UATP's `1` may well be GPN's `1946`).
    let simple = rules.networks.flatMap { network in
        network.patternLengths.indices.filter { network.luhn && network.patternLengths[$0].count == 1 }.map {
            (network, $0)
        }
    }
    for i in 0..<count {
        while true {
            let (network, pattern) = simple[Int(random.next() % UInt64(simple.count))]
            // unreachable pattern
            guard let digits = rules.sampleNumber(of: network, pattern: pattern, round: 0, &random) else { continue }
            text +=
                CardNumber.string(digits) + " 12/30 " + String(repeating: "7", count: network.cvv.length) + "<Enter>\n"
            break
        }
        if i % 1000 == 999 { text += "@expect cards \(i + 1)\n" }
    }
    try! text.write(toFile: path, atomically: false, encoding: .utf8)
}

// MARK: - Measurements

/// Median nanoseconds for one digit typed into the number field: batches of typing the
/// first 15 digits of a number into a fresh engine.
func keystrokeNanoseconds(rules: RuleSet, numbers: [[UInt8]]) -> Double {
    let base = EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
    let keys = numbers.map { $0.prefix(15).map { Key.character(Character(Unicode.Scalar($0 + 48))) } }
    var samples: [Double] = []
    var sink = 0
    for batch in 0..<41 {
        let start = now()
        var typed = 0
        for round in 0..<200 {
            var engine = base
            for key in keys[(batch * 200 + round) % keys.count] {
                if engine.handle(key).refusal != nil { sink += 1 }
                typed += 1
            }
        }
        samples.append((now() - start) / Double(typed) * 1e9)
    }
    if sink < 0 { say("\(sink)") }
    return median(samples)
}

// MARK: - Main

/// The sections, in the order they run; `cardline-bench SECTION…` (`make bench ONLY="…"`)
/// runs only those named.
let sections = ["engine", "check", "replay", "start", "prompt"]
let chosen = Set(CommandLine.arguments.dropFirst())
if let unknown = chosen.first(where: { !sections.contains($0) }) {
    FileHandle.standardError.write(
        Data(
            "cardline-bench: no section \"\(unknown)\"; the sections are \(sections.joined(separator: ", ")) (none named: all)\n"
                .utf8))
    exit(64)
}
func runs(_ section: String) -> Bool { chosen.isEmpty || chosen.contains(section) }

say(
    "cardline benchmarks — \(cardline)"
        + (chosen.isEmpty ? "" : " (only \(sections.filter(chosen.contains).joined(separator: ", ")))"))
let cpu =
    (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingCharacters(
        in: .whitespaces) ?? "unknown CPU"
say("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu)")

let repository = FileManager.default.currentDirectoryPath
let bundled = loadRules(repository + "/rules")

struct Row {
    var name: String
    var figure: String
    var target: String
    var met: Bool
}
var rows: [Row] = []

if runs("engine") {
    let rangeFolder = work + "/rules-10k"
    generateRangeRules(into: rangeFolder)
    let ranged = loadRules(rangeFolder)
    var random = SeededRandom(seed: 3)
    let bundledNumbers = (0..<500).map { _ in
        makeNumber(
            bundled.networks[Int(random.next() % UInt64(bundled.networks.count))], length: 16, breakLuhn: false, &random
        )
    }
    let rangedNumbers = (0..<500).map { _ in
        makeNumber(
            ranged.networks[Int(random.next() % UInt64(ranged.networks.count))], length: 16, breakLuhn: false, &random)
    }
    let keyBundled = keystrokeNanoseconds(rules: bundled, numbers: bundledNumbers)
    rows.append(
        Row(
            name: "keystroke, bundled rules (\(bundled.networks.count) networks)",
            figure: String(format: "%.2f µs", keyBundled / 1000), target: "< 2 µs", met: keyBundled < 2000))
    let keyRanged = keystrokeNanoseconds(rules: ranged, numbers: rangedNumbers)
    rows.append(
        Row(
            name: "keystroke, 10,000 ranges over 500 networks", figure: String(format: "%.2f µs", keyRanged / 1000),
            target: "< 10 µs", met: keyRanged < 10_000))
}

// `check` against the C loop, and `replay` at three sizes: BatchBench.swift.
if runs("check") {
    let checkInput = work + "/check-1m.txt"
    say("generating inputs in \(work) …")
    generateCheckInput(checkInput, rules: bundled, count: 1_000_000)
    rows += checkBenchmarks(bundled: bundled, checkInput: checkInput)
}
if runs("replay") { rows += replayBenchmarks(bundled: bundled) }

if runs("start") {
    // The first run of each is the coldest this harness can make without dropping the page
    // cache (which needs privileges); it is shown beside the median.
    let promptRuns = (0..<21).map { _ in timeToFirstPrompt() }
    let prompt = median(promptRuns)
    rows.append(
        Row(
            name: "start to first prompt",
            figure: String(format: "%.1f ms (first run %.1f)", prompt * 1000, promptRuns[0] * 1000),
            target: "< 15 ms", met: prompt > 0 && prompt < 0.015))
    let versionRuns = (0..<31).map { _ in run(["--version"]).seconds }
    let version = median(versionRuns)
    rows.append(
        Row(
            name: "cardline --version",
            figure: String(format: "%.1f ms (first run %.1f)", version * 1000, versionRuns[0] * 1000),
            target: "< 8 ms", met: version < 0.008))
}

if runs("prompt") { rows += promptBenchRows(cardline: cardline, work: work) }  // PromptBench.swift
// Start-up beside an empty Swift binary, rule loading at 10,000 and 100,000 ranges: StartupBench.swift.
if runs("start") { rows += startupBenchmarks() }

guard !rows.isEmpty else {
    say("no rows: nothing was measured")
    exit(1)
}
let width = rows.map(\.name.count).max()!
let figureWidth = rows.map(\.figure.count).max()!
say("")
let targetWidth = max(8, rows.map(\.target.count).max()!)
say(
    "| " + "measure".padding(toLength: width, withPad: " ", startingAt: 0) + " | "
        + "median".padding(toLength: figureWidth, withPad: " ", startingAt: 0) + " | "
        + "target".padding(toLength: targetWidth, withPad: " ", startingAt: 0) + " | met |")
say(
    "|" + String(repeating: "-", count: width + 2) + "|" + String(repeating: "-", count: figureWidth + 2) + "|"
        + String(repeating: "-", count: targetWidth + 2) + "|-----|")
for row in rows {
    say(
        "| " + row.name.padding(toLength: width, withPad: " ", startingAt: 0) + " | "
            + row.figure.padding(toLength: figureWidth, withPad: " ", startingAt: 0)
            + " | " + row.target.padding(toLength: targetWidth, withPad: " ", startingAt: 0) + " | "
            + (row.met ? "yes" : "NO ") + " |")
}
exit(rows.allSatisfy(\.met) ? 0 : 1)

// libFuzzer harness for CardKit's rule loader (JSON reader, RuleFile, RuleSet); built and run
// by `Tests/Fuzz/fuzz.sh` (harness `rule-file`, seed corpus `Tests/Fuzz/corpus/rule-file`: the
// bundled rules and broken files). Each input is loaded as one rule file; a crash, a hang, or
// a broken invariant (precondition) is a finding.

func fuzzRuleFile(_ input: [UInt8]) {

    let problems: [RuleError]
    do {
        let set = try RuleSet.load(folders: [[RuleSet.FileText(path: "fuzz.json", bytes: input)]])
        for network in set.networks {
            finding(!network.patterns.isEmpty && !network.lengths.isEmpty, "loaded a network that cannot match")
            finding(network.patternLocations.count == network.patterns.count, "a pattern without a location")
            finding(
                network.patternTerms.allSatisfy {
                    $0.pattern < network.patterns.count && ($0.coBadge ?? 0) < max(network.coBadges.count, 1)
                },
                "pattern terms pointing past the patterns or the coBadged entries")
        }
        _ = set.detect([4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        problems = set.warnings
    } catch {
        finding(error.errors.contains { $0.severity == .error }, "refused without an error")
        problems = error.errors
    }

    // Characters per line (UTF-8 lead bytes), the byte order mark left out: every location
    // must fall inside the file, at most one past a line's end.
    var widths = [0]
    for (offset, byte) in input.enumerated() where !(offset < 3 && input.starts(with: [0xEF, 0xBB, 0xBF])) {
        if byte == UInt8(ascii: "\n") { widths.append(0) } else if byte & 0xC0 != 0x80 { widths[widths.count - 1] += 1 }
    }
    for problem in problems {
        let at = problem.location
        finding(at.line >= 1 && at.line <= widths.count, "line \(at.line) outside the file")
        finding(at.column >= 1 && at.column <= widths[at.line - 1] + 1, "column \(at) outside its line")
        // Messages never carry raw control characters (C0, DEL, C1) from the file.
        finding(
            problem.description.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) },
            "control character in a message")
    }
}

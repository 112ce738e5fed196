// libFuzzer harness for the rule loader: each input is one rule file's bytes, loaded beside
// the bundled rules. A crash, a hang or a broken invariant is a finding: every error points
// into the file, and its message holds no control character.

func fuzzRuleFile(_ input: [UInt8]) {
    do {
        _ = try RuleSet.load(folders: [[RuleSet.FileText(path: "fuzz.json", bytes: input)]])
    } catch {
        for problem in error.errors {
            precondition(!problem.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                         "control character in a message")
        }
    }
}

// libFuzzer harness for the postal-code data file reader (`PostalCodeFormats.parse`) and the
// formats it makes; built and run by `Tests/Fuzz/fuzz.sh` (harness `postal-codes`, seed corpus
// `Tests/Fuzz/corpus/postal-codes`: the bundled data file and broken ones). Each input is read
// as one data file; every format read then shapes the codes made from the input's bytes. A
// crash, a hang, or a broken invariant (precondition) is a finding.

func fuzzPostalCodes(_ input: [UInt8]) {
    do {
        let formats = try PostalCodeFormats.parse(input, file: "fuzz.json")
        for format in formats.formats {
            finding(!format.patterns.isEmpty && format.longest > 0, "a format that takes no code")
            // The input's letters and digits, typed one by one as the field takes them.
            var raw: [UInt8] = []
            for byte in input {
                guard let character = PostalCodeFormat.rawCharacter(Character(Unicode.Scalar(byte))) else { continue }
                raw.append(character)
                if !format.canBegin(raw) { raw.removeLast() }
                finding(raw.count <= format.longest, "a code longer than the longest pattern")
                let shown = format.formatted(raw)
                finding(
                    shown.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") }.elementsEqual(raw),
                    "formatting changed the characters")
            }
            finding(
                format.isComplete(raw) == (format.problem(raw) == nil), "complete but with a problem, or the other way")
        }
    } catch {
        finding(!error.errors.isEmpty, "refused without an error")
        for problem in error.errors {
            finding(problem.location.line >= 1, "an error with no line")
            finding(
                problem.description.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) },
                "control character in a message")
        }
    }
}

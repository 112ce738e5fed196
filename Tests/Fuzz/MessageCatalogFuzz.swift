// libFuzzer harness for CardKit's message catalog reader (JSON reader, MessageCatalog.read);
// built and run by `Tests/Fuzz/fuzz.sh` (harness `message-catalog`, seed corpus
// `Tests/Fuzz/corpus/message-catalog`: the bundled catalogs and broken ones). Each input is
// read as one user catalog; a crash, a hang, or a broken invariant (precondition) is a finding.

func fuzzMessageCatalog(_ input: [UInt8]) {
    let contents = MessageCatalog.read(input, file: "fuzz.json")
    // A catalog that is taken gives only known ids, texts without control characters, and no
    // placeholder English lacks; every text then shows through a catalog.
    if !contents.isRefused {
        let catalog = MessageCatalog(language: contents.language ?? "xx", texts: contents.texts)
        for (id, text) in contents.texts {
            guard let known = MessageID(rawValue: id) else { findingFailure("an unknown id was taken") }
            finding(catalog.text(known) == text, "a text taken is not the one shown")
            finding(
                !text.unicodeScalars.contains(where: MessageCatalog.isControl), "a control character was taken")
            let english = Set(MessageCatalog.placeholders(in: MessageCatalog.english.text(known)))
            finding(
                MessageCatalog.placeholders(in: text).allSatisfy(english.contains),
                "a placeholder English lacks was taken")
        }
        _ = catalog.text(.numberAtMost, ("a", "a"), ("network", "Visa"), ("count", "19"))
    }
    // Every problem is located inside the file (at most one past a line's end) and carries no
    // raw control character.
    var widths = [0]
    for (offset, byte) in input.enumerated() where !(offset < 3 && input.starts(with: [0xEF, 0xBB, 0xBF])) {
        if byte == UInt8(ascii: "\n") { widths.append(0) } else if byte & 0xC0 != 0x80 { widths[widths.count - 1] += 1 }
    }
    for problem in contents.problems {
        let at = problem.location
        finding(at.line >= 1 && at.line <= widths.count, "line \(at.line) outside the file")
        finding(at.column >= 1 && at.column <= widths[at.line - 1] + 1, "column \(at) outside its line")
        finding(
            problem.description.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) },
            "control character in a message")
    }
}

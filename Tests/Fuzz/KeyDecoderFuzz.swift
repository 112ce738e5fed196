// libFuzzer harness for CardKit's KeyDecoder; `Tests/Fuzz/fuzz.sh` builds every harness into
// one binary with the CardKit sources and runs it (FuzzMain.swift picks the harness).
//
// Each input is decoded whole and in reads cut where its own bytes say; a crash, a hang, or a
// broken invariant (precondition) is a finding.

func fuzzKeyDecoder(_ input: [UInt8]) {

    var whole = KeyDecoder()
    let keys = whole.feed(input) + whole.finish()
    finding(!whole.isPending && whole.finish().isEmpty, "pending after finish")
    finding(keys.count <= input.count, "more keys than bytes")
    finding(input.isEmpty == keys.isEmpty, "bytes vanished")
    for key in keys {
        // Names never carry raw control characters (C0, DEL, C1).
        finding(
            key.name.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) },
            "control character in a name")
    }

    // The same bytes in reads of 1–8 bytes (sizes taken from the input itself): the same keys.
    var chunked = KeyDecoder()
    var chunkedKeys: [TerminalKey] = []
    var start = 0
    while start < input.count {
        let end = min(input.count, start + 1 + Int(input[start] % 8))
        chunkedKeys += chunked.feed(input[start..<end])
        start = end
    }
    chunkedKeys += chunked.finish()
    finding(keys == chunkedKeys, "split reads decode differently")

    // A pause, then typed digits: digits, whatever came before (a paste is ended first).
    var paused = KeyDecoder()
    _ = paused.feed(input)
    _ = paused.flush()
    paused.forgetCutShort()
    finding(!paused.isPending || paused.isInPaste, "pending after flush")
    _ = paused.finish()
    let digits = paused.feed(Array("0123456789".utf8))
    finding(digits.map(\.base) == "0123456789".map { .character($0) }, "digits swallowed")
}

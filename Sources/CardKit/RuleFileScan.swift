/// The fast way through a rule file: one pass that reads the top-level `prefixes` and `ranges`
/// straight into patterns, without a `JSONValue` for each of their strings and arrays (a file
/// of 100,000 ranges would otherwise build, check and free 300,000 values).
///
/// It only ever accepts what the general reader and `RuleFile` accept without a word: every
/// pattern a plain string of 1–19 ASCII digits (no escapes), every range two of them of one
/// length with low ≤ high, the JSON well formed, every top-level key a known one written
/// plainly (no escape), each once. Anything else —
/// any error, or anything a message might be about — makes it give up, and the file is read
/// again by the general reader, which finds and words the problems as it always has.
struct ScannedRuleFile {
    /// The top-level object, with `prefixes` and `ranges` (when read here) as empty arrays at
    /// their places.
    var root: JSONValue
    /// The patterns of `prefixes` read here, each with where it stands (a prefix's string:
    /// where the general reader puts an item's location); nil when not read here.
    var prefixes: ScannedPatterns?
    /// The same for `ranges` (a range's location is its array's).
    var ranges: ScannedPatterns?
    /// Where each key stands among the members (`Fields`).
    var places = Fields.Places(repeating: 0)
}

/// Patterns read by the one-pass reader, and where each stands in the file.
typealias ScannedPatterns = (patterns: [IINPattern], locations: [SourceLocation])

extension JSONReader {
    /// The rule file read in one pass, or nil when the general reader should read it (see
    /// `ScannedRuleFile`).
    mutating func scanRuleFile() -> ScannedRuleFile? {
        do throws(JSONSyntaxError) {
            skipWhitespace()
            guard current == UInt8(ascii: "{") else { return nil }
            let start = location
            index += 1
            var members: [JSONValue.Member] = []
            members.reserveCapacity(12)
            var scanned = ScannedRuleFile(root: .null(start))
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
            } else {
                members: while true {
                    skipWhitespace()
                    guard current == UInt8(ascii: "\"") else { return nil }
                    let keyLocation = location
                    // A known key, matched as two words (no string made to compare), once.
                    guard let slot = scanKey(), scanned.places[slot] == 0 else { return nil }
                    scanned.places[slot] = Int32(members.count + 1)
                    let key = RuleFile.knownFields[slot]
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { return nil }
                    index += 1
                    skipWhitespace()
                    let value: JSONValue
                    let ranges = slot == RuleFile.Key.ranges.rawValue
                    if (ranges || slot == RuleFile.Key.prefixes.rawValue) && current == UInt8(ascii: "[") {
                        guard (ranges ? scanned.ranges : scanned.prefixes) == nil else { return nil }  // twice: an error to word
                        let arrayLocation = location
                        guard let read = scanPatternArray(ranges: ranges) else { return nil }
                        if ranges { scanned.ranges = read } else { scanned.prefixes = read }
                        value = .array([], arrayLocation)
                    } else {
                        value = try readValue(depth: 1)
                    }
                    members.append(.init(key: key, keyLocation: keyLocation, value: value))
                    skipWhitespace()
                    switch current {
                    case UInt8(ascii: ","): index += 1
                    case UInt8(ascii: "}"): index += 1; break members
                    default: return nil
                    }
                }
            }
            skipWhitespace()
            guard index == bytes.count else { return nil }
            scanned.root = .object(members, start)
            return scanned
        } catch {
            return nil
        }
    }

    /// The slot among `RuleFile.knownFields` of the key at the reader (its opening quote),
    /// the reader moved past its closing quote; nil (the reader where it was) when the string
    /// is not exactly one of them.
    private mutating func scanKey() -> Int? {
        let (slot, end) = Self.keySlot(bytes.span, at: index + 1)
        if slot != nil { index = end + 1 }
        return slot
    }

    /// `scanKey`'s reading: the slot, and where the key's closing quote is. (Static, handed
    /// the bytes borrowed in place: a method would copy the whole reader, and a copy of the
    /// array retains and releases it.)
    private static func keySlot(_ text: Span<UInt8>, at first: Int) -> (slot: Int?, end: Int) {
        if first + 16 <= text.count {
            // Sixteen bytes as two words: the key ends at the first quote in them (a known key
            // has no quote or backslash, and none has sixteen bytes).
            let low = littleEndianWord(text, at: first), high = littleEndianWord(text, at: first + 8)
            let lowQuotes = quoteBits(low), highQuotes = quoteBits(high)
            let end = lowQuotes != 0 ? lowQuotes.trailingZeroBitCount / 8
                : highQuotes != 0 ? 8 + highQuotes.trailingZeroBitCount / 8 : 16
            guard end > 0, end < 16 else { return (nil, 0) }
            // The key's bytes only, zero past its end.
            let lowMask: UInt64 = end >= 8 ? ~0 : (1 << UInt64(8 * end)) - 1
            let highMask: UInt64 = end <= 8 ? 0 : (1 << UInt64(8 * (end - 8))) - 1
            return (Fields.ruleFile.slot(low: low & lowMask, high: high & highMask, count: end), first + end)
        } else {
            var end = first
            while end < text.count, end - first <= 16, text[end] != UInt8(ascii: "\"") { end += 1 }
            guard end < text.count, end > first, end - first <= 16 else { return (nil, 0) }
            return (Fields.ruleFile.slot(of: text, at: first, count: end - first), end)
        }
    }

    /// `["4", "51", …]` (or, for `ranges`, `[["2221", "2720"], …]`) at the reader, in one loop
    /// over the bytes: each pattern, and where it stands (a prefix's string, a range's array,
    /// as the general reader places an item). Nil at the first thing that is not a plain
    /// valid pattern or the JSON around it. Everything passed inside the array is ASCII, so a
    /// column is worked out from a known one on the same line (`ScanLines.anchor`). The
    /// position and the lines are plain locals handed to free functions, not captured by
    /// nested ones: captured, they lived in memory (about 60 instructions a range more).
    private mutating func scanPatternArray(ranges: Bool) -> ScannedPatterns? {
        let start = location  // also puts `columnIndex` and `column` at the `[`
        let bytes = self.bytes  // (a span of `self.bytes` would keep all of `self` borrowed)
        let text = bytes.span
        var i = index + 1
        var lines = ScanLines(line: line, lineStart: lineStart, anchor: index, anchorColumn: start.column)
        // For ranges, a first guess at the count from the bytes left (a range with its
        // separators is rarely under 24 bytes): a bank's file needs no second allocation. A
        // list of prefixes is short; a guess there would only spread the heap.
        var patterns: [IINPattern] = [], locations: [SourceLocation] = []
        if ranges {
            patterns.reserveCapacity((text.count - i) / 24)
            locations.reserveCapacity((text.count - i) / 24)
        }
        skipBlanks(text, &i, &lines)
        if !take(text, &i, UInt8(ascii: "]")) {
            while true {
                skipBlanks(text, &i, &lines, byWords: true)
                let at = SourceLocation(line: lines.line, column: lines.anchorColumn + (i - lines.anchor))
                if ranges, let (low, high) = usualRange(text, at: i) {
                    // `["dddddddd", "dddddddd"]`, as a bank's file writes each range: in one step.
                    i += 24
                    patterns.append(IINPattern(lowValue: low, highValue: high, length: 8))
                } else if ranges {
                    guard take(text, &i, UInt8(ascii: "[")) else { return nil }
                    skipBlanks(text, &i, &lines)
                    guard let low = quotedDigits(text, &i) else { return nil }
                    // `", "` between the ends, as most files write it, without the general steps.
                    if i + 1 < text.count, text[i] == UInt8(ascii: ","), text[i + 1] == UInt8(ascii: " ") {
                        i += 2
                    } else {
                        skipBlanks(text, &i, &lines)
                        guard take(text, &i, UInt8(ascii: ",")) else { return nil }
                        skipBlanks(text, &i, &lines)
                    }
                    guard let high = quotedDigits(text, &i), high.length == low.length, low.value <= high.value else { return nil }
                    if !take(text, &i, UInt8(ascii: "]")) {
                        skipBlanks(text, &i, &lines)
                        guard take(text, &i, UInt8(ascii: "]")) else { return nil }
                    }
                    patterns.append(IINPattern(lowValue: low.value, highValue: high.value, length: low.length))
                } else {
                    guard let prefix = quotedDigits(text, &i) else { return nil }
                    patterns.append(IINPattern(lowValue: prefix.value, highValue: prefix.value, length: prefix.length))
                }
                locations.append(at)
                if take(text, &i, UInt8(ascii: ",")) { continue }
                skipBlanks(text, &i, &lines)
                if take(text, &i, UInt8(ascii: ",")) { continue }
                guard take(text, &i, UInt8(ascii: "]")) else { return nil }
                break
            }
        }
        (index, self.line, self.lineStart) = (i, lines.line, lines.lineStart)
        setColumn(lines.anchorColumn, at: lines.anchor)
        return (patterns, locations)
    }
}

/// Where the one-pass reader is in lines: the line, the byte it starts at, and a byte of it
/// whose column is known (`anchor`, in column `anchorColumn`).
private struct ScanLines {
    var line: Int
    var lineStart: Int
    var anchor: Int
    var anchorColumn: Int
}

/// Past spaces, tabs and line breaks at `i`; a line break moves `lines` to the next line.
/// `byWords` (where an item's line and its indent begin): runs of spaces eight at a time (only
/// there, so that the loop's other places stay small enough for the array appends to be inlined).
@inline(__always)
private func skipBlanks(_ text: Span<UInt8>, _ i: inout Int, _ lines: inout ScanLines, byWords: Bool = false) {
    while i < text.count {
        // An indent's spaces eight at a time: the first byte that is not one ends the run.
        if byWords && i + 8 <= text.count {
            let others = littleEndianWord(text, at: i) ^ 0x2020_2020_2020_2020
            if others & 0xFF == 0 {
                i += others == 0 ? 8 : others.trailingZeroBitCount / 8
                continue
            }
        }
        let byte = text[i]
        if byte == UInt8(ascii: " ") {
            i += 1
        } else if byte == UInt8(ascii: "\n") {
            i += 1
            lines = ScanLines(line: lines.line + 1, lineStart: i, anchor: i, anchorColumn: 1)
        } else if byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
            i += 1
        } else {
            return
        }
    }
}

/// Whether `byte` is at `i`; if so, `i` moves past it.
@inline(__always)
private func take(_ text: Span<UInt8>, _ i: inout Int, _ byte: UInt8) -> Bool {
    guard i < text.count, text[i] == byte else { return false }
    i += 1
    return true
}

/// The ends of the range `["dddddddd", "dddddddd"]` (eight digits each, low ≤ high: a valid
/// pattern, written the usual way) at `i`; nil for anything else, left to the general steps.
@inline(__always)
private func usualRange(_ text: Span<UInt8>, at i: Int) -> (low: UInt64, high: UInt64)? {
    guard i + 24 <= text.count else { return nil }
    /// The byte `k` places on (`i + 24 <= count`, checked above).
    func at(_ k: Int) -> UInt8 { text[unchecked: i &+ k] }
    // (The separators byte by byte: read as parts of words overlapping the digits', the
    // digits' own loads were split into bytes.)
    guard at(0) == UInt8(ascii: "["), at(1) == UInt8(ascii: "\""), at(10) == UInt8(ascii: "\""), at(11) == UInt8(ascii: ","),
          at(12) == UInt8(ascii: " "), at(13) == UInt8(ascii: "\""), at(22) == UInt8(ascii: "\""), at(23) == UInt8(ascii: "]"),
          let low = eightDigits(text, at: i &+ 2), let high = eightDigits(text, at: i &+ 14), low <= high else { return nil }
    return (low, high)
}

/// A string of 1–19 ASCII digits and nothing else at `i` (its opening quote): its value and
/// length, `i` moved past its closing quote. Nil (with `i` anywhere) for anything else. Eight
/// digits (a bank's usual range end) are taken here, inlined in the loop; others by
/// `otherQuotedDigits`.
@inline(__always)
private func quotedDigits(_ text: Span<UInt8>, _ i: inout Int) -> (value: UInt64, length: Int)? {
    let first = i + 1
    if first + 9 <= text.count, text[i] == UInt8(ascii: "\""), let eight = eightDigits(text, at: first),
       text[first + 8] == UInt8(ascii: "\"") {
        i = first + 9
        return (eight, 8)
    }
    return otherQuotedDigits(text, &i)
}

/// `quotedDigits` for any other string.
@inline(never)
private func otherQuotedDigits(_ text: Span<UInt8>, _ i: inout Int) -> (value: UInt64, length: Int)? {
    let count = text.count
    guard i < count, text[i] == UInt8(ascii: "\"") else { return nil }
    let first = i + 1
    // Eight at once where eight bytes are left, then one at a time: the same value.
    var j = first, value: UInt64 = 0
    if j + 8 <= count, let eight = eightDigits(text, at: j) {
        value = eight
        j += 8
    }
    while j < count {
        let digit = text[j] &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        value = value &* 10 &+ UInt64(digit)  // (wraps past 19 digits, which are refused below)
        j += 1
    }
    let length = j - first
    guard length >= 1, length <= CardPolicy.longestNumber, j < count, text[j] == UInt8(ascii: "\"") else { return nil }
    i = j + 1
    return (value, length)
}

/// The value of the eight bytes of `text` at `index` (at least eight are there) when all are
/// ASCII digits, read as one little-endian word: the first digit is the most significant.
/// Nil when any is not a digit. About twenty instructions instead of eight turns of a loop.
@inline(__always)
func eightDigits(_ text: Span<UInt8>, at index: Int) -> UInt64? {
    let word = littleEndianWord(text, at: index)
    // Every byte 0x30–0x39: its high half 3, and its low half still below 10 after adding 6.
    let highs: UInt64 = 0xF0F0_F0F0_F0F0_F0F0, threes: UInt64 = 0x3030_3030_3030_3030
    guard word & highs == threes, (word &+ 0x0606_0606_0606_0606) & highs == threes else { return nil }
    return CardNumber.value(ofDigitLanes: word &- threes)
}

/// The eight bytes of `text` at `index` (at least eight are there: the caller checks) as one
/// little-endian word: the first byte in the lowest eight bits.
@inline(__always)
func littleEndianWord(_ text: Span<UInt8>, at index: Int) -> UInt64 {
    var word: UInt64 = 0
    for k in 0..<8 { word |= UInt64(text[unchecked: index &+ k]) << UInt64(8 &* k) }  // (checked by the caller: index + 8 <= count)
    return word
}

/// The high bit of each byte of `word` that is a double quote, and perhaps of bytes after the
/// first one (a borrow): the lowest bit set is the first quote's.
@inline(__always)
private func quoteBits(_ word: UInt64) -> UInt64 { zeroByteBits(word ^ 0x2222_2222_2222_2222) }  // (a quote becomes zero)

/// The fast way through a rule file: one pass that reads the top-level `prefixes` and `ranges`
/// straight into patterns, without a `JSONValue` for each of their strings and arrays (a file
/// of 100,000 ranges would otherwise build, check and free 300,000 values).
///
/// It only ever accepts what the general reader and `RuleFile` accept without a word: every
/// pattern a plain string of 1–19 ASCII digits (no escapes), every range two of them of one
/// length with low ≤ high, the JSON well formed, each of the two keys once. Anything else —
/// any error, or anything a message might be about — makes it give up, and the file is read
/// again by the general reader, which finds and words the problems as it always has.
struct ScannedRuleFile {
    /// The top-level object, with `prefixes` and `ranges` (when read here) as empty arrays at
    /// their places.
    var root: JSONValue
    /// The patterns of `prefixes` and `ranges` read here, each with where it stands (a
    /// prefix's string, a range's array: where the general reader puts an item's location).
    var patterns: [String: (patterns: [IINPattern], locations: [SourceLocation])] = [:]
}

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
                    let key = try readString()
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { return nil }
                    index += 1
                    skipWhitespace()
                    let value: JSONValue
                    if (key == "prefixes" || key == "ranges") && current == UInt8(ascii: "[") {
                        guard scanned.patterns[key] == nil else { return nil }  // twice: an error to word
                        let arrayLocation = location
                        guard let read = scanPatternArray(ranges: key == "ranges") else { return nil }
                        scanned.patterns[key] = read
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

    /// `["4", "51", …]` (or, for `ranges`, `[["2221", "2720"], …]`) at the reader, in one loop
    /// over the bytes: each pattern, and where it stands (a prefix's string, a range's array,
    /// as the general reader places an item). Nil at the first thing that is not a plain
    /// valid pattern or the JSON around it. Everything passed inside the array is ASCII, so a
    /// column is worked out from a known one on the same line.
    private mutating func scanPatternArray(ranges: Bool) -> (patterns: [IINPattern], locations: [SourceLocation])? {
        let start = location  // also puts `columnIndex` and `column` at the `[`
        var patterns: [IINPattern] = [], locations: [SourceLocation] = []
        let end: PatternCursor? = bytes.withUnsafeBufferPointer { bytes in
            var cursor = PatternCursor(bytes: bytes, at: index, line: line, lineStart: lineStart, column: start.column)
            cursor.index += 1  // [
            cursor.skipWhitespace()
            if cursor.take(UInt8(ascii: "]")) { return cursor }
            while true {
                cursor.skipWhitespace()
                let at = cursor.location
                if ranges {
                    guard cursor.take(UInt8(ascii: "[")) else { return nil }
                    cursor.skipWhitespace()
                    guard let (low, length) = cursor.digitString() else { return nil }
                    cursor.skipWhitespace()
                    guard cursor.take(UInt8(ascii: ",")) else { return nil }
                    cursor.skipWhitespace()
                    guard let (high, highLength) = cursor.digitString(), highLength == length, low <= high else { return nil }
                    cursor.skipWhitespace()
                    guard cursor.take(UInt8(ascii: "]")) else { return nil }
                    patterns.append(IINPattern(lowValue: low, highValue: high, length: length))
                } else {
                    guard let (value, length) = cursor.digitString() else { return nil }
                    patterns.append(IINPattern(lowValue: value, highValue: value, length: length))
                }
                locations.append(at)
                cursor.skipWhitespace()
                if cursor.take(UInt8(ascii: ",")) { continue }
                return cursor.take(UInt8(ascii: "]")) ? cursor : nil
            }
        }
        guard let end else { return nil }
        index = end.index
        line = end.line
        lineStart = end.lineStart
        setColumn(end.anchorColumn, at: end.anchor)
        return (patterns, locations)
    }
}

/// Where `scanPatternArray` is, over raw bytes: the byte, the line, and a place on the line
/// whose column is known (everything it passes is ASCII, so columns follow from it).
private struct PatternCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    var line: Int
    var lineStart: Int
    var anchor: Int
    var anchorColumn: Int

    init(bytes: UnsafeBufferPointer<UInt8>, at index: Int, line: Int, lineStart: Int, column: Int) {
        self.bytes = bytes
        self.index = index
        self.line = line
        self.lineStart = lineStart
        (anchor, anchorColumn) = (index, column)
    }

    var location: SourceLocation { SourceLocation(line: line, column: anchorColumn + (index - anchor)) }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = index
                (anchor, anchorColumn) = (index, 1)
            default:
                return
            }
        }
    }

    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A string of 1–19 ASCII digits and nothing else: its value and length.
    @inline(__always)
    mutating func digitString() -> (UInt64, Int)? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var j = index + 1, value: UInt64 = 0
        while j < bytes.count, bytes[j] &- UInt8(ascii: "0") < 10, j - index <= 19 {
            value = value &* 10 &+ UInt64(bytes[j] &- UInt8(ascii: "0"))
            j += 1
        }
        let length = j - index - 1
        guard j < bytes.count, bytes[j] == UInt8(ascii: "\""), length >= 1 else { return nil }
        index = j + 1
        return (value, length)
    }
}

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
                        guard let read = key == "prefixes" ? scanPrefixes() : scanRanges() else { return nil }
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

    /// `["4", "51", …]` at the reader: each prefix and the location of its string.
    private mutating func scanPrefixes() -> (patterns: [IINPattern], locations: [SourceLocation])? {
        var patterns: [IINPattern] = [], locations: [SourceLocation] = []
        let scanned = scanArray { reader in
            let at = reader.location
            guard let (value, length) = reader.scanDigitString() else { return false }
            patterns.append(IINPattern(lowValue: value, highValue: value, length: length))
            locations.append(at)
            return true
        }
        return scanned ? (patterns, locations) : nil
    }

    /// `[["2221", "2720"], …]` at the reader: each range and the location of its array.
    private mutating func scanRanges() -> (patterns: [IINPattern], locations: [SourceLocation])? {
        var patterns: [IINPattern] = [], locations: [SourceLocation] = []
        let scanned = scanArray { reader in
            guard reader.current == UInt8(ascii: "[") else { return false }
            let at = reader.location
            reader.index += 1
            reader.skipWhitespace()
            guard let (low, length) = reader.scanDigitString() else { return false }
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: ",") else { return false }
            reader.index += 1
            reader.skipWhitespace()
            guard let (high, highLength) = reader.scanDigitString(), highLength == length, low <= high else { return false }
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: "]") else { return false }
            reader.index += 1
            patterns.append(IINPattern(lowValue: low, highValue: high, length: length))
            locations.append(at)
            return true
        }
        return scanned ? (patterns, locations) : nil
    }

    /// An array at the reader, `item` reading each element (false: give up); the same
    /// whitespace and separators the general reader takes.
    private mutating func scanArray(_ item: (inout JSONReader) -> Bool) -> Bool {
        index += 1  // [
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return true }
        while true {
            skipWhitespace()
            guard item(&self) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return true
            default: return false
            }
        }
    }

    /// A string of 1–19 ASCII digits and nothing else at the reader: its value and length.
    private mutating func scanDigitString() -> (UInt64, Int)? {
        guard current == UInt8(ascii: "\"") else { return nil }
        let first = index + 1
        let found: (UInt64, Int)? = bytes.withUnsafeBufferPointer { bytes in
            var at = first, value: UInt64 = 0
            while at < bytes.count, at - first < 20 {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    let length = at - first
                    return length >= 1 && length <= 19 ? (value, length) : nil
                }
                guard byte &- UInt8(ascii: "0") < 10 else { return nil }
                value = value &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                at += 1
            }
            return nil
        }
        guard let found else { return nil }
        index = first + found.1 + 1
        return found
    }
}

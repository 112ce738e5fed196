/// A JSON value that remembers where each of its parts starts in the source text, so that
/// rule errors can name the line and column of the offending value. Not `indirect`: objects
/// and arrays already hold their parts in arrays, so a value needs no box of its own (one
/// allocation fewer for every value of a 100,000-range file).
public enum JSONValue: Sendable {
    /// An object: its members in source order, and where it starts.
    case object([Member], SourceLocation)
    /// An array: its elements, and where it starts.
    case array([JSONValue], SourceLocation)
    /// A string, escapes resolved, and where it starts.
    case string(String, SourceLocation)
    /// The number's literal text, kept exact (rule files only use integers).
    case number(String, SourceLocation)
    /// `true` or `false`, and where it starts.
    case bool(Bool, SourceLocation)
    /// `null`, and where it starts.
    case null(SourceLocation)

    /// One `"key": value` pair of an object, in source order.
    public struct Member: Sendable {
        /// The member's name, escapes resolved.
        public var key: String
        /// Where the name (its opening quote) starts.
        public var keyLocation: SourceLocation
        /// The member's value.
        public var value: JSONValue
    }

    /// Where the value starts in the source text.
    public var location: SourceLocation {
        switch self {
        case .object(_, let l), .array(_, let l), .string(_, let l), .number(_, let l),
            .bool(_, let l), .null(let l):
            return l
        }
    }

    /// What kind of value this is, as a rule author would say it ("a string", "an array").
    public var kindName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// Why a text is not JSON, and where.
public struct JSONSyntaxError: Error, Equatable, Sendable {
    /// Where the problem was found.
    public var location: SourceLocation
    /// What is wrong, in words.
    public var message: String
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259). Up to 64 levels of objects and arrays are allowed;
    /// deeper nesting is refused. A UTF-8 byte order mark at the start is skipped.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: bytes)
        return try reader.readDocument()
    }
}

/// A cursor over UTF-8 bytes that tracks line and column.
struct JSONReader {
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is allowed and skipped.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
    }

    /// The whole text as one JSON value, with nothing but whitespace after it.
    mutating func readDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try readValue(depth: 0)
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected text after the JSON value")
        }
        return value
    }

    /// Where `column` was last worked out: each location counts only the characters read
    /// since the one before, so a long line costs linear time, not quadratic.
    private var columnIndex = 0
    private var column = 1

    /// Where the reader is. Columns count characters (Unicode scalars): UTF-8 continuation
    /// bytes are skipped.
    var location: SourceLocation {
        mutating get {
            if columnIndex < lineStart || columnIndex > index { (columnIndex, column) = (lineStart, 1) }
            let (from, to) = (columnIndex, index)
            var characters = 0
            do {
                // The bytes borrowed in place (no copy of the array, so no retain and release):
                // nothing of `self` changes while they are held.
                let text = bytes.span
                for i in from..<to where text[i] & 0xC0 != 0x80 { characters += 1 }
            }
            column += characters
            columnIndex = index
            return SourceLocation(line: line, column: column)
        }
    }

    mutating func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(location: location, message: message)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = index
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            default:
                return
            }
        }
    }

    mutating func readValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        let start = location
        guard let byte = current else { throw error("expected a JSON value, found the end of the file") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // `depth` objects and arrays hold this one: it may be the 64th, not the 65th.
            guard depth < 64 else { throw error("JSON nested more than 64 levels deep") }
            return byte == UInt8(ascii: "{") ? try readObject(depth: depth) : try readArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try readString(), start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber(), start)
        default:
            for (word, value) in [
                ("true", JSONValue.bool(true, start)), ("false", .bool(false, start)), ("null", .null(start)),
            ]
            where bytes[index...].starts(with: word.utf8) {
                index += word.utf8.count
                return value
            }
            throw error("expected a JSON value, found \(describe(byte))")
        }
    }

    mutating func readObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        let start = location
        index += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members, start)
        }
        members.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw error("expected a quoted field name, found \(describe(current))")
            }
            let keyLocation = location
            let key = try readString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw error("expected ':' after \"\(key.escapingControlCharacters)\", found \(describe(current))")
            }
            index += 1
            skipWhitespace()
            let value = try readValue(depth: depth + 1)
            members.append(.init(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members, start)
            default: throw error("expected ',' or '}' in an object, found \(describe(current))")
            }
        }
    }

    mutating func readArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        let start = location
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements, start)
        }
        elements.reserveCapacity(2)  // a range: one allocation, not two
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements, start)
            default: throw error("expected ',' or ']' in an array, found \(describe(current))")
            }
        }
    }

    mutating func readString() throws(JSONSyntaxError) -> String {
        let opening = index
        /// A string that is not UTF-8 is reported at its opening quote (located only then).
        func notUTF8() -> JSONSyntaxError {
            index = opening
            return error("the string is not valid UTF-8")
        }
        index += 1  // opening quote
        var text = ""
        var run = index
        var ascii = true  // the run so far holds only ASCII bytes
        /// Appends `bytes[run..<upTo]` to `text`; false when it is not valid UTF-8.
        func flush(_ upTo: Int, into text: inout String) -> Bool {
            guard run < upTo else { return true }
            let slice = bytes[run..<upTo]  // contiguous: both initializers read it in place
            // ASCII is valid UTF-8 as it is: the decoding initializer's fast path.
            let piece: String? =
                ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            guard let piece else { return false }
            if text.isEmpty { text = piece } else { text += piece }
            return true
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard flush(index, into: &text) else { throw notUTF8() }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                guard flush(index, into: &text) else { throw notUTF8() }
                let escapeStart = location  // an unknown escape is reported at its backslash
                index += 1
                guard let escaped = current else { throw error("unterminated string") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): text.unicodeScalars.append("\"")
                case UInt8(ascii: "\\"): text.unicodeScalars.append("\\")
                case UInt8(ascii: "/"): text.unicodeScalars.append("/")
                case UInt8(ascii: "b"): text.unicodeScalars.append("\u{8}")
                case UInt8(ascii: "f"): text.unicodeScalars.append("\u{C}")
                case UInt8(ascii: "n"): text.unicodeScalars.append("\n")
                case UInt8(ascii: "r"): text.unicodeScalars.append("\r")
                case UInt8(ascii: "t"): text.unicodeScalars.append("\t")
                case UInt8(ascii: "u"):
                    var code: UInt32 = 0
                    for _ in 0..<4 {
                        guard let h = current, let digit = hexValue(h) else {
                            throw error("expected four hex digits after \\u")
                        }
                        code = code * 16 + digit
                        index += 1
                    }
                    // Surrogates are not needed by rule files; a lone one is replaced.
                    text.unicodeScalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                case 0x21..<0x7F:
                    throw JSONSyntaxError(
                        location: escapeStart, message: "unknown escape '\\\(Character(Unicode.Scalar(escaped)))'")
                default:
                    throw JSONSyntaxError(
                        location: escapeStart, message: "unknown escape '\\' followed by \(describe(escaped))")
                }
                run = index
                ascii = true
            case 0..<0x20:
                throw error(byte == UInt8(ascii: "\n") ? "unterminated string" : "control character in a string")
            default:
                if byte >= 0x80 { ascii = false }
                index += 1
            }
        }
    }

    /// Reads a number's text and checks it against the RFC 8259 grammar,
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, byte by byte.
    mutating func readNumber() throws(JSONSyntaxError) -> String {
        let start = index
        while let byte = current, Self.isNumberByte(byte) { index += 1 }
        let end = index
        var at = start
        func digits() -> Int {
            let first = at
            while at < end, bytes[at] &- UInt8(ascii: "0") < 10 { at += 1 }
            return at - first
        }
        if at < end, bytes[at] == UInt8(ascii: "-") { at += 1 }
        let intStart = at
        let intDigits = digits()
        var ok = intDigits > 0 && !(intDigits > 1 && bytes[intStart] == UInt8(ascii: "0"))
        if ok, at < end, bytes[at] == UInt8(ascii: ".") {
            at += 1
            ok = digits() > 0
        }
        if ok, at < end, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            if at < end, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            ok = digits() > 0
        }
        // Only bytes of "+-.eE0123456789" were taken: the text is ASCII.
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        guard ok, at == end else {
            index = start
            throw error("malformed number '\(text)'")
        }
        return text
    }

    /// The bytes a number's text is made of: `+-.eE0123456789`.
    static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "the end of the file" }
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}

extension Character {
    /// True for the ten ASCII digits only (not other scripts' digits).
    var isASCIIDigit: Bool { singleASCIIByte.map { $0 &- 48 < 10 } ?? false }

    /// The byte of a one-byte (ASCII) character, read from its UTF-8 view: `asciiValue` costs
    /// far more, and the engine asks for every key.
    var singleASCIIByte: UInt8? {
        let bytes = utf8
        guard bytes.count == 1 else { return nil }
        let byte = bytes[bytes.startIndex]  // (not `first`: a generic call, not inlined)
        return byte < 0x80 ? byte : nil
    }
}

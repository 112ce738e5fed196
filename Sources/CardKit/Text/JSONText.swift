extension String {
    /// The string as a JSON string literal, quotes included (RFC 8259 escapes; C1 and
    /// bidirectional controls too, as `\u` escapes, so the JSON is safe on a terminal).
    public var jsonQuoted: String {
        var out = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.isControl:
                out += "\\u" + String(String(scalar.value, radix: 16).reversed()).padding(to: 4).reversed()
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: "0", count: width - count)
    }
}

extension String {
    /// Text from outside (file and rule names, `.session` text, titles, option values, error
    /// messages that quote them) as it may be shown on a terminal: any card number in it
    /// masked (`CardNumber.maskingDigits(in:)`), then control characters (C0, DEL, C1, which
    /// could move the cursor, clear the screen, forge a line or write to the clipboard) and
    /// bidirectional controls (U+202A–202E, U+2066–2069, U+200E/200F, U+061C, which reorder
    /// what follows) written as `\n`, `\t` or `\u{1B}`. The one function for such text.
    public var escapingControlCharacters: String { escapingControlCharacters(keepingLineBreaks: false) }

    /// `escapingControlCharacters`, with line breaks (`\n`) kept when `keepingLineBreaks`
    /// (a message of several lines, like argument-parser's errors).
    public func escapingControlCharacters(keepingLineBreaks: Bool) -> String {
        let text = CardNumber.maskingDigits(in: self)
        guard text.unicodeScalars.contains(where: { $0.isControl && !(keepingLineBreaks && $0 == "\n") }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n" where keepingLineBreaks: out.unicodeScalars.append(scalar)
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.isControl: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// C0 controls, DEL, C1 controls and the bidirectional controls (embeddings, overrides,
    /// isolates, marks): none may reach a terminal from text it did not write.
    var isControl: Bool {
        switch value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension [UInt8] {
    /// Appends a literal's UTF-8 bytes.
    @inline(__always) mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }  // (the literal's bytes read in place, one append)
    }
}

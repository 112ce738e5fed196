extension String {
    /// The string as a JSON string literal, quotes included (RFC 8259 escapes).
    public var jsonQuoted: String {
        var out = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(String(scalar.value, radix: 16).reversed()).padding(to: 4).reversed()
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    fileprivate func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: "0", count: width - count) }
}

extension String {
    /// The text safe to show on a terminal: control characters (C0, DEL and C1, which could
    /// move the cursor, clear the screen or forge a line) written as `\n`, `\t` or `\u{1B}`.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControl) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
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
    /// C0 controls, DEL and C1 controls.
    var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

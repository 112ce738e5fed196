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

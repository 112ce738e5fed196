#if canImport(Glibc)
import Glibc
#endif
import CardKit

/// Process-level facts about the terminal and the clock.
enum Terminal {
    /// Colour unless turned off by flag, by NO_COLOR (any non-empty value), by TERM=dumb, or
    /// because stdout is not a terminal.
    static func wantsColour(disabled: Bool) -> Bool {
        if disabled || isatty(1) != 1 { return false }
        if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
        return true
    }

    static func writeOut(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(1, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { if errno == EINTR { continue }; return }
                offset += written
            }
        }
    }

    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress!, bytes.count) }
    }
}

enum SystemClock {
    /// This month in the local time zone.
    static func currentMonth() -> YearMonth {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return YearMonth(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1)
    }
}

/// Lines of standard input, read with `readLine` (invalid UTF-8 becomes U+FFFD, which the
/// engine refuses like any other non-digit).
struct StandardInputLines: Sequence, IteratorProtocol {
    mutating func next() -> String? { readLine(strippingNewline: true) }
}

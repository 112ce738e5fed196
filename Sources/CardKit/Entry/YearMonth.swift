/// A calendar month: "today" for expiry checks, and a card's expiry.
public struct YearMonth: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The full year: `2030`, not `30`.
    public var year: Int
    /// The month, 1–12.
    public var month: Int

    /// A month from a full year and a month 1–12 (neither is checked).
    public init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// Parses `YYYY-MM` (as given to `--today` and `@today`).
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month), year >= 1
        else { return nil }
        self.init(year: year, month: month)
    }

    /// Earlier months come first.
    public static func < (a: YearMonth, b: YearMonth) -> Bool { (a.year, a.month) < (b.year, b.month) }

    /// `MM/YY`, as printed on cards.
    public var cardText: String {
        var bytes: [UInt8] = []
        appendCardText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `cardText`'s bytes (a card's summary writes them straight into its line).
    func appendCardText(to bytes: inout [UInt8]) {
        appendTwoDigits(month, to: &bytes)
        bytes.append(UInt8(ascii: "/"))
        appendTwoDigits(year % 100, to: &bytes)
    }

    /// `YYYY-MM`, like `2030-12`.
    public var description: String { "\(year)-\(twoDigits(month))" }
}

func twoDigits(_ value: Int) -> String {
    var bytes: [UInt8] = []
    appendTwoDigits(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// Appends `value` in decimal, after a `0` when it is below 10 (`07`, `12`).
func appendTwoDigits(_ value: Int, to bytes: inout [UInt8]) {
    if value >= 0 && value < 100 {  // (a month, a year's last two digits: two bytes)
        bytes.append(UInt8(truncatingIfNeeded: value / 10) + 48)
        bytes.append(UInt8(truncatingIfNeeded: value % 10) + 48)
        return
    }
    if value < 10 { bytes.append(UInt8(ascii: "0")) }
    if value >= 0 { bytes.appendDecimal(value) } else { bytes.append(contentsOf: "\(value)".utf8) }
}

/// Which expiry dates are acceptable: not before the current month, not too far ahead.
public struct ExpiryPolicy: Equatable, Sendable {
    /// The current month: expiries before it are `past`.
    public var today: YearMonth
    /// How many years after this one a card may expire (20 by default).
    public var maxYearsAhead: Int

    /// A policy as of `today`, taking expiries up to `maxYearsAhead` years after its year.
    public init(today: YearMonth, maxYearsAhead: Int = 20) {
        self.today = today
        self.maxYearsAhead = maxYearsAhead
    }

    /// The full year a card's two-digit year means: the year ending in those digits that is
    /// nearest to this one (within 50 years back and 49 ahead), so "25" in 2026 is 2025, past.
    public func fullYear(_ twoDigitYear: Int) -> Int {
        var year = today.year - today.year % 100 + twoDigitYear
        if year > today.year + 49 { year -= 100 }
        if year < today.year - 50 { year += 100 }
        return year
    }

    /// `valid`; `past`: before `today`'s month; `tooFar`: more than `maxYearsAhead` years after `today`'s year.
    public enum Verdict: Equatable, Sendable { case valid, past, tooFar }

    /// Whether a card expiring in `expiry` can be taken this month.
    public func check(_ expiry: YearMonth) -> Verdict {
        if expiry < today { return .past }
        if expiry.year > today.year + maxYearsAhead { return .tooFar }
        return .valid
    }

    /// Checks a month and a two-digit year.
    public func check(month: Int, twoDigitYear: Int) -> Verdict {
        check(YearMonth(year: fullYear(twoDigitYear), month: month))
    }

    /// Whether the first `digitCount` digits of a four-digit year (`prefix`: `20` of 2030,
    /// `203`) can still end in a valid expiry in `month`: the expiry field takes `MM/YYYY`
    /// when a two-digit reading of `MM/20` is not valid.
    public func fourDigitYearCanContinue(month: Int, prefix: Int, digitCount: Int) -> Bool {
        guard digitCount >= 1, digitCount <= 4 else { return false }
        var scale = 1
        for _ in digitCount..<4 { scale *= 10 }
        let first = max(prefix * scale, today.year)
        let last = min(prefix * scale + scale - 1, today.year + maxYearsAhead)
        guard first <= last else { return false }
        // Any whole year in the range is valid but perhaps the first (past for an earlier month).
        return check(YearMonth(year: last, month: month)) == .valid
    }
}

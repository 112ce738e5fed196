/// The masking policy (`CardPolicy.shownDigits`) applied to numbers and to free text. Every
/// surface but the live field and the output the caller asked for (screen lines after the field
/// is done, messages, command echoes, transcripts, history, errors, `check`, `replay`, text from
/// outside) masks through here or, writing bytes of its own, through `CardPolicy.shownDigits`.
///
/// - A number shows at most what `CardPolicy.shownDigits(count:)` allows (first six and last
///   four; a shorter one at most half of its digits, the last ones first).
/// - In free text, a *card-number run* is 8 or more ASCII digits (ISO/IEC 7812's shortest
///   account number) in groups joined by a single space, dash, dot or slash, however people
///   type numbers: `4111 1111-1111.1111`, `3782 822463 10005`. Groups joined by anything
///   looser — several spaces, commas or any other ASCII punctuation between them, or one
///   letter among them (`4256  9674  1851  8869`, `4256,9674,…`, `a4256967b418518869`) — make
///   a run too once they hold 13 digits or more (`shortestLooselyWrittenNumber`).
///   `line 12:`, `12/30`, a date (`2026-11-25`, `25/11/2026`), a time and `:use 2` are not
///   runs. Which digits of a run are the number is decided by `numberSpan`; digits of the run
///   that are not part of it (an expiry or CVV typed after it) are masked, but for a location
///   set apart from the number by a colon (`line 12: 4111…`), and so is every digit in what
///   follows the run up to the first character that is not a digit, space, tab, `/`, `-`,
///   `.` or `,` (`4111111111111111 12/30 987` → `411111••••••1111 ••/•• •••`).
extension CardNumber {
    /// The fewest digits a run in free text needs to be taken for a card number: the shortest
    /// card number.
    public static let shortestNumberInText = CardPolicy.numberLengths.lowerBound

    /// The fewest digits groups joined loosely (several spaces, other punctuation, a letter
    /// among them) need to be taken for a card number: from 13 digits a number shows its first
    /// six and last four (`CardPolicy.shownDigits`), so no such text shows more than those.
    public static let shortestLooselyWrittenNumber = 13

    /// A group of digits in free text: its first byte, its digit count, and how it is joined to
    /// the group before it (`tight`: one space, dash, dot or slash; `afterColon`: by a stretch
    /// holding a colon, as a location is: `line 12: 4111…`, `file:12:5: 4111…`).
    struct Group {
        var start: Int
        var count: Int
        var tight = true
        var afterColon = false
    }

    /// The digits (values 0–9) masked: "411111••••••1111" (`mask` `•` for text people read;
    /// `*` where machine-readable output asks for it).
    public static func masked(_ digits: some Collection<UInt8>, mask: Unicode.Scalar = CardPolicy.mask) -> String {
        var bytes: [UInt8] = []
        appendMasked(digits, mask: mask, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `masked(digits, mask:)`'s bytes.
    public static func appendMasked(
        _ digits: some Collection<UInt8>, mask: Unicode.Scalar = CardPolicy.mask, to out: inout [UInt8]
    ) {
        let shown = CardPolicy.shownDigits(count: digits.count)
        for (index, digit) in digits.enumerated() {
            if shown.shows(index) { out.append(digit + 48) } else { appendMark(mask, to: &out) }
        }
    }

    /// A number as a field shows it (digits in groups, nothing else: "3782 822463 10005"),
    /// masked as one number whatever its length: "3782 82•••• •0005".
    public static func maskingNumber(in text: String, mask: Unicode.Scalar = CardPolicy.mask) -> String {
        var bytes: [UInt8] = []
        appendMaskingNumber(text, mask: mask, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `maskingNumber(in:)`'s bytes.
    public static func appendMaskingNumber(
        _ text: String, mask: Unicode.Scalar = CardPolicy.mask, to out: inout [UInt8]
    ) {
        var text = text
        // unsafe: the text's bytes read in place (a card number: no copy of its digits is made).
        text.withUTF8 { bytes in
            var count = 0
            for byte in bytes where byte &- 48 < 10 { count += 1 }
            out.reserveCapacity(out.count + bytes.count + 2 * count)  // one growth at most, not one per mark
            let hidden = CardPolicy.shownDigits(count: count).hidden
            // The shown start and end are copied whole; only the hidden stretch byte by byte.
            var seen = 0
            var index = 0
            while index < bytes.count && (bytes[index] &- 48 >= 10 || seen < hidden.lowerBound) {
                if bytes[index] &- 48 < 10 { seen += 1 }
                index += 1
            }
            out.append(contentsOf: bytes[..<index])
            while index < bytes.count && (bytes[index] &- 48 >= 10 || seen < hidden.upperBound) {
                if bytes[index] &- 48 < 10 {
                    appendMark(mask, to: &out)
                    seen += 1
                } else {
                    out.append(bytes[index])
                }
                index += 1
            }
            out.append(contentsOf: bytes[index...])
        }
    }

    /// The text with every card-number run in it masked (see the policy above), other
    /// characters kept: `unknown command ':4111111111111111 12/30 987'` →
    /// `unknown command ':411111••••••1111 ••/•• •••'`.
    public static func maskingDigits(in text: String, mask: Unicode.Scalar = CardPolicy.mask) -> String {
        guard mayHoldCardNumber(text) else { return text }
        var bytes: [UInt8] = []
        appendMasking(text, mask: mask, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `maskingDigits(in: text)`'s bytes.
    public static func appendMasking(_ text: String, mask: Unicode.Scalar = CardPolicy.mask, to out: inout [UInt8]) {
        var text = text
        // unsafe: the text's bytes read in place (a card number: no copy of its digits is made).
        text.withUTF8 { appendMasking($0, mask: mask, to: &out) }
    }

    /// Appends the UTF-8 `bytes` with every card-number run masked.
    static func appendMasking<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, mask: Unicode.Scalar = CardPolicy.mask,
        to out: inout [UInt8]
    ) where Bytes.Index == Int {
        var total = 0
        for byte in bytes where byte &- 48 < 10 { total += 1 }
        guard total >= shortestNumberInText else { return out.append(contentsOf: bytes) }
        out.reserveCapacity(out.count + bytes.count + total * 2)
        var index = 0
        var afterNumber = false  // in the digits, spaces and punctuation that follow a number
        // The run's groups of digits.
        var groups: [Group] = []
        while index < bytes.count {
            let byte = bytes[index]
            guard byte &- 48 < 10 else {
                if afterNumber && !isTrailing(byte) { afterNumber = false }
                out.append(byte)
                index += 1
                continue
            }
            // A run: the groups joined loosely from here when they hold enough digits to be a
            // number written loosely; else those joined by one space, dash, dot or slash (the
            // groups after a loose joint are looked at again from their own start).
            groups.removeAll(keepingCapacity: true)
            var end = looselyJoinedGroups(bytes, from: index, into: &groups)
            var digits = groups.reduce(0) { $0 + $1.count }
            if digits < shortestLooselyWrittenNumber, let loose = groups.firstIndex(where: { !$0.tight }) {
                groups.removeSubrange(loose...)
                end = groups[loose - 1].start + groups[loose - 1].count
                digits = groups.reduce(0) { $0 + $1.count }
            }
            // A date (2026-11-25, 25/11/2026) is not a number, unless it follows one.
            let isDate =
                groups.count == 3 && groups[1].count == 2
                && (groups[0].count == 4 && groups[2].count == 2 || groups[0].count == 2 && groups[2].count == 4)
            if digits < shortestNumberInText || isDate && !afterNumber {
                // Not a number: kept, unless it follows one (its expiry or code).
                for i in index..<end {
                    bytes[i] &- 48 < 10 && afterNumber ? appendMark(mask, to: &out) : out.append(bytes[i])
                }
            } else {
                // Digit positions (counted across the run) that are shown.
                var shown = 0..<0
                var shownEnd = 0..<0
                if let span = numberSpan(bytes, groups) {
                    let offset = groups[..<span.lowerBound].reduce(0) { $0 + $1.count }
                    let count = groups[span].reduce(0) { $0 + $1.count }
                    let policy = CardPolicy.shownDigits(count: count)
                    shown = offset..<(offset + policy.first)
                    shownEnd = (offset + count - policy.last)..<(offset + count)
                    // A location before the number, set apart by a colon (`line 12: 4111…`): kept.
                    if span.lowerBound > 0 && groups[span.lowerBound].afterColon && !afterNumber
                        && offset < shortestNumberInText
                    {
                        shown = 0..<shown.upperBound
                    }
                } else if groups[0].count >= 4 {
                    // Where the number ends is not known: only its start is shown.
                    shown = 0..<CardPolicy.shownDigits(count: min(digits, CardPolicy.longestNumber)).first
                }
                var position = 0
                for i in index..<end {
                    let byte = bytes[i]
                    if byte &- 48 < 10 {
                        shown.contains(position) || shownEnd.contains(position)
                            ? out.append(byte) : appendMark(mask, to: &out)
                        position += 1
                    } else {
                        out.append(byte)
                    }
                }
                afterNumber = true
            }
            index = end
        }
    }

    /// Which groups of a card-number run make the number: the one reading that passes the
    /// Luhn check among the whole run (8–19 digits) and the stretches of whole groups of
    /// 12–19 digits; when none passes, the whole run if it is one group of at most 19 digits
    /// (a number typed with a mistake). nil when it cannot be told (two readings pass, or a
    /// failing run of several groups): the caller then shows no last digits.
    static func numberSpan<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ groups: [Group]) -> Range<Int>?
    where Bytes.Index == Int {
        let total = groups.reduce(0) { $0 + $1.count }
        var found: Range<Int>?
        for low in groups.indices {
            var count = 0
            for high in low..<groups.count {
                count += groups[high].count
                if count > CardPolicy.longestNumber { break }
                let whole = low == 0 && high == groups.count - 1
                guard count >= 12 || whole && count >= shortestNumberInText else { continue }
                let digits = groups[low...high].flatMap { bytes[$0.start..<($0.start + $0.count)] }.map { $0 &- 48 }
                if passesLuhn(digits) {
                    if found != nil { return nil }
                    found = low..<(high + 1)
                }
            }
        }
        if found == nil && groups.count == 1 && total <= CardPolicy.longestNumber { return 0..<1 }
        return found
    }

    /// Characters that may stand, one at a time, between digits of one run.
    @inline(__always) private static func isJoining(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x2D || byte == 0x2E || byte == 0x2F
    }

    /// Reads the groups of digits from `start` (a digit) into `groups`, each joined to the one
    /// before by a stretch of spaces, tabs and ASCII punctuation of any length, with at most one
    /// letter in it (`4256  9674`, `4256,9674`, `4256967b4185`; not `4111 line 12`); returns
    /// where the last group ends. (Not `•` or any other character beyond ASCII: text masked
    /// already reads the same again.)
    static func looselyJoinedGroups<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, from start: Int, into groups: inout [Group]
    ) -> Int
    where Bytes.Index == Int {
        var end = start
        var group = Group(start: start, count: 0)
        while true {
            while end < bytes.count && bytes[end] &- 48 < 10 { end += 1 }
            group.count = end - group.start
            groups.append(group)
            var next = end
            var letters = 0
            var colon = false
            while next < bytes.count, bytes[next] &- 48 >= 10, bytes[next] == 0x09 || bytes[next] &- 0x20 < 0x5F {
                if (bytes[next] | 0x20) &- 0x61 < 26 {
                    letters += 1
                    if letters > 1 { return end }
                }
                if bytes[next] == UInt8(ascii: ":") { colon = true }
                next += 1
            }
            guard next < bytes.count, bytes[next] &- 48 < 10 else { return end }
            group = Group(start: next, count: 0, tight: next == end + 1 && isJoining(bytes[end]), afterColon: colon)
            end = next
        }
    }

    /// Characters that may stand between a number and the expiry or code typed after it.
    @inline(__always) private static func isTrailing(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x2F || byte == 0x2D || byte == 0x2E || byte == 0x2C
    }

    @inline(__always) static func appendMark(_ mask: Unicode.Scalar, to out: inout [UInt8]) {
        if mask == CardPolicy.mask {
            out.append(0xE2)
            out.append(0x80)
            out.append(0xA2)
        } else {
            out.append(contentsOf: UTF8.encode(mask)!)
        }
    }

    /// True when `text` holds 8 or more ASCII digits in all, whatever stands between them
    /// (`4111 1111-1111.1111`): enough to be part of a card number, so the text is never kept
    /// or shown whole outside the live field. No `:` command needs that many digits.
    public static func mayHoldCardNumber(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 where byte &- 48 < 10 {
            count += 1
            if count >= shortestNumberInText { return true }
        }
        return false
    }
}

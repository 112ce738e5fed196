/// A data object list (DOL): what a card asks the terminal for, as tag-and-length pairs with no
/// values (a PDOL, `9F38`, asks for them in GET PROCESSING OPTIONS). `fill(_:with:)` walks it
/// in order and writes each value at the length asked, so a tag listed twice is written twice
/// (a real Visa PDOL lists `9A` twice).
public enum DataObjectList {
    /// One entry: a tag and the length the card wants its value in.
    public struct Entry: Equatable, Sendable {
        public let tag: UInt32
        public let length: Int
        public init(tag: UInt32, length: Int) {
            self.tag = tag
            self.length = length
        }
    }

    /// The longest filled DOL sent: GPO's data must fit one short APDU with its `83 81 L` header.
    public static let longestFilled = 250

    /// The entries of a DOL's bytes (`bytes[range]`); nil when a tag or length is cut short or
    /// a length is not one byte (`81 xx` is allowed).
    public static func entries(of bytes: [UInt8], in range: Range<Int>) -> [Entry]? {
        var entries: [Entry] = []
        var index = range.lowerBound
        while index < range.upperBound {
            guard let tag = try? BERTLV.readTag(bytes, at: &index, end: range.upperBound), index < range.upperBound
            else { return nil }
            var length = Int(bytes[index])
            index += 1
            if length == 0x81 {
                guard index < range.upperBound else { return nil }
                length = Int(bytes[index])
                index += 1
            } else if length & 0x80 != 0 {
                return nil
            }
            entries.append(Entry(tag: tag, length: length))
        }
        return entries
    }

    /// The values of `entries`, in order, each at its length: the terminal's value when it has
    /// one (`TerminalValues.value(for:)`), cut or padded as its format says (numeric: zeros on
    /// the left; anything else: zeros on the right), and zeros for a tag it does not know
    /// (EMV Book 3 §5.4). nil when the values would not fit `longestFilled`.
    public static func fill(_ entries: [Entry], with terminal: TerminalValues) -> [UInt8]? {
        guard entries.reduce(0, { $0 + $1.length }) <= longestFilled else { return nil }
        var out: [UInt8] = []
        for entry in entries {
            guard let value = terminal.value(for: entry.tag) else {
                out.append(contentsOf: repeatElement(0, count: entry.length))
                continue
            }
            if TerminalValues.numericTags.contains(entry.tag) {
                if value.count >= entry.length {
                    out.append(contentsOf: value.suffix(entry.length))
                } else {
                    out.append(contentsOf: repeatElement(0, count: entry.length - value.count))
                    out.append(contentsOf: value)
                }
            } else {
                out.append(contentsOf: value.prefix(entry.length))
                if value.count < entry.length {
                    out.append(contentsOf: repeatElement(0, count: entry.length - value.count))
                }
            }
        }
        return out
    }
}

/// The values a terminal gives a card that asks for them in a PDOL. A reader that only reads
/// the card for entry sends an amount of 1.00 EUR in France, as the public readers listed in
/// EMV.md do, today's date, and an unpredictable number the caller draws (so a replay can fix it).
public struct TerminalValues: Equatable, Sendable {
    /// Today, as the card's `9A` wants it: year in two digits, month, day.
    public var year: Int
    public var month: Int
    public var day: Int
    /// `9F37`, four bytes the caller draws at random (fixed in replays and tests).
    public var unpredictableNumber: [UInt8]

    public init(year: Int, month: Int, day: Int, unpredictableNumber: [UInt8]) {
        self.year = year
        self.month = month
        self.day = day
        self.unpredictableNumber = unpredictableNumber
    }

    /// Tags whose values are numeric (format `n`): padded and cut on the left.
    static let numericTags: Set<UInt32> = [0x9F02, 0x9F03, 0x9F1A, 0x5F2A, 0x9A, 0x9C]

    /// The value of `tag`, or nil for a tag this terminal has no value for (sent as zeros).
    public func value(for tag: UInt32) -> [UInt8]? {
        switch tag {
        case 0x9F66: return [0xF6, 0x20, 0xC0, 0x00]  // terminal transaction qualifiers
        case 0x9F02: return [0x00, 0x00, 0x00, 0x00, 0x01, 0x00]  // amount, authorised: 1.00
        case 0x9F03: return [0x00, 0x00, 0x00, 0x00, 0x00, 0x00]  // amount, other
        case 0x9F1A: return [0x02, 0x50]  // terminal country: France
        case 0x5F2A: return [0x09, 0x78]  // transaction currency: euro
        case 0x95: return [0x00, 0x00, 0x00, 0x00, 0x00]  // terminal verification results
        case 0x9A: return [Self.bcd(year % 100), Self.bcd(month), Self.bcd(day)]  // transaction date
        case 0x9C: return [0x00]  // transaction type: purchase
        case 0x9F37: return unpredictableNumber
        case 0x9F35: return [0x22]  // terminal type: attended, offline with online capability
        case 0x9F6E: return [0xD8, 0xE0, 0x00, 0x00]  // Amex enhanced contactless reader capabilities
        default: return nil
        }
    }

    static func bcd(_ value: Int) -> UInt8 { UInt8(((value / 10) % 10) << 4 | value % 10) }
}

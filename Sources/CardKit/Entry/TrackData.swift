/// What a magnetic stripe's tracks say about a card, as a keyboard-wedge reader types them:
/// track 1 (ISO/IEC 7813 format B, `%B4111111111111111^LOVELACE/ADA^3012201…?`), track 2
/// (`;4111111111111111=3012201…?`), or both, track 1 first; a third track after them
/// (`;…?` or `+…?`) is passed over. The one home of the track format: the prompt, piped input
/// and `.session` scripts all read a swipe here (`read(_:)`), then hand the result to the
/// engine as `Key.swipe`.
///
/// Only what a card is delivered with is kept: the number, the expiry, the holder's name and
/// whether the service code says the card has a chip. The service code itself and the
/// discretionary data are read past, never copied; the caller wipes the bytes it read
/// (`Array.overwriteAndEmpty`) and, once the engine has its copy, this value (`wipe()`: the
/// number's digits and the name's bytes).
/// Printing, interpolating and `dump` show the number masked.
public struct TrackData: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The number's digits, each 0–9 (not ASCII).
    public private(set) var numberDigits: [UInt8]
    /// The expiry month on the track, 1–12.
    public let expiryMonth: Int
    /// The expiry year on the track: two digits (`30` for 2030), as the track has it.
    public let expiryYear: Int
    /// The holder's name from track 1, `SURNAME/GIVEN` turned into `GIVEN SURNAME` and trimmed;
    /// nil without track 1 or when its name is blank. Made from `nameBytes`.
    public var holderName: String? { nameBytes.isEmpty ? nil : String(decoding: nameBytes, as: UTF8.self) }
    /// The name's bytes (ASCII, as track 1 holds it), overwritten by `wipe()`.
    private(set) var nameBytes: [UInt8]
    /// True when the service code's first digit is 2 or 6: the card has a chip, and the
    /// caller should ask for it.
    public let chip: Bool

    /// Why bytes are not a readable swipe. Each is shown to a person as the one message
    /// `unreadableMessage`: a reader's garble is not worth telling apart at a counter.
    public enum Problem: Error, Equatable, Sendable {
        /// Neither `%B` (track 1) nor `;` (track 2) starts it.
        case notTrackData
        /// A track stops before its end sentinel `?` (a truncated swipe).
        case noEndSentinel
        /// A track's fields are not where the format puts them (a garbled swipe).
        case malformed
        /// The number is shorter or longer than any card's (`CardPolicy.numberLengths`).
        case numberLength
        /// The expiry is not a month (`YYMM` with MM 01–12).
        case badExpiry
        /// Track 1 and track 2 give different numbers, expiries or service codes.
        case tracksDisagree
        /// Something follows the tracks that is not a third track.
        case trailingText
    }

    /// What a person reads when a swipe cannot be used.
    public static var unreadableMessage: String { MessageCatalog.english.text(.swipeUnreadable) }

    /// The longest swipe read: three full tracks (79 + 40 + 107 characters) with room to spare.
    /// A front end collecting a swipe gives up past it.
    public static let longestSwipe = 512

    /// Whether `byte` starts a swipe: `%` (track 1) or `;` (track 2).
    public static func isStartSentinel(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "%") || byte == UInt8(ascii: ";") }

    /// Where a swipe starts in text seen whole (a piped line, a paste): at its first byte when
    /// that is a start sentinel, else where something starts as track data does, wherever it
    /// stands (`%B` then digits then `^`, or `;` then digits then `=`: after a `:`, after
    /// digits typed, in the CVV's line); nil when nothing does. The front end hands the text
    /// from there to `read(_:)` and the engine as one `Key.swipe`, which the engine refuses
    /// outside an empty card number: track data is never typed as keys, so never echoed.
    public static func swipeStart<Bytes: Collection<UInt8>>(in bytes: Bytes) -> Bytes.Index? {
        if let first = bytes.first, isStartSentinel(first) { return bytes.startIndex }
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let sentinel = bytes[index]
            var next = bytes.index(after: index)
            guard isStartSentinel(sentinel) else {
                index = next
                continue
            }
            if sentinel == UInt8(ascii: "%") {
                guard next != bytes.endIndex, bytes[next] | 0x20 == UInt8(ascii: "b") else {
                    index = next
                    continue
                }
                bytes.formIndex(after: &next)
            }
            var digits = 0
            while next != bytes.endIndex, bytes[next] &- 48 < 10 {
                digits += 1
                bytes.formIndex(after: &next)
            }
            let separator = sentinel == UInt8(ascii: "%") ? UInt8(ascii: "^") : UInt8(ascii: "=")
            if digits > 0, next != bytes.endIndex, bytes[next] == separator { return index }
            index = next
        }
        return nil
    }

    init(numberDigits: [UInt8], expiryMonth: Int, expiryYear: Int, nameBytes: [UInt8], chip: Bool) {
        self.numberDigits = numberDigits
        self.expiryMonth = expiryMonth
        self.expiryYear = expiryYear
        self.nameBytes = nameBytes
        self.chip = chip
    }

    /// Reads a swipe's bytes (a line break and blanks at their end are left out).
    public static func read(_ bytes: [UInt8]) -> Result<TrackData, Problem> {
        var reader = Reader(bytes: bytes)
        return reader.readSwipe()
    }

    /// `swipe 411111••••••1111 12/30, chip`: the number masked.
    public var description: String {
        "swipe \(CardNumber.masked(numberDigits)) \(twoDigits(expiryMonth))/\(twoDigits(expiryYear))\(chip ? ", chip" : "")"
    }
    /// `TrackData(swipe 411111••••••1111 12/30)`: masked, like `description`.
    public var debugDescription: String { "TrackData(\(description))" }
    /// The masked number, the expiry and the chip, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "number": CardNumber.masked(numberDigits),
                "expiry": "\(twoDigits(expiryMonth))/\(twoDigits(expiryYear))",
                "chip": chip,
            ], displayStyle: .struct)
    }

    /// Overwrites the number's digits and the name's bytes in place, then empties them.
    public mutating func wipe() {
        numberDigits.overwriteAndEmpty()
        nameBytes.overwriteAndEmpty()
    }
}

extension TrackData {
    /// One pass over the swipe's bytes. Digits are gathered into arrays sized once (no copy
    /// left behind by growing), and the second track's number is wiped once compared.
    struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// Where the swipe ends: before any line break and blanks after it (a reader's Enter, a
        /// piped line's end).
        let end: Int

        init(bytes: [UInt8]) {
            self.bytes = bytes
            var end = bytes.count
            while end > 0, [0x0A, 0x0D, 0x20, 0x09].contains(bytes[end - 1]) { end -= 1 }
            self.end = end
        }

        /// What one track gives: the number, `YYMM`, the service code's first digit, the name.
        struct Track {
            var number: [UInt8] = []
            var yymm = 0
            var serviceCode = 0
            var name: [UInt8] = []
        }

        mutating func readSwipe() -> Result<TrackData, Problem> {
            var first: Track?
            var second: Track?
            defer {
                first?.number.overwriteAndEmpty()
                first?.name.overwriteAndEmpty()
                second?.number.overwriteAndEmpty()
            }
            do throws(Problem) {
                guard index < end, isStartSentinel(bytes[index]) else { throw .notTrackData }
                if bytes[index] == UInt8(ascii: "%") {
                    first = Track()
                    try readTrack1(into: &first!)
                }
                if index < end && bytes[index] == UInt8(ascii: ";") {
                    second = Track()
                    try readTrack2(into: &second!)
                }
                if index < end { try skipThirdTrack() }
                if let a = first, let b = second,
                    a.number != b.number || a.yymm != b.yymm || a.serviceCode != b.serviceCode
                {
                    throw .tracksDisagree
                }
                let track = first ?? second!
                guard CardPolicy.numberLengths.contains(track.number.count) else { throw .numberLength }
                // (Whether the number must pass Luhn is its network's rule: the engine's verdict.)
                let month = track.yymm % 100
                guard (1...12).contains(month) else { throw .badExpiry }
                var digits: [UInt8] = []
                var name: [UInt8] = []
                digits.reserveCapacity(track.number.count)
                digits.append(contentsOf: track.number)
                name.reserveCapacity(first?.name.count ?? 0)
                name.append(contentsOf: first?.name ?? [])
                return .success(
                    TrackData(
                        numberDigits: digits, expiryMonth: month, expiryYear: track.yymm / 100,
                        nameBytes: name, chip: track.serviceCode == 2 || track.serviceCode == 6))
            } catch {
                return .failure(error)
            }
        }

        /// `%B` number `^` name `^` YYMM service-code discretionary `?`.
        mutating func readTrack1(into track: inout Track) throws(Problem) {
            index += 1  // %
            guard index < end else { throw .noEndSentinel }
            guard bytes[index] == UInt8(ascii: "B") || bytes[index] == UInt8(ascii: "b") else { throw .malformed }
            index += 1
            try readNumber(into: &track, separator: UInt8(ascii: "^"))
            let nameStart = index
            while true {
                guard index < end else { throw .noEndSentinel }
                let byte = bytes[index]
                if byte == UInt8(ascii: "^") { break }
                if byte == UInt8(ascii: "?") { throw .malformed }
                guard byte >= 0x20 && byte < 0x7F, !isStartSentinel(byte) else { throw .malformed }
                index += 1
            }
            // 2 to 26 characters by the standard; a reader may send none.
            guard index - nameStart <= 26 else { throw .malformed }
            track.name = Self.holderName(bytes[nameStart..<index])
            index += 1  // ^
            try readExpiryAndServiceCode(into: &track)
            try skipDiscretionary(allowing: { $0 >= 0x20 && $0 < 0x7F })
        }

        /// `;` number `=` YYMM service-code discretionary `?`.
        mutating func readTrack2(into track: inout Track) throws(Problem) {
            index += 1  // ;
            try readNumber(into: &track, separator: UInt8(ascii: "="))
            try readExpiryAndServiceCode(into: &track)
            try skipDiscretionary(allowing: { $0 &- 48 < 10 || $0 == UInt8(ascii: "=") })
        }

        /// The number's digits up to `separator` (at most 19 kept; more is `numberLength`).
        mutating func readNumber(into track: inout Track, separator: UInt8) throws(Problem) {
            track.number.reserveCapacity(CardPolicy.longestNumber)
            while true {
                guard index < end else { throw .noEndSentinel }
                let byte = bytes[index]
                index += 1
                if byte == separator { break }
                if byte == UInt8(ascii: "?") { throw .malformed }
                guard byte &- 48 < 10 else { throw .malformed }
                guard track.number.count < CardPolicy.longestNumber else { throw .numberLength }
                track.number.append(byte - 48)
            }
            guard !track.number.isEmpty else { throw .malformed }
        }

        /// Four digits of `YYMM`, then three of the service code (only its first is kept).
        mutating func readExpiryAndServiceCode(into track: inout Track) throws(Problem) {
            var value = 0
            for position in 0..<7 {
                guard index < end else { throw .noEndSentinel }
                let byte = bytes[index]
                guard byte &- 48 < 10 else { throw .malformed }
                index += 1
                if position < 4 { value = value * 10 + Int(byte - 48) }
                if position == 4 { track.serviceCode = Int(byte - 48) }
            }
            track.yymm = value
        }

        /// Discretionary data up to and past the end sentinel `?`; a byte `allowed` refuses is
        /// `malformed`, a start sentinel or the end of the bytes `noEndSentinel`.
        mutating func skipDiscretionary(allowing allowed: (UInt8) -> Bool) throws(Problem) {
            while true {
                guard index < end else { throw .noEndSentinel }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "?") { return }
                if isStartSentinel(byte) { throw .noEndSentinel }
                guard allowed(byte) else { throw .malformed }
            }
        }

        /// A third track (`;…?` or `+…?`, printable) after the first two: passed over.
        mutating func skipThirdTrack() throws(Problem) {
            guard bytes[index] == UInt8(ascii: ";") || bytes[index] == UInt8(ascii: "+") else { throw .trailingText }
            index += 1
            try skipDiscretionary(allowing: { $0 >= 0x20 && $0 < 0x7F })
            guard index == end else { throw .trailingText }
        }

        /// `LOVELACE/ADA` → `ADA LOVELACE`; blanks trimmed, one space between words; empty
        /// when nothing is left. Written byte by byte into storage sized once (no string, no
        /// copy left behind: the caller wipes it).
        static func holderName(_ field: ArraySlice<UInt8>) -> [UInt8] {
            var name: [UInt8] = []
            name.reserveCapacity(field.count)
            let slash = field.firstIndex(of: UInt8(ascii: "/"))
            // The given names (after the slash) first, then the surname; without a slash, as it is.
            let parts = slash.map { [field[($0 + 1)...], field[..<$0]] } ?? [field]
            for part in parts {
                for byte in part {
                    if byte == UInt8(ascii: " ") {
                        if name.last != UInt8(ascii: " ") && !name.isEmpty { name.append(byte) }
                    } else {
                        name.append(byte)
                    }
                }
                if !name.isEmpty && name.last != UInt8(ascii: " ") { name.append(UInt8(ascii: " ")) }
            }
            while name.last == UInt8(ascii: " ") { name.overwriteLast() }
            return name
        }
    }
}

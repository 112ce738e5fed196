/// What a chip read found: the card's payment applications, each with what a card is
/// delivered with (number, expiry, name, PAN sequence number) and nothing else. A card with
/// one network has one application; a co-badged card (Cartes Bancaires + Visa, girocard +
/// Maestro) has one per network, in the card's order of priority.
///
/// Printing, interpolating and `dump` show the numbers masked; `wipe()` overwrites them.
public struct ChipCard: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The applications read, highest priority first (tag `87`, 1 highest; none last).
    public internal(set) var applications: [ChipApplication]
    /// Whether the card was tapped (ISO/IEC 14443) rather than inserted.
    public var contactless: Bool

    public init(applications: [ChipApplication], contactless: Bool) {
        self.applications = applications
        self.contactless = contactless
    }

    /// `chip VISA A0000000031010, 16 digits, 12/30`: no digit of a number.
    public var description: String {
        let kind = contactless ? "contactless" : "chip"
        return ([kind] + applications.map(\.description)).joined(separator: " ")
    }
    public var debugDescription: String { "ChipCard(\(description))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["applications": applications.map(\.description), "contactless": contactless])
    }

    /// Overwrites every application's number and name.
    public mutating func wipe() {
        for index in applications.indices { applications[index].wipe() }
        applications.removeAll()
    }

    /// Whether an ATR is that of a contactless card as a PC/SC reader reports it (PC/SC part 3:
    /// `3B 8n 80 01 …`, the ATR a reader makes up for an ISO/IEC 14443 card).
    public static func isContactless(atr: [UInt8]) -> Bool {
        atr.count >= 4 && atr[0] == 0x3B && atr[1] & 0xF0 == 0x80 && atr[2] == 0x80 && atr[3] == 0x01
    }
}

/// One payment application of a chip card.
public struct ChipApplication: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The application identifier (`A0000000031010`).
    public let aid: [UInt8]
    /// The label the card gives (`50`, or the directory's), ASCII; empty when it gives none.
    public let label: String
    /// The priority (tag `87` bits 4–1: 1 highest); 0 when the card gives none.
    public let priority: Int
    /// The number's digits, each 0–9 (not ASCII).
    public internal(set) var numberDigits: [UInt8]
    /// The expiry month, 1–12, and year in two digits (`30` for 2030).
    public let expiryMonth: Int
    public let expiryYear: Int
    /// The holder's name (`5F20`, `SURNAME/GIVEN` turned into `GIVEN SURNAME`); nil when the
    /// card gives none or a blank one (`" /"`, as contactless cards do).
    public var holderName: String? { nameBytes.isEmpty ? nil : String(decoding: nameBytes, as: UTF8.self) }
    private(set) var nameBytes: [UInt8]
    /// The PAN sequence number (`5F34`), when the card gives one.
    public let panSequence: Int?

    init(
        aid: [UInt8], label: String, priority: Int, numberDigits: [UInt8], expiryMonth: Int, expiryYear: Int,
        nameBytes: [UInt8], panSequence: Int?
    ) {
        self.aid = aid
        self.label = label
        self.priority = priority
        self.numberDigits = numberDigits
        self.expiryMonth = expiryMonth
        self.expiryYear = expiryYear
        self.nameBytes = nameBytes
        self.panSequence = panSequence
    }

    /// The AID in hex, upper case: `A0000000031010`.
    public var aidHex: String { Hex.string(aid) }

    /// `VISA A0000000031010, 16 digits, 12/30`: no digit of the number (masking is
    /// `CardPolicy`'s, in CardKit; this target sits below it and shows none).
    public var description: String {
        let month = expiryMonth < 10 ? "0\(expiryMonth)" : "\(expiryMonth)"
        let year = expiryYear < 10 ? "0\(expiryYear)" : "\(expiryYear)"
        return "\(label.isEmpty ? "application" : label) \(aidHex), \(numberDigits.count) digits, \(month)/\(year)"
    }

    public var debugDescription: String { "ChipApplication(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: ["application": description]) }

    mutating func wipe() {
        numberDigits.overwriteAndEmpty()
        nameBytes.overwriteAndEmpty()
    }
}

/// Hexadecimal text of bytes and back, for AIDs in rule files and card answers in `.session` scripts.
public enum Hex {
    /// `A0000000031010`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of hex text (either case, an even count of digits); nil for anything else.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for unit in text.utf8 {
            let value: UInt8
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = unit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = unit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = unit - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                out.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return high == nil ? out : nil
    }
}

extension Array where Element == UInt8 {
    /// Overwrites every byte with zero, then empties the array, keeping its storage.
    mutating func overwriteAndEmpty() {
        for index in indices { self[index] = 0 }
        removeAll(keepingCapacity: true)
    }
}

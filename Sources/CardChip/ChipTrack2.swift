/// The track 2 equivalent data of a chip (`57`, and Mastercard's `9F6B`): the number, a `D`
/// separator, the expiry as YYMM, then the service code and discretionary data, in nibbles,
/// padded with `F`. Only the number and expiry are read out; the rest is never copied.
struct ChipTrack2 {
    var numberDigits: [UInt8]
    let expiryYear: Int
    let expiryMonth: Int

    /// Reads `bytes`; nil when they are not track 2 (no `D`, a non-digit in the number, no expiry).
    init?(_ bytes: [UInt8]) {
        var digits: [UInt8] = []
        var after: [UInt8] = []
        var separated = false
        for byte in bytes {
            for nibble in [byte >> 4, byte & 0x0F] {
                if separated {
                    if after.count < 4 { after.append(nibble) }
                } else if nibble == 0x0D {
                    separated = true
                } else if nibble < 10, digits.count < 19 {
                    digits.append(nibble)
                } else {
                    digits.overwriteAndEmpty()
                    return nil
                }
            }
        }
        guard separated, after.count == 4, after.allSatisfy({ $0 < 10 }) else {
            digits.overwriteAndEmpty()
            return nil
        }
        numberDigits = digits
        expiryYear = Int(after[0]) * 10 + Int(after[1])
        expiryMonth = Int(after[2]) * 10 + Int(after[3])
    }

    /// The digits of a compressed numeric value (`5A`: digits, then `F` padding); nil when
    /// it is empty or holds anything else.
    static func digits(ofCompressedNumeric bytes: [UInt8]) -> [UInt8]? {
        var digits: [UInt8] = []
        var padding = false
        for byte in bytes {
            for nibble in [byte >> 4, byte & 0x0F] {
                if nibble == 0x0F {
                    padding = true
                } else if nibble < 10, !padding {
                    digits.append(nibble)
                } else {
                    digits.overwriteAndEmpty()
                    return nil
                }
            }
        }
        return digits.isEmpty ? nil : digits
    }

    /// A BCD byte's value, 0–99; nil when a nibble is not a digit.
    static func bcd(_ byte: UInt8) -> Int? {
        byte >> 4 < 10 && byte & 0x0F < 10 ? Int(byte >> 4) * 10 + Int(byte & 0x0F) : nil
    }
}

/// Card-number arithmetic and presentation shared by every front end.
public enum CardNumber {
    /// True when the digits pass the Luhn (mod 10) check.
    public static func passesLuhn(_ digits: some BidirectionalCollection<UInt8>) -> Bool {
        guard !digits.isEmpty else { return false }
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            let value = Int(digit)
            sum += offset % 2 == 1 ? (value * 2 > 9 ? value * 2 - 9 : value * 2) : value
        }
        return sum % 10 == 0
    }

    /// The Luhn check digit that makes `body` followed by it pass `passesLuhn`.
    public static func luhnCheckDigit(for body: some BidirectionalCollection<UInt8>) -> UInt8 {
        var sum = 0
        for (offset, digit) in body.reversed().enumerated() {
            let value = Int(digit)
            sum += offset % 2 == 0 ? (value * 2 > 9 ? value * 2 - 9 : value * 2) : value
        }
        return UInt8((10 - sum % 10) % 10)
    }

    /// Digit values (each 0–9, not ASCII) as text of ASCII digits: `[4, 1, 1, 1]` → "4111".
    public static func string(_ digits: some Collection<UInt8>) -> String {
        // unsafe: written in place (up to 15 digits make a small string): no array in between.
        String(unsafeUninitializedCapacity: digits.count) { buffer in
            for (index, digit) in digits.enumerated() { buffer[index] = digit + 48 }
            return digits.count
        }
    }
}

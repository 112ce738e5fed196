/// Card-number arithmetic and presentation shared by every front end.
public enum CardNumber {
    /// True when the digits pass the Luhn (mod 10) check.
    @inline(__always)
    public static func passesLuhn(_ digits: some BidirectionalCollection<UInt8>) -> Bool {
        guard !digits.isEmpty else { return false }
        return luhnSum(digits, doublingLast: false) % 10 == 0
    }

    /// The Luhn check digit that makes `body` followed by it pass `passesLuhn`.
    public static func luhnCheckDigit(for body: some BidirectionalCollection<UInt8>) -> UInt8 {
        UInt8((10 - luhnSum(body, doublingLast: true) % 10) % 10)
    }

    /// The Luhn sum of `digits` (each 0–9): from the last, every second digit doubled (the
    /// last itself when `doublingLast`), a doubled digit above 9 less 9. Two digits a step, the
    /// doubling from a table: `check` runs it on every record (a third of the instructions of
    /// the loop with an offset and a branch per digit).
    @inline(__always)
    static func luhnSum(_ digits: some BidirectionalCollection<UInt8>, doublingLast: Bool) -> Int {
        var sum = 0
        var index = digits.endIndex
        if doublingLast && index != digits.startIndex {
            digits.formIndex(before: &index)
            sum = doubledLuhnDigit(digits[index])
        }
        while index != digits.startIndex {
            digits.formIndex(before: &index)
            sum &+= Int(digits[index])
            guard index != digits.startIndex else { break }
            digits.formIndex(before: &index)
            sum &+= doubledLuhnDigit(digits[index])
        }
        return sum
    }

    /// A digit doubled for the Luhn sum, less 9 when above 9 (0 2 4 6 8 1 3 5 7 9), read from
    /// a table of ten four-bit entries in one word.
    @inline(__always)
    static func doubledLuhnDigit(_ digit: UInt8) -> Int {
        Int(truncatingIfNeeded: (0x97_5318_6420 as UInt64) &>> (UInt64(digit) &* 4) & 0xF)
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

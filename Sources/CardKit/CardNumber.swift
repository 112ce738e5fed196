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
    /// last itself when `doublingLast`), a doubled digit above 9 less 9. Read from the first
    /// digit on (`LuhnSums`, which `check` also feeds while it reads a record's number).
    @inline(__always)
    static func luhnSum(_ digits: some BidirectionalCollection<UInt8>, doublingLast: Bool) -> Int {
        var sums = LuhnSums()
        for digit in digits { sums.append(digit) }
        return doublingLast ? sums.lastDoubled : sums.lastKept
    }

    /// The Luhn sums of the digits appended so far, read from the first digit on: both ways at
    /// once, with the last digit as it is (`lastKept`: the sum `passesLuhn` asks of) and with it
    /// doubled (`lastDoubled`), so that one more digit makes the next two without going back.
    /// The one implementation of the Luhn sum (`luhnSum`, `check`).
    struct LuhnSums {
        /// The sum with the last digit not doubled (then every second one before it doubled).
        private(set) var lastKept = 0
        /// The sum with the last digit doubled (then every second one before it).
        private(set) var lastDoubled = 0

        /// One more digit (0–9).
        @inline(__always)
        mutating func append(_ digit: UInt8) {
            (lastKept, lastDoubled) = (lastDoubled &+ Int(digit), lastKept &+ CardNumber.doubledLuhnDigit(digit))
        }

        /// Whether the digits appended (at least one) pass the Luhn check.
        @inline(__always) var passes: Bool { lastKept % 10 == 0 }
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

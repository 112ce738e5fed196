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

    /// The value of the digits in the bytes of `lanes` (each 0–9), the first digit lowest:
    /// zeros in the lowest bytes stand before a number of fewer than eight digits. Three
    /// multiply-adds for all eight (pairs, fours, then the eight): `check`'s numbers and the rule
    /// files' eight-digit prefixes (`eightDigits`).
    @inline(__always)
    static func value(ofDigitLanes lanes: UInt64) -> UInt64 {
        var digits = (lanes &* 10 &+ (lanes &>> 8)) & 0x00FF_00FF_00FF_00FF
        digits = (digits &* 100 &+ (digits &>> 16)) & 0x0000_FFFF_0000_FFFF
        return (digits &* 10_000 &+ (digits &>> 32)) & 0xFFFF_FFFF
    }

    /// The Luhn sums of the digits appended so far, read from the first digit on: both ways at
    /// once, with the last digit as it is (`lastKept`: the sum `passesLuhn` asks of) and with it
    /// doubled (`lastDoubled`), so that one more digit makes the next two without going back.
    /// The one implementation of the Luhn sum (`luhnSum`); `check` feeds it the number's
    /// digits as it reads them, up to eight at a time (`append(lanes:count:)`), instead of a
    /// second pass over them.
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

        /// `count` (1–8) more digits at once: `lanes` holds their values (0–9) in its `count`
        /// highest bytes, the first digit lowest of them, and zeros below. The bytes at an odd
        /// distance from the last (the highest) are the ones doubled when the last is kept.
        @inline(__always)
        mutating func append(lanes: UInt64, count: Int) {
            let ones: UInt64 = 0x0101_0101_0101_0101
            // Each byte doubled, less 9 when the digit is 5 or more (then its double is 10 or
            // more, so no byte borrows from the next): bit 3 of digit + 3 says 5 or more.
            let fiveOrMore = ((lanes &+ 3 &* ones) &>> 3) & ones
            let doubled = (lanes &<< 1) &- fiveOrMore &* 9
            let even: UInt64 = 0x00FF_00FF_00FF_00FF  // bytes 0, 2, 4, 6: an odd distance from byte 7
            // (At most eight bytes of at most 9 each: the byte sum fits the top byte.)
            let kept = Int(truncatingIfNeeded: (((doubled & even) | (lanes & ~even)) &* ones) &>> 56)
            let other = Int(truncatingIfNeeded: (((lanes & even) | (doubled & ~even)) &* ones) &>> 56)
            // An odd count moves the digits before by one place: kept and doubled swap.
            if count & 1 == 1 { (lastKept, lastDoubled) = (lastDoubled, lastKept) }
            lastKept &+= kept
            lastDoubled &+= other
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

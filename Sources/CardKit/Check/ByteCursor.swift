extension [UInt8] {
    /// Appends a literal's UTF-8 bytes.
    @inline(__always) mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }  // (unsafe: the literal's bytes read in place, one append)
    }
}

/// Writes bytes through a pointer into a buffer the caller sized (a JSON record is at most a
/// few hundred bytes plus the network id: `CardCheck.longestJSONLine` always suffices).
struct ByteCursor {
    // unsafe: `check`'s JSON Lines hot path (measured): a pointer bump per byte, no bounds or
    // capacity checks; the caller's buffer is sized for the longest record, with a word of
    // room past what is written (digits go eight bytes to a store).
    private let start: UnsafeMutableRawPointer
    private var next: UnsafeMutableRawPointer
    init(_ start: UnsafeMutableRawPointer) {  // unsafe: the caller's buffer
        self.start = start
        next = start
    }
    /// Bytes written so far.
    var count: Int { next - start }

    @inline(__always) mutating func write(_ byte: UInt8) {
        next.storeBytes(of: byte, as: UInt8.self)  // (unsafe: a cursor store, in the caller's room)
        next += 1
    }

    @inline(__always) mutating func write(_ text: StaticString) {
        next.copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
        next += text.utf8CodeUnitCount
    }

    /// A network id's bytes.
    @inline(__always) mutating func write(_ bytes: [UInt8]) {
        next.copyMemory(from: bytes, byteCount: bytes.count)
        next += bytes.count
    }

    /// The `count` last decimal digits of `value`, with leading zeros: eight at a time
    /// (`eightDigitsText`), one store each; it may write up to eight bytes past them.
    @inline(__always) mutating func writeDigits(_ value: UInt64, count: Int) {
        var value = value
        var count = count
        if count > 16 {
            writeLastDigits(value / 10_000_000_000_000_000, count: count &- 16)
            value %= 10_000_000_000_000_000
            count = 16
        }
        if count > 8 {
            writeLastDigits(value / 100_000_000, count: count &- 8)
            value %= 100_000_000
            count = 8
        }
        writeLastDigits(value % 100_000_000, count: count)
    }

    /// The `count` (0–8) last digits of `value` (below 10^8) as one word store.
    @inline(__always) private mutating func writeLastDigits(_ value: UInt64, count: Int) {
        let text = Self.eightDigitsText(value) &>> UInt64((8 &- count) &* 8 & 63)
        // (unsafe: eight digits in one store, in the room)
        next.storeBytes(of: (count == 0 ? 0 : text).littleEndian, as: UInt64.self)
        next += count
    }

    /// The eight decimal digits of `value` (below 10^8, leading zeros) as ASCII, the first in
    /// the lowest byte: split in two halves of four, each half in two pairs, each pair in two
    /// digits, all lanes of one word at once (a multiply and a shift a step, no division).
    @inline(__always) static func eightDigitsText(_ value: UInt64) -> UInt64 {
        let high = value / 10_000  // (a constant divisor: a multiply)
        var lanes = high | ((value &- high &* 10_000) &<< 32)  // two halves below 10^4, in 32-bit lanes
        let hundreds = ((lanes &* 10_486) &>> 20) & 0x0000_007F_0000_007F  // half / 100 (exact below 10^4)
        lanes = hundreds | ((lanes &- hundreds &* 100) &<< 16)  // four pairs below 100, in 16-bit lanes
        let tens = ((lanes &* 103) &>> 10) & 0x000F_000F_000F_000F  // pair / 10 (exact below 100)
        lanes = tens | ((lanes &- tens &* 10) &<< 8)  // eight digits, one a byte
        return lanes | 0x3030_3030_3030_3030
    }

    /// A number's decimal digits, without recursion. How many: from its bit length
    /// (1233/4096 is about log10 2) and one comparison, not a division a digit.
    @inline(__always) mutating func writeDecimal(_ value: UInt64) {
        let estimate = ((64 &- (value | 1).leadingZeroBitCount) &* 1233) &>> 12
        writeDigits(value, count: estimate &+ ((value | 1) >= pow10[estimate] ? 1 : 0))  // (0: one digit)
    }

    /// The room `writeNumber` needs: the longest number, and the marks' last word past it.
    static var roomForNumber: Int { CardPolicy.longestNumber + 16 }

    /// A record's number (its first 19 digits), masked as `CardPolicy.shownDigits` says with
    /// `masking` unless `unmasked`; it may write up to `roomForNumber` bytes (the bytes past
    /// the number are written over by what follows).
    @inline(__always) mutating func writeNumber(_ result: CardCheck.Result, unmasked: Bool, masking: UInt8) {
        let count = min(result.digitCount, CardPolicy.longestNumber)
        let shown = CardPolicy.shownDigits(count: count)
        if !unmasked && shown.first == CardCheck.leadingShown && shown.first <= 8 && shown.last < count - shown.first {
            // The usual masked number: its first digits as one word (the bytes after them
            // written over below), the last ones from the number's value, and the marks between
            // (no digit of the middle worked out).
            let words = next  // (the buffer has room past the line: `longestJSONLine`)
            // (unsafe: as above)
            words.storeBytes(of: (result.leadingDigits | 0x3030_3030_3030_3030).littleEndian, as: UInt64.self)
            // The marks (at most 9) as two word stores, the digits after written over the rest.
            let marks = UInt64(masking) &* 0x0101_0101_0101_0101
            // (unsafe: word stores in the room)
            words.storeBytes(of: marks, toByteOffset: shown.first, as: UInt64.self)
            words.storeBytes(of: marks, toByteOffset: shown.first &+ 8, as: UInt64.self)  // (the same)
            next += count - shown.last
            writeDigits(result.numberValue, count: shown.last)
            return
        }
        writeDigits(result.numberValue, count: count)
        if !unmasked {
            // unsafe: the hidden digits written over with the mark, within the number just written.
            for i in shown.hidden { (next - count).storeBytes(of: masking, toByteOffset: i, as: UInt8.self) }
        }
    }
}

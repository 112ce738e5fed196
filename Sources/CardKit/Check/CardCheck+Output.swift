extension CardCheck {
    // MARK: - Output

    /// Appends one JSON Lines object:
    /// `{"line":3,"network":"visa","valid":false,"number":"411111******1111","expiry":"2030-12","errors":["luhn"]}`.
    /// The number is masked to first six and last four with `*` unless `unmasked`; the code
    /// never appears.
    public func appendJSON(_ result: Result, line: Int, unmasked: Bool, to out: inout [UInt8]) {
        // unsafe: written into a buffer on the stack with a cursor (`writeJSON`), then appended
        // to `out` once: one `append(contentsOf:)` per piece cost more than the checking itself.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longestJSONLine) { buffer in
            var bytes = ByteCursor(buffer.baseAddress!)
            writeJSON(result, line: line, unmasked: unmasked, to: &bytes)
            out.append(contentsOf: buffer[..<bytes.count])
        }
    }

    /// The most bytes `writeJSON` writes for one record (a cursor's buffer must have them).
    var longestJSONLine: Int { 512 + longestJSONHead }

    /// Writes `appendJSON`'s line at `bytes`, which has room for `longestJSONLine` bytes: the
    /// one writer of the JSON Lines record, used one record at a time by `appendJSON` and a
    /// batch at a time by `JSONLinesBatch` (`cardline check --format json`).
    @inline(__always)
    func writeJSON(_ result: Result, line: Int, unmasked: Bool, to bytes: inout ByteCursor) {
        bytes.write(#"{"line":"#)
        bytes.writeDecimal(UInt64(max(line, 0)))
        // `,"network":"visa","valid":false,"number":"`, made once per network.
        bytes.write(jsonHeads[jsonHeadIndex(result)])
        bytes.writeNumber(result, unmasked: unmasked, masking: UInt8(ascii: CardPolicy.machineMask))
        if let expiry = result.expiry, expiry.year >= 0, expiry.year < 10_000, expiry.month >= 0, expiry.month < 100 {
            bytes.write(#"","expiry":""#)
            bytes.writeDigits(UInt64(expiry.year), count: expiry.year < 1000 ? Self.decimalDigits(expiry.year) : 4)
            bytes.write(UInt8(ascii: "-"))
            bytes.writeDigits(UInt64(expiry.month), count: 2)
            bytes.write(#"","errors":["#)
        } else if let expiry = result.expiry {
            // (Out of the range a record can give: written digit by digit as before.)
            bytes.write(#"","expiry":""#)
            bytes.writeDecimal(UInt64(max(expiry.year, 0)))
            bytes.write(UInt8(ascii: "-"))
            if expiry.month < 10 { bytes.write(UInt8(ascii: "0")) }
            bytes.writeDecimal(UInt64(max(expiry.month, 0)))
            bytes.write(#"","errors":["#)
        } else {
            bytes.write(#"","errors":["#)
        }
        var bits = result.problemBits
        if bits != 0 {
            var bit = UInt16(bits.trailingZeroBitCount)
            bits &= bits - 1
            bytes.write(Problem.quotedName(bit: bit))
            while bits != 0 {
                bit = UInt16(bits.trailingZeroBitCount)
                bits &= bits - 1
                bytes.write(UInt8(ascii: ","))
                bytes.write(Problem.quotedName(bit: bit))
            }
        }
        bytes.write("]}\n")
    }

    /// How many decimal digits `value` (0 or more) has.
    private static func decimalDigits(_ value: Int) -> Int {
        var digits = 1
        var scan = value
        while scan >= 10 {
            scan /= 10
            digits += 1
        }
        return digits
    }

    /// JSON Lines gathered in a buffer of their own and appended to the output a batch at a
    /// time (`cardline check` on whole blocks of records): one `append` per record cost more
    /// than writing the record. The lines are `appendJSON`'s, written by the same `writeJSON`.
    public struct JSONLinesBatch {
        private let checker: CardCheck
        private let unmasked: Bool
        /// Room for a batch and one more line (`longestJSONLine`), written from the start.
        private var bytes: [UInt8]
        private var used = 0

        /// Bytes gathered before `isFull` says to `flush`.
        public static let size = 32 * 1024

        /// An empty batch of `checker`'s lines, numbers masked unless `unmasked`; with `room`
        /// false, one that takes none (no buffer made, for a loop that writes no JSON).
        public init(_ checker: CardCheck, unmasked: Bool, room: Bool = true) {
            self.checker = checker
            self.unmasked = unmasked
            bytes = room ? [UInt8](repeating: 0, count: Self.size + checker.longestJSONLine) : []
        }

        /// Adds `result`'s line (its line number `line`).
        @inline(__always)
        public mutating func append(_ result: Result, line: Int) {
            let (checker, unmasked, start) = (self.checker, self.unmasked, used)
            // A batch made without room, or one not flushed when full, stops here rather than
            // writing past its buffer (the caller checks `isFull` after each line).
            precondition(
                start &+ checker.longestJSONLine <= bytes.count,
                "JSONLinesBatch: no room for a line (made without room, or not flushed when full)")
            // unsafe: the line written with a cursor; the buffer has room for it past `used`
            // (checked above).
            used += bytes.withUnsafeMutableBufferPointer { buffer in
                var cursor = ByteCursor(buffer.baseAddress! + start)
                checker.writeJSON(result, line: line, unmasked: unmasked, to: &cursor)
                return cursor.count
            }
        }

        /// Whether the batch should be flushed before the next line.
        public var isFull: Bool { used >= Self.size }

        /// Appends the lines gathered to `out` and empties the batch.
        public mutating func flush(to out: inout [UInt8]) {
            out.append(contentsOf: bytes[..<used])
            used = 0
        }
    }

    /// Appends a line for people: `line 3: 411111******1111  visa  invalid (luhn)`. Masked with
    /// `*` as in the JSON: `check`'s lines are records, in every format (README, "Security: what is kept, and where").
    public func appendText(_ result: Result, line: Int, unmasked: Bool, to out: inout [UInt8]) {
        out.append(contentsOf: "line ".utf8)
        out.appendDecimal(line)
        out.append(contentsOf: ": ".utf8)
        appendNumber(result, unmasked: unmasked, masking: UInt8(ascii: CardPolicy.machineMask), to: &out)
        out.append(contentsOf: "  ".utf8)
        out.append(contentsOf: result.networkIndex >= 0 ? ids[Int(result.networkIndex)] : Array("no network".utf8))
        out.append(contentsOf: result.valid ? "  valid\n".utf8 : "  invalid (".utf8)
        if !result.valid {
            out.append(contentsOf: result.problems.map(\.rawValue).joined(separator: ", ").utf8)
            out.append(contentsOf: ")\n".utf8)
        }
    }

    /// The number's digits, masked to first six and last four unless `unmasked`: built in a
    /// buffer on the stack and appended in one go.
    private func appendNumber(_ result: Result, unmasked: Bool, masking: UInt8, to out: inout [UInt8]) {
        // unsafe: the cursor that writes the JSON's number, into a stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteCursor.roomForNumber) { buffer in
            var bytes = ByteCursor(buffer.baseAddress!)
            bytes.writeNumber(result, unmasked: unmasked, masking: masking)
            out.append(contentsOf: buffer[..<bytes.count])
        }
    }
}

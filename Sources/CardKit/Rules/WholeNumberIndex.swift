/// The levels painted onto one list, for numbers at least as long as the longest pattern
/// (every record `check` reads): the numbers' first `length` digits in sorted, disjoint
/// segments, each with what the longest full match there says (a longer level painted over a
/// shorter one). One binary search a number, instead of one per level: what `match` answers
/// for such numbers, in a sixth of the instructions.
struct WholeNumberIndex: Sendable {
    /// How many leading digits are looked up: the longest pattern's (0: no patterns).
    let length: Int
    private let starts: [UInt64]
    private let ends: [UInt64]
    private let owners: [Int32]
    private let masks: [UInt32]
    /// The deciding pattern's length in each segment.
    private let patternLengths: [UInt8]
    /// A first level in front of the binary search: the prefixes cut into buckets of
    /// `1 << bucketShift` values, `buckets[b]` the first segment starting in bucket `b` or
    /// later (one more entry at the end). A prefix's segment is the last starting at or below
    /// it: among those that start in its bucket, or the one before them. About two buckets a
    /// segment, so that the search has a segment or two to halve instead of all of them
    /// (eleven halvings with the bundled rules).
    private let buckets: [Int32]
    private let bucketShift: UInt64

    init(_ levels: [IntervalLevel]) {
        let length = levels.last?.length ?? 0
        var painted = Segments()
        for level in levels {
            let scale = pow10[length - level.length]
            var next = Segments()
            next.reserve(painted.count + 2 * level.lows.count)
            // The old segment being laid down, perhaps with its start cut off.
            var current: (start: UInt64, end: UInt64, index: Int)? =
                painted.count > 0 ? (painted.starts[0], painted.ends[0], 0) : nil
            func advance(_ index: Int) -> (start: UInt64, end: UInt64, index: Int)? {
                index + 1 < painted.count ? (painted.starts[index + 1], painted.ends[index + 1], index + 1) : nil
            }
            for i in level.lows.indices {
                let start = level.lows[i] * scale
                let end = (level.highs[i] + 1) * scale - 1
                // The old segments before this interval, the last perhaps cut short.
                while let c = current, c.start < start {
                    next.append(painted, c.index, start: c.start, end: min(c.end, start - 1))
                    if c.end < start {
                        current = advance(c.index)
                    } else {
                        current = (start, c.end, c.index)
                        break
                    }
                }
                next.append(
                    start: start, end: end, owner: level.owners[i], mask: level.lengthMasks[i],
                    length: UInt8(level.length))
                // Those it covers dropped, the last perhaps cut.
                while let c = current, c.start <= end {
                    if c.end <= end {
                        current = advance(c.index)
                    } else {
                        current = (end + 1, c.end, c.index)
                        break
                    }
                }
            }
            while let c = current {
                next.append(painted, c.index, start: c.start, end: c.end)
                current = advance(c.index)
            }
            painted = next
        }
        self.length = length
        (starts, ends, owners, masks, patternLengths) = (
            painted.starts, painted.ends, painted.owners, painted.masks, painted.lengths
        )
        // The largest prefix's bits, less those that make about two buckets a segment (at
        // most 2^16 buckets).
        let largest = length > 0 ? pow10[length] - 1 : 0
        let bucketBits = min(16, UInt64.bitWidth - max(painted.count, 1).leadingZeroBitCount + 1)
        let shift = UInt64(max(0, (UInt64.bitWidth - largest.leadingZeroBitCount) - bucketBits))
        var buckets = [Int32](repeating: Int32(starts.count), count: Int(largest >> shift) + 2)
        var bucket = 0
        for (segment, start) in starts.enumerated() {
            let first = Int(start >> shift)
            while bucket <= first {
                buckets[bucket] = Int32(segment)
                bucket += 1
            }
        }
        self.buckets = buckets
        bucketShift = shift
    }

    /// What the longest full match says of a number whose first `length` digits are `prefix`:
    /// the owner (or -1), the valid lengths, and the deciding pattern's length.
    @inline(__always)
    func match(prefix: UInt64) -> (owner: Int32, lengths: LengthSet, decidingLength: Int) {
        let starts = self.starts.span
        // The first segment past the prefix is among its bucket's, or the next bucket's first.
        let bucket = Int(truncatingIfNeeded: prefix &>> bucketShift)
        guard bucket &+ 1 < buckets.count else { return (-1, LengthSet(mask: 0), 0) }
        var low = Int(buckets[bucket])
        var high = Int(buckets[bucket &+ 1])
        while low < high {
            let middle = (low &+ high) &>> 1
            if starts[middle] > prefix { high = middle } else { low = middle &+ 1 }
        }
        let index = low &- 1
        guard index >= 0, ends[index] >= prefix else { return (-1, LengthSet(mask: 0), 0) }
        return (owners[index], LengthSet(mask: masks[index]), Int(patternLengths[index]))
    }

    /// Segments as parallel arrays, while painting.
    private struct Segments {
        var starts: [UInt64] = [], ends: [UInt64] = [], owners: [Int32] = [], masks: [UInt32] = [],
            lengths: [UInt8] = []
        var count: Int { starts.count }

        mutating func reserve(_ count: Int) {
            starts.reserveCapacity(count)
            ends.reserveCapacity(count)
            owners.reserveCapacity(count)
            masks.reserveCapacity(count)
            lengths.reserveCapacity(count)
        }

        mutating func append(start: UInt64, end: UInt64, owner: Int32, mask: UInt32, length: UInt8) {
            starts.append(start)
            ends.append(end)
            owners.append(owner)
            masks.append(mask)
            lengths.append(length)
        }

        /// `other`'s segment `index`, from `start` to `end`.
        mutating func append(_ other: Segments, _ index: Int, start: UInt64, end: UInt64) {
            append(
                start: start, end: end, owner: other.owners[index], mask: other.masks[index],
                length: other.lengths[index])
        }
    }
}

/// Powers of ten up to 10^19 (the largest that fits in UInt64), as `pow10[n]`. A switch, not
/// a global array: reading a lazily initialised global table cost a `swift_once` and a
/// retain/release on every look-up, several per record in `check`.
let pow10 = PowersOfTen()

struct PowersOfTen: Sendable {
    @inline(__always) subscript(n: Int) -> UInt64 {
        switch n {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        case 8: return 100_000_000
        case 9: return 1_000_000_000
        case 10: return 10_000_000_000
        case 11: return 100_000_000_000
        case 12: return 1_000_000_000_000
        case 13: return 10_000_000_000_000
        case 14: return 100_000_000_000_000
        case 15: return 1_000_000_000_000_000
        case 16: return 10_000_000_000_000_000
        case 17: return 100_000_000_000_000_000
        case 18: return 1_000_000_000_000_000_000
        case 19: return 10_000_000_000_000_000_000
        default: preconditionFailure("10^\(n) does not fit in 64 bits")
        }
    }
}

/// Digit values as a number (at most 19 digits).
func value(_ digits: some Sequence<UInt8>) -> UInt64 {
    digits.reduce(0) { $0 * 10 + UInt64($1) }
}

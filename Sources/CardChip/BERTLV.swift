/// BER-TLV as EMV cards write it (ISO/IEC 8825-1, as EMV Book 3 annex B narrows it): the one
/// reader of a card's answers. A tag is one byte, or more when its low five bits are all set
/// (then more bytes while bit 8 is set; at most three bytes here); bit 6 of the first byte
/// says the value is itself TLV (constructed). A length is one byte below 0x80, or `81 xx`,
/// or `82 xx xx`; nothing longer is taken (no card answer is 64 KiB). `00` and `FF` where a
/// tag would start are padding and passed over (EMVCo SU 69).
///
/// Values are never copied: an element names its place in the bytes it was read from.
public enum BERTLV {
    /// One data object: its tag (`0x5A`, `0x9F38`, `0xBF0C`) and where its value lies.
    public struct Element: Equatable, Sendable {
        /// The tag's bytes as one number, first byte highest: `9F 6B` is `0x9F6B`.
        public let tag: UInt32
        /// Whether the value is itself a list of data objects (bit 6 of the tag's first byte).
        public let isConstructed: Bool
        /// The value's indices in the bytes read.
        public let value: Range<Int>
    }

    /// Why bytes are not BER-TLV.
    public enum Problem: Error, Equatable, Sendable {
        /// A tag, length or value runs past the end.
        case truncated
        /// A tag of more than three bytes.
        case tagTooLong
        /// A length form other than one byte, `81` or `82` (or the indefinite `80`).
        case unsupportedLength
        /// Objects nested deeper than any card's answer (`deepestNesting`).
        case tooDeep
    }

    /// How deep a search descends into constructed values: an EMV answer nests four deep at
    /// most (`6F{A5{BF0C{61{…}}}}`); the bound keeps a hostile answer from recursing for long.
    public static let deepestNesting = 8

    /// The data objects of `bytes[range]` at one level, padding passed over.
    public static func elements(of bytes: [UInt8], in range: Range<Int>) throws(Problem) -> [Element] {
        var found: [Element] = []
        var index = range.lowerBound
        let end = range.upperBound
        while index < end {
            let first = bytes[index]
            if first == 0x00 || first == 0xFF {
                index += 1
                continue
            }
            let tag = try readTag(bytes, at: &index, end: end)
            guard index < end else { throw .truncated }
            var length = Int(bytes[index])
            index += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count == 1 || count == 2 else { throw .unsupportedLength }
                guard end - index >= count else { throw .truncated }
                length = 0
                for _ in 0..<count {
                    length = length << 8 | Int(bytes[index])
                    index += 1
                }
            }
            guard end - index >= length else { throw .truncated }
            found.append(Element(tag: tag, isConstructed: first & 0x20 != 0, value: index..<(index + length)))
            index += length
        }
        return found
    }

    /// The tag starting at `bytes[index]` (one byte, or up to three when its low five bits are
    /// all set), `index` moved past it; the one reader of a tag, for TLV and for a DOL.
    static func readTag(_ bytes: [UInt8], at index: inout Int, end: Int) throws(Problem) -> UInt32 {
        let first = bytes[index]
        var tag = UInt32(first)
        index += 1
        guard first & 0x1F == 0x1F else { return tag }
        var more = true
        var count = 1
        while more {
            guard index < end else { throw .truncated }
            guard count < 3 else { throw .tagTooLong }
            let next = bytes[index]
            tag = tag << 8 | UInt32(next)
            more = next & 0x80 != 0
            index += 1
            count += 1
        }
        return tag
    }

    /// The first object tagged `tag` in `bytes[range]`, searched depth first through
    /// constructed values (at most `deepestNesting` deep); nil when there is none.
    public static func first(_ tag: UInt32, in bytes: [UInt8], range: Range<Int>) throws(Problem) -> Element? {
        try first(tag, in: bytes, range: range, depth: 0)
    }

    private static func first(_ tag: UInt32, in bytes: [UInt8], range: Range<Int>, depth: Int) throws(Problem)
        -> Element?
    {
        guard depth < deepestNesting else { throw .tooDeep }
        for element in try elements(of: bytes, in: range) {
            if element.tag == tag { return element }
            if element.isConstructed, let inner = try first(tag, in: bytes, range: element.value, depth: depth + 1) {
                return inner
            }
        }
        return nil
    }

    /// Every object tagged `tag` in `bytes[range]`, depth first (not inside one found).
    public static func all(_ tag: UInt32, in bytes: [UInt8], range: Range<Int>) throws(Problem) -> [Element] {
        var found: [Element] = []
        try collect(tag, in: bytes, range: range, depth: 0, into: &found)
        return found
    }

    private static func collect(
        _ tag: UInt32, in bytes: [UInt8], range: Range<Int>, depth: Int, into found: inout [Element]
    )
        throws(Problem)
    {
        guard depth < deepestNesting else { throw .tooDeep }
        for element in try elements(of: bytes, in: range) {
            if element.tag == tag {
                found.append(element)
            } else if element.isConstructed {
                try collect(tag, in: bytes, range: element.value, depth: depth + 1, into: &found)
            }
        }
    }
}

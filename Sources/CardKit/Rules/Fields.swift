/// An object's members by key: each key a rule file may hold has a slot, found by a short
/// search (a rule file has a dozen members: cheaper than hashing every key into a dictionary),
/// and the place of its member; a rule file's own keys are looked up by slot (`RuleFile.Key`),
/// without comparing names. The last of a repeated key counts; other keys are remembered only
/// to tell a repeat.
struct Fields {
    /// The keys a kind of object may hold, each with its length and first two bytes: a key is
    /// compared only with the one of its shape (comparing two different strings costs far more
    /// than two equal ones). Made once per kind.
    final class Keys: Sendable {  // (a class: a `Fields` holds one reference, not three arrays)
        let names: [String]
        let shapes: [UInt32]
        /// Each name's bytes as two little-endian words, zero past its end, and its length in
        /// bytes (`slot(of:at:count:)`, `slot(low:high:count:)`).
        let words: [(UInt64, UInt64)]
        let counts: [Int]
        init(_ names: [String]) {
            precondition(names.count <= Places.count && names.allSatisfy { $0.utf8.count <= 16 })
            (self.names, shapes) = (names, names.map(Fields.shape))
            words = names.map { name in
                var words: (UInt64, UInt64) = (0, 0)
                for (k, byte) in name.utf8.enumerated() { Self.put(byte, at: k, in: &words) }
                return words
            }
            counts = names.map(\.utf8.count)
        }

        /// Puts byte `k` (0–15) of a key into its two little-endian words.
        @inline(__always)
        static func put(_ byte: UInt8, at k: Int, in words: inout (UInt64, UInt64)) {
            if k < 8 {
                words.0 |= UInt64(byte) << UInt64(8 * k)
            } else {
                words.1 |= UInt64(byte) << UInt64(8 * (k - 8))
            }
        }

        func slot(_ key: String) -> Int? {
            let shape = Fields.shape(key)
            for slot in shapes.indices where shapes[slot] == shape && names[slot] == key { return slot }
            return nil
        }

        /// The slot of the key whose bytes are the `count` (1–16) bytes of `text` at `start`,
        /// compared as two words; nil when none is.
        func slot(of text: Span<UInt8>, at start: Int, count: Int) -> Int? {
            var words: (UInt64, UInt64) = (0, 0)
            for k in 0..<count { Self.put(text[start + k], at: k, in: &words) }
            return slot(low: words.0, high: words.1, count: count)
        }

        /// The slot of the key of `count` bytes that are the two words (`words`, zero past its
        /// end); nil when none is. (The count too: a key that ends in NUL bytes has the words
        /// of a shorter one.)
        func slot(low: UInt64, high: UInt64, count: Int) -> Int? {
            for slot in words.indices where words[slot].0 == low && words[slot].1 == high && counts[slot] == count {
                return slot
            }
            return nil
        }
    }
    static let ruleFile = Keys(RuleFile.knownFields)
    static let lengthsForEntry = Keys(RuleFile.entryFields)
    static let coBadgedEntry = Keys(RuleFile.coBadgedFields)

    /// For each slot, 1 + the place in the members of its (last) member; 0 when it has none.
    typealias Places = InlineArray<19, Int32>

    private let keys: Keys
    private let members: [JSONValue.Member]
    private var places = Places(repeating: 0)
    private var others: Set<String> = []

    /// No member taken yet (`take`).
    init(_ keys: Keys, _ members: [JSONValue.Member]) {
        (self.keys, self.members) = (keys, members)
    }

    static func shape(_ key: String) -> UInt32 {
        var bytes = key.utf8.makeIterator()
        let first = bytes.next() ?? 0
        let second = bytes.next() ?? 0
        return UInt32(truncatingIfNeeded: key.utf8.count) << 16 | UInt32(first) << 8 | UInt32(second)
    }

    /// What `take` found.
    enum Taken { case first, repeated, unknown }

    /// Records member `index`: the first of its key, a repeat, or the first of a key not known.
    mutating func take(_ index: Int) -> Taken {
        let key = members[index].key
        guard let slot = keys.slot(key) else { return others.insert(key).inserted ? .unknown : .repeated }
        let first = places[slot] == 0
        places[slot] = Int32(index + 1)
        return first ? .first : .repeated
    }

    /// A rule file's field (only for `Fields.ruleFile`).
    subscript(key: RuleFile.Key) -> JSONValue? {
        assert(keys === Fields.ruleFile, "a rule file's key asked of another kind of object")
        let place = Int(places[key.rawValue])
        return place == 0 ? nil : members[place - 1].value
    }

    subscript(key: String) -> JSONValue? {
        guard let slot = keys.slot(key) else { return nil }
        let place = Int(places[slot])
        return place == 0 ? nil : members[place - 1].value
    }
}

extension JSONValue: CustomStringConvertible {
    /// A number's literal text, a string in double quotes (not re-escaped), `true`/`false`, or the kind name otherwise.
    public var description: String {
        switch self {
        case .number(let text, _): return text
        case .string(let text, _): return "\"\(text)\""
        case .bool(let flag, _): return String(flag)
        default: return kindName
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs, scalar by scalar (a space before a
    /// combining mark is a space).
    var trimmingBlanks: String {
        let start = unicodeScalars.drop { $0 == " " || $0 == "\t" }
        return String(Substring(start.dropLast(start.reversed().prefix { $0 == " " || $0 == "\t" }.count)))
    }
}

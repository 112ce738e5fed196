@testable import CardKit
import Dispatch
import Testing

/// With many patterns, the index is made in two parts and its big levels in two halves, one of
/// each on another thread (`RuleSet.init(networks:splitting:)`): the same levels, warnings and
/// errors as made on one thread, whether the other thread takes its jobs or not.
@Suite struct RuleIndexSplitTests {
    /// Each job on another thread at once; joining waits for it.
    static func onAnotherThread(_ job: @escaping @Sendable () -> Void) -> () -> Void {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            job()
            done.signal()
        }
        return { done.wait() }
    }

    /// No other thread takes the jobs: each is done when it is joined.
    static func notTaken(_ job: @escaping @Sendable () -> Void) -> () -> Void { { job() } }

    static func network(_ id: String, _ patterns: [IINPattern], patternLengths: [[Int]] = []) -> CardNetwork {
        CardNetwork(id: id, name: id, logo: id, patterns: patterns, lengths: [16], groups: [4, 4, 4, 4],
                    cvv: .init(name: "CVV", length: 3, side: "back"), luhn: true, file: "\(id).json", patternLengths: patternLengths)
    }

    /// An eight-digit range.
    static func range(_ low: Int, _ high: Int) -> IINPattern { IINPattern(low: String(low), high: String(high))! }

    /// `count` networks of `per` eight-digit ranges each, in slots of 100 numbers taken in a
    /// random order (seeded), each range a random part of its slot; every seventh network
    /// takes whole slots (two of its own side by side merge into one interval).
    static func banks(seed: UInt64, count: Int, per: Int) -> [CardNetwork] {
        var random = SeededRandom(seed: seed)
        let slots = (0..<(count * per)).shuffled(using: &random)
        return (0..<count).map { n in
            let patterns = slots[(n * per)..<((n + 1) * per)].map { slot -> IINPattern in
                let base = 30_000_000 + 100 * slot
                if n % 7 == 0 { return range(base, base + 99) }
                let a = Int(random.next() % 100), b = Int(random.next() % 100)
                return range(base + min(a, b), base + max(a, b))
            }
            return network("bank-\(n)", patterns)
        }
    }

    /// The rule set made with `splitting`, in words (or its errors), and the set.
    static func outcome(_ networks: [CardNetwork], _ splitting: RuleSet.Splitting?) -> (text: String, set: RuleSet?) {
        do {
            let set = try RuleSet(networks: networks, splitting: splitting)
            return ("levels:\n\(set.levelsDescription)\nwarnings: \(set.warnings.map(\.description))", set)
        } catch {
            return ("errors: \(error.description)", nil)
        }
    }

    /// The three ways agree; the split ways made `parts` parts and joined `halves` halves.
    static func expectSame(_ networks: [CardNetwork], parts: Int, halves: Int, loaded: Bool = true) {
        let (plain, set) = outcome(networks, nil)
        #expect(set?.indexParts ?? 1 == 1 && set?.levelsMadeInHalves ?? 0 == 0)
        #expect(plain.hasPrefix(loaded ? "levels:" : "errors:"), "\(plain.prefix(300))")
        for takenByAnother in [true, false] {
            let (split, splitSet) = takenByAnother ? outcome(networks, onAnotherThread) : outcome(networks, notTaken)
            #expect(split == plain)
            if let splitSet {
                #expect(splitSet.indexParts == parts)
                #expect(splitSet.levelsMadeInHalves == halves)
            }
        }
    }

    @Test func aBankSizedSetIsMadeInTwoAsInOne() {
        let networks = Self.banks(seed: 7, count: 240, per: 80)
        #expect(networks.reduce(0) { $0 + $1.patterns.count } >= RuleSet.fewestToSplit)
        Self.expectSame(networks, parts: 2, halves: 1)
        // A network hidden by another's more specific patterns in each half: both warned about,
        // in order (the later half's looked at on the other thread).
        func hidden(_ n: Int) -> [CardNetwork] {
            [Self.network("shadow-\(n)", [IINPattern(low: "\(9_800_000 + n)", high: "\(9_800_000 + n)")!]),
             Self.network("cover-\(n)", [Self.range(98_000_000 + 10 * n, 98_000_000 + 10 * n + 9)])]
        }
        let withHidden = hidden(1) + networks + hidden(2)
        let (text, set) = Self.outcome(withHidden, Self.onAnotherThread)
        #expect(set?.warnings.map(\.description) == ["shadow-1.json:1:1: warning: network `shadow-1` can never be detected: more specific patterns of other networks cover all of its own",
                                                     "shadow-2.json:1:1: warning: network `shadow-2` can never be detected: more specific patterns of other networks cover all of its own"],
                "\(text.suffix(400))")
        Self.expectSame(withHidden, parts: 2, halves: 1)
        // Beside the bundled rules (other lengths, one part of them small).
        Self.expectSame(BundledRules.set.networks + networks, parts: 2, halves: 1)
        // Too few patterns: one part, one thread.
        Self.expectSame(Array(networks.prefix(100)), parts: 1, halves: 0)
    }

    /// Ties between networks and one network's patterns overlapping with other lengths, on
    /// both sides of the middle: the same errors, in the same order.
    @Test func problemsAreTheSameInTwoAsInOne() {
        var networks = Self.banks(seed: 11, count: 240, per: 80)
        for n in [3, 100, 119, 120, 121, 200, 239] {
            let other = networks[(n * 31) % networks.count].patterns[5]
            let own = networks[n].patterns[9]
            networks[n] = Self.network(networks[n].id, networks[n].patterns + [other, own],
                                       patternLengths: networks[n].patterns.map { _ in [16] } + [[16], [19]])
        }
        Self.expectSame(networks, parts: 2, halves: 1, loaded: false)
    }

    /// Where a pattern of the first half reaches into the second, or the first half's last
    /// interval would take in the second's first, the second half is made again after the
    /// first: the same level as made on one thread.
    @Test func halvesThatDoNotJoinAreMadeAgain() {
        // One network's ranges side by side, 12,000 of them (one interval), before the banks':
        // the middle of the first part falls inside it.
        let tiled = Self.network("tiled", (0..<12_000).map { Self.range(10_000_000 + 100 * $0, 10_000_000 + 100 * $0 + 99) })
        let banks = Self.banks(seed: 3, count: 120, per: 80)
        Self.expectSame([tiled] + banks, parts: 2, halves: 0)
        // One wide range over the same network's own ranges: the first half reaches past the middle.
        let wide = Self.network("wide", [Self.range(10_000_000, 29_999_999)] + (0..<12_000).map { Self.range(10_000_000 + 1_000 * $0, 10_000_000 + 1_000 * $0 + 9) })
        Self.expectSame([wide] + banks, parts: 2, halves: 0)
        let (text, set) = Self.outcome([wide] + banks, Self.onAnotherThread)
        #expect(set?.levelsDescription.hasPrefix("8: 10000000-29999999 0 ") == true, "\(text.prefix(200))")
    }
}

import CardKit
import Testing

/// The indexed matcher against a plain scan of every pattern, on the bundled rules and on a
/// generated issuer-level table of 10,000 ranges over 500 networks.
@Suite struct RuleIndexTests {
    /// 500 networks, 20 disjoint six-digit ranges each, interleaved across the 3xxxxx–8xxxxx space,
    /// plus a few shorter prefixes that the ranges refine.
    static let generated: RuleSet = {
        var random = SeededRandom(seed: 42)
        var starts = Set<Int>()
        while starts.count < 10_000 { starts.insert(300_000 + Int(random.next() % 59_000) * 10) }
        let sorted = starts.sorted()
        var networks: [CardNetwork] = []
        for n in 0..<500 {
            var patterns: [IINPattern] = []
            for r in 0..<20 {
                let low = sorted[r * 500 + n]
                patterns.append(IINPattern(low: String(low), high: String(low + Int(random.next() % 10)))!)
            }
            if n < 5 { patterns.append(IINPattern(prefix: String(3 + n))!) }  // "3"…"7", refined by the ranges
            let lengths = n % 3 == 0 ? [16, 19] : [16]
            networks.append(
                CardNetwork(
                    id: "net\(n)", name: "Net \(n)", logo: "N\(n)", patterns: patterns, lengths: lengths,
                    groups: [4, 4, 4, 4],
                    cvv: .init(name: "CVV", length: 3, side: "back"), luhn: true, file: "gen/net\(n).json"))
        }
        return try! RuleSet(networks: networks)
    }()

    @Test func generatedSetHasTenThousandRanges() {
        #expect(Self.generated.networks.count == 500)
        #expect(Self.generated.networks.map(\.patterns.count).reduce(0, +) >= 10_000)
    }

    @Test(arguments: ["bundled", "generated"])
    func indexAgreesWithAPlainScan(setName: String) {
        let scan = setName == "bundled" ? Self.bundledScan : Self.generatedScan
        let set = scan.set
        var random = SeededRandom(seed: 7)
        // The plain scan is slow on 10,000 ranges in a debug build: fewer samples there.
        let samples = setName == "bundled" ? 3_000 : 400
        var checked = 0
        var decided = 0
        var none = 0
        for _ in 0..<samples {
            // Prefixes of numbers that start where patterns are, and anywhere at all.
            var typed: [UInt8]
            if random.next() % 2 == 0, let network = set.networks.randomElement(using: &random),
                let pattern = network.patterns.randomElement(using: &random)
            {
                typed = pattern.low
            } else {
                typed = [UInt8(random.next() % 10)]
            }
            let length = Int(random.next() % 19)
            while typed.count < length { typed.append(UInt8(random.next() % 10)) }
            typed = Array(typed.prefix(length))
            let expected = scan.scan(typed)
            let detection = set.detect(typed)
            #expect(detection == expected.detection, "\(typed)")
            #expect(set.candidates(typed).map(\.id) == expected.candidates, "\(typed)")
            checked += 1
            if expected.detection.network != nil { decided += 1 }
            if expected.candidates.isEmpty { none += 1 }
        }
        // Both kinds of answer came up often: a decided network, and no network at all.
        #expect(
            checked == samples && decided > samples / 10 && none > samples / 20,
            "\(decided) decided, \(none) with no network")
    }

    /// Every pattern of a set as digit strings, for `expected(_:)`: the plain scan, with no
    /// part of the index (nor `IINPattern.match`) in it.
    struct PlainScan {
        let set: RuleSet
        let patterns: [(low: [UInt8], high: [UInt8], owner: Int, index: Int, lengths: [Int])]

        init(_ set: RuleSet) {
            self.set = set
            patterns = set.networks.indices.flatMap { owner in
                set.networks[owner].patterns.indices.map { index in
                    let pattern = set.networks[owner].patterns[index]
                    return (pattern.low, pattern.high, owner, index, set.networks[owner].patternLengths[index])
                }
            }
        }

        /// The whole detection of `typed`, worked out digit string by digit string: a pattern
        /// matches in full when the digits are at least as long and their head lies between its
        /// ends, in part when they are shorter and lie between the ends cut to their length.
        /// The longest full match decides when no other network is still possible; the lengths
        /// are those of the patterns still possible and of the deciding one.
        func expected(_ typed: [UInt8]) -> Detection { scan(typed).detection }

        /// The detection and the ids of the networks still possible, in load order.
        func scan(_ typed: [UInt8]) -> (detection: Detection, candidates: [String]) {
            var best: (owner: Int, length: Int, index: Int, lengths: [Int])?
            var owners = Set<Int>()
            var lengths = Set<Int>()
            for pattern in patterns {
                let n = min(typed.count, pattern.low.count)
                let head = Array(typed.prefix(n))
                guard !head.lexicographicallyPrecedes(pattern.low.prefix(n)),
                    !pattern.high.prefix(n).lexicographicallyPrecedes(head)
                else { continue }
                if typed.count >= pattern.low.count {
                    if pattern.low.count > best?.length ?? 0 {
                        best = (pattern.owner, pattern.low.count, pattern.index, pattern.lengths)
                    }
                } else {
                    owners.insert(pattern.owner)
                    lengths.formUnion(pattern.lengths)
                }
            }
            if let best {
                owners.insert(best.owner)
                lengths.formUnion(best.lengths)
            }
            let decided = best.flatMap { owners == [$0.owner] ? $0 : nil }
            // A co-badged deciding pattern's partners, as its entry's `with` lists them (those loaded).
            let coBadged =
                decided.flatMap { best -> [CardNetwork]? in
                    let network = set.networks[best.owner]
                    return network.patternTerms.first { $0.pattern == best.index }?.coBadge.map {
                        network.coBadges[$0].with.compactMap { set.network(id: $0) }
                    }
                } ?? []
            let detection = Detection(
                network: decided.map { set.networks[$0.owner] }, hasCandidates: !owners.isEmpty,
                maxLength: lengths.max() ?? 0, decidingLength: decided?.length ?? 0, lengths: LengthSet(lengths),
                coBadged: coBadged)
            return (detection, owners.sorted().map { set.networks[$0].id })
        }
    }

    static let bundledScan = PlainScan(BundledRules.set)
    static let generatedScan = PlainScan(generated)

    /// The engine's detection at every key of a number (it stops looking once the digits
    /// pass the longest pattern), against the plain scan: the network, whether any remains,
    /// the longest and the allowed lengths, the deciding pattern's length. A wrong index, or
    /// an engine keeping a detection it should have renewed, is caught here.
    @Test(arguments: ["bundled", "generated"])
    func engineDetectionAtEveryKeyIsThePlainScans(setName: String) {
        let scan = setName == "bundled" ? Self.bundledScan : Self.generatedScan
        let set = scan.set
        var random = SeededRandom(seed: 99)
        // The plain scan is slow on 10,000 ranges in a debug build: fewer numbers there.
        let numbers = setName == "bundled" ? 200 : 40
        var compared = 0
        var decided = 0
        for _ in 0..<numbers {
            var engine = EntryEngine(rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
            let network = set.networks.randomElement(using: &random)!
            var digits = network.patterns.randomElement(using: &random)!.low
            while digits.count < 19 { digits.append(UInt8(random.next() % 10)) }
            for digit in digits {
                _ = engine.handle(.character(Character(Unicode.Scalar(digit + 48))))
                guard engine.field == .number else { break }
                #expect(engine.detection == scan.expected(engine.numberDigits), "\(engine.numberDigits)")
                compared += 1
                if engine.detection.network != nil { decided += 1 }
            }
        }
        // Each number keyed at least to its pattern's length, most of them decided on the way.
        #expect(compared >= numbers * 6 && decided >= numbers)
        #expect(set.longestPattern >= 6)
    }

    @Test func networkHiddenByMoreSpecificPatternsIsAWarning() throws {
        func network(_ id: String, _ patterns: [IINPattern]) -> CardNetwork {
            CardNetwork(
                id: id, name: id, logo: id, patterns: patterns, lengths: [16], groups: [4, 4, 4, 4],
                cvv: .init(name: "CVV", length: 3, side: "back"), luhn: true, file: "\(id).json")
        }
        let hidden = try RuleSet(networks: [
            network("shadow", [IINPattern(prefix: "65")!]),
            network("low", [IINPattern(low: "650", high: "654")!]),
            network("high", [IINPattern(low: "6550", high: "6599")!]),
        ])
        #expect(
            hidden.warnings.map(\.description) == [
                "shadow.json:1:1: warning: network `shadow` can never be detected: more specific patterns of other networks cover all of its own"
            ])
        let gap = try RuleSet(networks: [
            network("partly", [IINPattern(prefix: "65")!]),
            network("low", [IINPattern(low: "650", high: "654")!]),
            network("high", [IINPattern(low: "6551", high: "6599")!]),  // 6550 is left to `partly`
        ])
        #expect(gap.warnings.isEmpty)
        #expect(BundledRules.set.warnings.isEmpty)
    }
}

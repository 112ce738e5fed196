import CardKit
import Testing

/// The indexed matcher against a plain scan of every pattern, on the bundled rules and on a
/// generated issuer-level table of 10,000 ranges over 500 networks.
@Suite struct RuleIndexTests {
    /// What detection must say, computed the slow, obvious way.
    static func reference(_ set: RuleSet, _ typed: [UInt8]) -> (network: String?, candidates: [String], maxLength: Int) {
        var bestLength = 0
        var bestOwner: Int?
        var partial = Set<Int>()
        for (index, network) in set.networks.enumerated() {
            for pattern in network.patterns {
                switch pattern.match(typed) {
                case .full where pattern.length > bestLength:
                    bestLength = pattern.length
                    bestOwner = index
                case .partial: partial.insert(index)
                default: break
                }
            }
        }
        let owners = partial.union(bestOwner.map { [$0] } ?? []).sorted()
        let decided = owners.count == 1 && owners.first == bestOwner ? set.networks[bestOwner!].id : nil
        return (decided, owners.map { set.networks[$0].id }, owners.map { set.networks[$0].maxLength }.max() ?? 0)
    }

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
            networks.append(CardNetwork(id: "net\(n)", name: "Net \(n)", logo: "N\(n)", patterns: patterns, lengths: lengths,
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
        let set = setName == "bundled" ? BundledRules.set : Self.generated
        var random = SeededRandom(seed: 7)
        // The plain scan is slow on 10,000 ranges in a debug build: fewer samples there.
        let samples = setName == "bundled" ? 3_000 : 400
        var checked = 0
        for _ in 0..<samples {
            // Prefixes of numbers that start where patterns are, and anywhere at all.
            var typed: [UInt8]
            if random.next() % 2 == 0, let network = set.networks.randomElement(using: &random),
               let pattern = network.patterns.randomElement(using: &random) {
                typed = pattern.low
            } else {
                typed = [UInt8(random.next() % 10)]
            }
            let length = Int(random.next() % 19)
            while typed.count < length { typed.append(UInt8(random.next() % 10)) }
            typed = Array(typed.prefix(length))
            let expected = Self.reference(set, typed)
            let detection = set.detect(typed)
            #expect(detection.network?.id == expected.network, "\(typed)")
            #expect(set.candidates(typed).map(\.id) == expected.candidates, "\(typed)")
            #expect(detection.hasCandidates == !expected.candidates.isEmpty)
            #expect(detection.maxLength == expected.maxLength, "\(typed)")
            checked += 1
        }
        #expect(checked == samples)
    }

    /// The engine stops detecting once the digits pass the longest pattern; at every key its
    /// detection must still equal a fresh one.
    @Test(arguments: ["bundled", "generated"])
    func engineDetectionMatchesAFreshOneAtEveryKey(setName: String) {
        let set = setName == "bundled" ? BundledRules.set : Self.generated
        var random = SeededRandom(seed: 99)
        for _ in 0..<200 {
            var engine = EntryEngine(rules: set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
            let network = set.networks.randomElement(using: &random)!
            var digits = network.patterns.randomElement(using: &random)!.low
            while digits.count < 19 { digits.append(UInt8(random.next() % 10)) }
            for digit in digits where engine.field == .number {
                _ = engine.handle(.character(Character(Unicode.Scalar(digit + 48))))
                guard engine.field == .number else { break }
                #expect(engine.detection == set.detect(engine.numberDigits), "\(engine.numberDigits)")
            }
        }
        #expect(set.longestPattern >= 6)
    }

    @Test func networkHiddenByMoreSpecificPatternsIsAWarning() throws {
        func network(_ id: String, _ patterns: [IINPattern]) -> CardNetwork {
            CardNetwork(id: id, name: id, logo: id, patterns: patterns, lengths: [16], groups: [4, 4, 4, 4],
                        cvv: .init(name: "CVV", length: 3, side: "back"), luhn: true, file: "\(id).json")
        }
        let hidden = try RuleSet(networks: [
            network("shadow", [IINPattern(prefix: "65")!]),
            network("low", [IINPattern(low: "650", high: "654")!]),
            network("high", [IINPattern(low: "6550", high: "6599")!]),
        ])
        #expect(hidden.warnings.map(\.description) == ["shadow.json:1:1: warning: network `shadow` can never be detected: more specific patterns of other networks cover all of its own"])
        let gap = try RuleSet(networks: [
            network("partly", [IINPattern(prefix: "65")!]),
            network("low", [IINPattern(low: "650", high: "654")!]),
            network("high", [IINPattern(low: "6551", high: "6599")!]),  // 6550 is left to `partly`
        ])
        #expect(gap.warnings.isEmpty)
        #expect(BundledRules.set.warnings.isEmpty)
    }
}


@testable import CardKit
import Dispatch
import Synchronization
import Testing

/// A big level of the index sorted half on each of two threads (`SecondHalf`, through
/// `RuleSet.load(decoded:startingOther:)`) is the index made on one: the same intervals, the
/// same warnings, the same problems in the same order, however the other thread's work is
/// timed (at once, never, on a real thread, or after the index is done).
@Suite struct IndexSortingThreadsTests {
    /// `networks` networks of `perNetwork` eight-digit ranges each in 100-number blocks dealt at
    /// random, a block's range touching the next one now and then (merged when both are one
    /// network's); with `ties`, a few ranges also given to a second network (refused).
    static func networks(_ networks: Int, perNetwork: Int, seed: UInt64, ties: Bool = false) -> [CardNetwork] {
        var random = SeededRandom(seed: seed)
        var blocks = Array(0..<(networks * perNetwork))
        for i in stride(from: blocks.count - 1, to: 0, by: -1) { blocks.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        return (0..<networks).map { n in
            var patterns = (0..<perNetwork).map { r -> IINPattern in
                let low = 30_000_000 + UInt64(blocks[n * perNetwork + r]) * 100
                let high = random.next() % 4 == 0 ? low + 99 : low + random.next() % 100
                return IINPattern(lowValue: low, highValue: high, length: 8)
            }
            if ties && n % 97 == 5 { patterns.append(patterns[0 == n ? 1 : 0]) }  // (this network's own: no tie)
            if ties && n % 101 == 7 {
                let other = blocks[((n + 1) % networks) * perNetwork]
                patterns.append(IINPattern(lowValue: 30_000_000 + UInt64(other) * 100 + 10, highValue: 30_000_000 + UInt64(other) * 100 + 20, length: 8))
            }
            return CardNetwork(id: "bank-\(n)", name: "Bank \(n)", logo: "B\(n)", patterns: patterns, lengths: [16],
                               groups: [4, 4, 4, 4], cvv: .init(name: "CVV", length: 3, side: "back"), luhn: true, file: "bank-\(n).json")
        } + BundledRules.set.networks
    }

    /// The index (or the problems) as text, to compare.
    static func describe(_ networks: [CardNetwork], _ starter: RuleSet.WorkStarter?) -> String {
        do {
            let set = try RuleSet(networks: networks, startingOther: starter)
            var text = set.warnings.map(\.description).joined(separator: "\n")
            for level in set.intervals {
                text += "\n\(level.length): \(level.lows.count) \(level.lows) \(level.highs) \(level.owners) \(level.masks)"
            }
            return text
        } catch {
            return "problems:\n" + error.errors.map(\.description).joined(separator: "\n")
        }
    }

    /// Work handed to the other thread, run when the test says (after the index is made).
    final class Later: Sendable {
        let work = Mutex<[@Sendable () -> Void]>([])
        func start(_ job: @escaping @Sendable () -> Void) { work.withLock { $0.append(job) } }
        func runAll() { for job in work.withLock({ $0 }) { job() } }
        var count: Int { work.withLock { $0.count } }
    }

    @Test(arguments: [false, true])
    func everyTimingOfTheOtherThreadGivesTheSameIndex(ties: Bool) {
        let networks = Self.networks(400, perNetwork: 100, seed: ties ? 5 : 3, ties: ties)
        let alone = Self.describe(networks, nil)
        #expect(alone.contains("\n8: ") || alone.hasPrefix("problems:"))
        #expect(ties == alone.hasPrefix("problems:"), "\(alone.prefix(300))")
        #expect(Self.describe(networks, { $0() }) == alone)  // the other thread first, all of it
        #expect(Self.describe(networks, { _ in }) == alone)  // never: this thread sorts every chunk
        let done = DispatchSemaphore(value: 0)
        let real = Self.describe(networks, { job in DispatchQueue.global().async { job(); done.signal() } })
        done.wait()
        #expect(real == alone)
        let later = Later()
        #expect(Self.describe(networks, later.start) == alone)
        #expect(later.count == 1)  // one big level: one job for the other thread
        later.runAll()  // (its results come too late and are dropped)
    }

    /// Below `SecondHalf.fewestWords` patterns in a level (the bundled rules, a small bank), no
    /// other thread is asked.
    @Test func aSmallSetStartsNoOtherThread() throws {
        let later = Later()
        _ = try RuleSet(networks: Self.networks(100, perNetwork: 100, seed: 9), startingOther: later.start)
        _ = try RuleSet(networks: BundledRules.set.networks, startingOther: later.start)
        #expect(later.count == 0)
        _ = try RuleSet(networks: Self.networks(200, perNetwork: 100, seed: 9), startingOther: later.start)
        #expect(later.count == 1)
    }
}

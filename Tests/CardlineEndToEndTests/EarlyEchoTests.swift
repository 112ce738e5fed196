import CardKit
@testable import CardPrompt
import Testing

/// The badge counter's update that an ordinary digit's early echo carries
/// (`BadgePainter.appendCounterUpdate`, asked before the key) must be exactly what the
/// painter writes once the key is taken (`want` then `draw`), or not be given at all.
@Suite struct EarlyEchoTests {
    /// Random counters, logos, line ends and widths, with and without colour: whenever the
    /// update is given, it is the painter's own bytes; and it is given often.
    @Test(arguments: [false, true])
    func counterUpdateIsThePaintersOwn(colour: Bool) {
        let style = Style(colour: colour)
        var random = SeededRandom(seed: colour ? 11 : 12)
        let logos = ["VISA", "MC", "AMEX", "NARROW"]
        var given = 0, compared = 0
        for _ in 0..<3_000 {
            var painter = BadgePainter()
            let columns = 40 + Int(random.next() % 80)
            let logo = logos[Int(random.next() % UInt64(logos.count))]
            let goal = 12 + Int(random.next() % 8)
            var count = Int(random.next() % UInt64(goal))
            var end = 10 + Int(random.next() % 30)
            painter.want(logo: logo, progress: "\(count)/\(goal)", style: style)
            _ = painter.draw(end: end, columns: columns, resetColour: colour)
            for _ in 0..<4 {
                // The next digit's (or, now and then, another logo's or a jump of the count).
                let nextLogo = random.next() % 8 == 0 ? logos[Int(random.next() % UInt64(logos.count))] : logo
                let nextCount = random.next() % 8 == 0 ? Int(random.next() % UInt64(goal)) : min(goal, count + 1)
                let nextEnd = end + 1 + Int(random.next() % 2)
                let progress = "\(nextCount)/\(goal)"
                var early = ShortBytes()
                let answered = painter.appendCounterUpdate(logo: nextLogo, progress: progress, end: nextEnd, columns: columns, to: &early)
                painter.want(logo: nextLogo, progress: progress, style: style)
                var drawn = ShortBytes()
                if painter.draw(end: nextEnd, columns: columns, resetColour: colour) {
                    #expect(painter.appendDrawn(to: &drawn, room: ShortBytes.capacity))
                }
                if answered {
                    given += 1
                    if drawn.count > 0 { compared += 1 }
                    #expect(Array(early.storage.span.extracting(0..<early.count).bytes) == Array(drawn.storage.span.extracting(0..<drawn.count).bytes),
                            "\(logo) → \(nextLogo), \(count) → \(nextCount)/\(goal), end \(end) → \(nextEnd), \(columns) columns")
                }
                count = nextCount
                end = nextEnd
            }
        }
        #expect(given > 3_000 && compared > 2_000, "\(given) given, \(compared) with bytes")
    }
}

extension Span<UInt8> {
    /// The bytes, for comparing.
    fileprivate var bytes: [UInt8] { (0..<count).map { self[$0] } }
}

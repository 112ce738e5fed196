import CardKit
@testable import CardPrompt
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

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

/// The early echo is the path taken (issue 21 item 7): from the fourth digit of a Visa number
/// every digit but the one that widens the counter is echoed as it is read, and the prompt then
/// lets the terminal have the processor (a `poll` of up to a millisecond, a sleep) before the
/// key's work and its wait for the next key: two voluntary context switches a digit (once the
/// prompt waits for the next key again, in `ppoll`), where the path that echoes after the
/// engine sleeps once. The bytes are the same either way (`PromptEconomyTests`), so this is
/// what tells the paths apart.
@Suite struct EarlyEchoPathTests {
    let home = TemporaryHome()

    /// `voluntary_ctxt_switches` of a process (`/proc/PID/status`, readable by its user).
    static func voluntarySwitches(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }) else { return nil }
        return Int(line.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces))
    }

    /// Waits until the process is blocked in `ppoll` (`/proc/PID/syscall`, x86-64's 271: the
    /// prompt waiting for a key, its work for the last one done); false after 10 s.
    static func waitInPpoll(_ pid: pid_t) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8), text.hasPrefix("271 ") { return true }
            sched_yield()
        }
        return false
    }

    /// Types a Visa number's digits at a prompt under `terminal`: the first three at once, then
    /// each of `counts` alone, once the prompt has taken the one before wholly (it waits in
    /// `ppoll` again), and gives how much `counter` of the process grew with each digit (the
    /// prompt's own work for it, read from /proc: root's to read). The line shown is checked
    /// after every digit; the prompt is left with Ctrl-U, Ctrl-D.
    static func perDigit(_ counts: ClosedRange<Int>, of counter: (pid_t) -> Int?, terminal: [String: String?],
                         home: TemporaryHome) throws -> [Int: Int] {
        var environment = home.environment
        for (name, value) in terminal { environment[name] = value }
        let t = try PseudoTerminal(arguments: ["--today", "2026-11", "--no-history"], environment: environment)
        t.waitForRawMode()
        let number = Array("4111111111111111")
        t.send(String(number.prefix(counts.lowerBound - 1)))
        t.expectBadge("VISA \(counts.lowerBound - 1)/16")
        try #require(waitInPpoll(t.pid))
        var grew: [Int: Int] = [:]
        for count in counts {
            let before = try #require(counter(t.pid))
            t.send(String(number[count - 1]))
            let field = String(number.prefix(count)).grouped
            try #require(t.waitForScreen("\(count) digits") {
                $0.cursorLine.contains(": " + field + " ") && $0.cursorLine.hasSuffix("VISA \(count)/16")
            } != nil)
            try #require(waitInPpoll(t.pid))
            grew[count] = try #require(counter(t.pid)) - before
        }
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
        return grew
    }

    @Test(.enabled(if: geteuid() == 0, "/proc/PID/syscall of a process that is not dumpable is root's to read"),
          arguments: BadgeDrawingTests.terminals)
    func digitsAreEchoedAsTheyAreRead(terminal: [String: String?]) throws {
        // Digits 4 to 9: each answered by `EntryEngine.nextDigit` (`NextDigitTests`).
        let switches = try Self.perDigit(4...9, of: Self.voluntarySwitches, terminal: terminal, home: home)
        let total = switches.values.reduce(0, +)
        #expect(switches.count == 6 && total >= 12, "\(total) voluntary context switches for six digits")
    }
}

extension Span<UInt8> {
    /// The bytes, for comparing.
    fileprivate var bytes: [UInt8] { (0..<count).map { self[$0] } }
}

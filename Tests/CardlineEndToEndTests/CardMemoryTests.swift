import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// After an entry ends — accepted, cancelled, emptied, or its card removed from the tray — no
/// copy of the card number is left in the live process's memory: not in the engine, not in
/// libedit's line and display buffers, not in the terminal's output buffer, not in freed heap.
/// The test reads the whole of the running prompt's memory (every readable mapping, through
/// `/proc/PID/maps` and `/proc/PID/mem`) once the prompt is idle again, waiting for a key.
///
/// The prompt makes itself non-dumpable (`PR_SET_DUMPABLE` 0), so only a reader with
/// CAP_SYS_PTRACE may open its memory: root, as in CI. Run as any other user, the test is
/// skipped (and says so) rather than passing on memory it could not read. Under
/// AddressSanitizer (`make test-asan`) freed memory is the sanitizer's, which cardline does not
/// wipe (its `free` is left out of such a build), so the test is skipped there too.
@Suite(
    .enabled(if: geteuid() == 0, "reading the prompt's memory (/proc/PID/mem of a non-dumpable process) needs root"),
    .disabled(if: testingUnderASan, "AddressSanitizer keeps its own free(): freed memory is not wiped"))
struct CardMemoryTests {
    let home = TemporaryHome()

    /// A Luhn-valid Visa number of digits that turn up nowhere by chance.
    static let number = "4973682519403570"

    /// Every form a copy of the number can take: its digits as typed, as shown (grouped), the
    /// same as wide characters (libedit keeps its line and screen as 32-bit `wchar_t`), and as
    /// digit values (0–9, as the engine keeps them); and its middle digits (7th to 12th, the
    /// ones masking hides) alone, so that a copy of part of the number (a field typed halfway,
    /// a display text before the last digit) counts too.
    /// The cardholder's name and postal code count too (`--name`, `--postal-code CA`; issue
    /// 36): each as ASCII (as the engine and the delivered JSON hold it), UTF-16 and UTF-32
    /// (libedit's wide line and screen buffers), in upper case as a swipe's track 1 gives the
    /// name, the surname alone (a name typed halfway), and the postal code's characters
    /// without its space (as the engine keeps them).
    static let needles: [(name: String, bytes: [UInt8])] = {
        let grouped = "4973 6825 1940 3570"
        func wide(_ text: String) -> [UInt8] {
            text.unicodeScalars.flatMap { withUnsafeBytes(of: $0.value.littleEndian, Array.init) }
        }
        func utf16(_ text: String) -> [UInt8] {
            text.utf16.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        }
        let holderTexts = [
            ("name", holderName), ("name in upper case", holderName.uppercased()), ("surname", "Quixote"),
            ("surname in upper case", "QUIXOTE"), ("postal code", postalCode), ("postal characters", "H3Z2Y7"),
        ]
        let holderNeedles = holderTexts.flatMap { (name, text) in
            [(name, Array(text.utf8)), (name + " as UTF-16", utf16(text)), (name + " as wchar_t", wide(text))]
        }
        return [
            ("digits", Array(number.utf8)), ("grouped", Array(grouped.utf8)),
            ("digits as wchar_t", wide(number)), ("grouped as wchar_t", wide(grouped)),
            ("digit values", number.dropLast().utf8.map { $0 - 48 }),
            ("middle digits", Array("251940".utf8)), ("grouped middle", Array("25 1940".utf8)),
            ("middle as wchar_t", wide("251940")), ("grouped middle as wchar_t", wide("25 1940")),
        ] + holderNeedles
    }()

    /// A cardholder's name and a Canadian postal code of letters that turn up nowhere by chance.
    static let holderName = "Zebulon Quixote", postalCode = "H3Z 2Y7"

    /// The prompt, delivering accepted cards to fd 3 when `delivering` (where Ctrl-C ends the
    /// prompt, exit 130); else the plain prompt, where Ctrl-C cancels the card and the prompt
    /// goes on.
    func start(delivering: Bool = false, _ extra: [String] = []) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color"] + (delivering ? ["--print-fd", "3"] : []) + extra,
            environment: home.environment, pipes: delivering ? [3] : [])
        terminal.waitForRawMode()
        terminal.expect("Card number (#### #### #### ####): ")
        return terminal
    }

    /// Waits until the prompt shows an empty number field (`emptyNumber`: the ordinary
    /// prompt's, unless said) and is blocked reading the terminal (its system call is the wait
    /// for a key): it is done with whatever came before.
    func waitUntilIdle(
        _ t: PseudoTerminal,
        emptyNumber: (ScreenModel) -> Bool = { screen in
            screen.lines.contains { $0.hasPrefix("Card number (#### #### #### ####): ") && $0.contains("CARD 0") }
        }
    ) {
        t.waitForScreen("the number field, empty", emptyNumber)
        #if arch(x86_64)
            let waits = ["271 ", "7 "]  // ppoll, poll
        #else
            let waits = ["73 "]  // ppoll (aarch64)
        #endif
        var syscall = ""
        let idle = t.waitForStatusLine("the prompt waiting for a key") { _ in
            syscall = (try? String(contentsOfFile: "/proc/\(t.pid)/syscall", encoding: .utf8)) ?? ""
            return waits.contains { syscall.hasPrefix($0) }
        }
        #expect(idle != nil, "last system call: \(syscall)")
    }

    /// Each copy of a needle in the process's readable memory: the needle's name and the
    /// mapping it lies in. Fails the test when the memory cannot be read at all.
    func copies(in pid: pid_t) -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else {
            Issue.record("cannot read /proc/\(pid)/maps")
            return []
        }
        let fd = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            Issue.record("cannot open /proc/\(pid)/mem: \(String(cString: strerror(errno)))")
            return []
        }
        defer { close(fd) }
        var found: [String] = []
        var bytesRead = 0
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2, !line.hasSuffix("[vvar]"), !line.hasSuffix("[vsyscall]") else { continue }
            var region = [UInt8](repeating: 0, count: Int(bounds[1] - bounds[0]))
            let count = region.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bounds[0])) }
            guard count > 0 else { continue }
            bytesRead += count
            for needle in Self.needles {
                if let offset = Self.firstIndex(of: needle.bytes, in: region[..<count]) {
                    found.append("\(needle.name) at +0x\(String(offset, radix: 16)) in \(line)")
                }
            }
        }
        // A reader that saw nothing must not pass: the heap and stack alone are megabytes.
        #expect(bytesRead > 1_000_000, "read \(bytesRead) bytes of the process's memory")
        return found
    }

    /// Where `needle` first starts in `haystack` (memchr for its first byte, then a compare).
    static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        haystack.withUnsafeBytes { (hay) -> Int? in
            guard let base = hay.baseAddress, needle.count <= hay.count else { return nil }
            var at = 0
            while at + needle.count <= hay.count {
                guard let hit = memchr(base + at, Int32(needle[0]), hay.count - needle.count + 1 - at) else {
                    return nil
                }
                let index = base.distance(to: UnsafeRawPointer(hit))
                if needle.withUnsafeBytes({ memcmp(hit, $0.baseAddress!, needle.count) }) == 0 { return index }
                at = index + 1
            }
            return nil
        }
    }

    /// The scan finds the digits while the field still holds them (so an empty result later
    /// means the copies are gone, not that the scan is blind).
    @Test func theScanFindsTheDigitsInTheLiveField() throws {
        let t = try start()
        t.send(Self.partial)
        t.expectBadge("VISA 15/16")
        // (Ctrl-L redraws the line whole: libedit's line and screen buffers hold the field.)
        t.send("\u{0C}")
        t.expect("VISA 15/16")
        let found = copies(in: t.pid)
        #expect(found.contains { $0.hasPrefix("digit values") }, "the engine's digits; found: \(found)")
        #expect(found.contains { $0.hasPrefix("grouped middle as wchar_t") }, "libedit's line; found: \(found)")
        t.send("\u{04}")
    }

    /// The number's card swiped: track 1 and track 2 as a reader types them.
    static let tracks = "%B\(number)^LOVELACE/ADA^3012201000000000000?;\(number)=30122010000000000?"

    /// The number's first fifteen digits: typed, they leave the field open (Visa has 16).
    static let partial = String(number.dropLast())

    /// How an entry ends: the keys, and the text the screen shows once they have been handled.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case accepted, cancelled, emptiedWithCtrlU, backspacedAway, removedFromTheTray, pastedThenCancelled,
            redrawnThenCancelled,
            redrawnThenEmptied, swiped, swipedThenCancelled, swipeCutShort, typedIntoACommand
        var testDescription: String { rawValue }

        /// Key presses, each sent once the screen shows the text beside it (a badge, which
        /// cardline brings up to date by its changed characters, on the screen; any other text
        /// in the output).
        var steps: [(keys: String, then: String)] {
            let bracketed = "\u{1B}[200~" + CardMemoryTests.partial + "\u{1B}[201~"
            switch self {
            case .accepted: return [(CardMemoryTests.number + "1230" + "123\r", "Success!")]
            case .cancelled: return [(CardMemoryTests.partial, "VISA 15/16"), ("\u{03}", "Card cancelled.")]
            case .emptiedWithCtrlU:
                return [(CardMemoryTests.partial, "VISA 15/16"), ("\u{15}", "CARD 0"), (":cards\r", "no cards yet")]
            case .backspacedAway:
                return [
                    (CardMemoryTests.partial, "VISA 15/16"), (String(repeating: "\u{7F}", count: 15), "CARD 0"),
                    (":cards\r", "no cards yet"),
                ]
            case .removedFromTheTray:
                return [(CardMemoryTests.number + "1230" + "123\r", "Success!"), (":remove 1\r", "removed Visa")]
            case .pastedThenCancelled: return [(bracketed, "VISA 15/16"), ("\u{03}", "Card cancelled.")]
            case .redrawnThenCancelled:
                return [
                    (CardMemoryTests.partial, "VISA 15/16"), ("\u{0C}", "VISA 15/16"), ("\u{03}", "Card cancelled."),
                ]
            // Ctrl-L writes the whole line at once; what follows writes little (no message).
            case .redrawnThenEmptied:
                return [(CardMemoryTests.partial, "VISA 15/16"), ("\u{0C}", "VISA 15/16"), ("\u{15}", "CARD 0")]
            // A card swiped through a keyboard-wedge reader (issue 24): the track bytes are
            // collected apart from the keys, read, and wiped.
            case .swiped: return [(CardMemoryTests.tracks + "\r", "Type the 3-digit CVV"), ("123\r", "Success!")]
            case .swipedThenCancelled:
                return [(CardMemoryTests.tracks + "\r", "Type the 3-digit CVV"), ("\u{03}", "Card cancelled.")]
            case .swipeCutShort:
                return [("%B\(CardMemoryTests.number)^LOVELACE/ADA^3012201\r", "couldn't read the swipe")]
            // The number typed into a `:` command by mistake, which then runs.
            case .typedIntoACommand:
                return [(":network \(CardMemoryTests.number)\r", "type the card number first")]
            }
        }
    }

    @Test(arguments: Ending.allCases)
    func noCopyOnceTheEntryHasEnded(_ ending: Ending) throws {
        try expectNoCopy(after: ending)
    }

    /// Issue 41: with `--record`, the recorder keeps what it needs of a card (its keys, its
    /// number) only until the card is written made up: once the entry has ended, no copy.
    @Test(arguments: [
        Ending.accepted, .backspacedAway, .pastedThenCancelled, .swiped, .swipeCutShort, .typedIntoACommand,
    ])
    func noCopyOnceTheEntryHasEndedWhileRecording(_ ending: Ending) throws {
        try expectNoCopy(after: ending, ["--record", home.path + "/memory.session"])
        #expect(try String(contentsOfFile: home.path + "/memory.session", encoding: .utf8).contains("@expect"))
    }

    /// Runs `ending`'s steps (cardline started with `extra` too), then scans its memory: no copy.
    func expectNoCopy(after ending: Ending, _ extra: [String] = []) throws {
        let delivers = ending == .accepted || ending == .removedFromTheTray || ending == .swiped
        let t = try start(delivering: delivers, extra)
        for step in ending.steps {
            t.send(step.keys)
            if step.then == "VISA 15/16" && step.keys != "\u{0C}" {
                t.expectBadge(step.then)
            } else {
                t.expect(step.then)
            }
        }
        if delivers { t.waitForPiped(3, containing: Self.number) }
        waitUntilIdle(t)
        let found = copies(in: t.pid)
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")
    }

    /// A card read from its chip (issue 40): the card's answers (its number in `5A` and in the
    /// track 2 equivalent `57`) pass through pcsc-lite, the watcher's threads, the read flow
    /// and the engine; once the card is delivered, no copy is left.
    @Test(.enabled(if: ChipReaderStack.available)) func noCopyOnceAChipReadIsDelivered() throws {
        let stack = try ChipReaderStack()
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--print-fd", "3"], environment: stack.environment(home),
            pipes: [3])
        t.waitForRawMode()
        t.expect("Type, swipe, insert or tap the card")
        let card = try stack.insert("memory")
        t.expect("Type the 3-digit CVV")
        card.remove()
        t.send("123\r")
        t.expect("Success!")
        t.waitForPiped(3, containing: Self.number)
        waitUntilIdle(t)
        let found = copies(in: t.pid)
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")
    }

    // MARK: - The cardholder's name and postal code (issue 36)

    /// The scan finds the name and the postal code while the prompt holds them: the name in
    /// the engine, the postal code in the engine and in libedit's wide line.
    @Test func theScanFindsTheNameAndPostalCodeInTheLiveFields() throws {
        let t = try start(["--name", "--postal-code", "CA"])
        t.send(Self.number + "1230" + "123\r")
        t.expect("Name (as on the card): ")
        t.send(Self.holderName + "\r")
        t.expect("Postal code (K1A 0B1): ")
        t.send(Self.postalCode)
        #expect(t.waitForScreen("the postal code typed") { $0.cursorLine.contains(Self.postalCode) } != nil)
        t.send("\u{0C}")  // Ctrl-L: libedit draws the line whole
        t.expect(Self.postalCode)
        let found = copies(in: t.pid)
        #expect(found.contains { $0.hasPrefix("name at") }, "the engine's name; found: \(found)")
        #expect(found.contains { $0.hasPrefix("postal code as wchar_t") }, "libedit's line; found: \(found)")
        t.send("\u{03}")
        t.expect("Card cancelled.")
        t.send("\u{04}")
    }

    /// How an entry with a name and a postal code ends.
    enum HolderEnding: String, CaseIterable, CustomTestStringConvertible {
        case delivered, cancelledInTheName, cancelledInThePostalCode, swipedWithAName
        var testDescription: String { rawValue }

        /// The prompt delivers the card (`--print-fd 3`); else Ctrl-C cancels it.
        var delivers: Bool { self == .delivered || self == .swipedWithAName }
        var arguments: [String] {
            self == .swipedWithAName || self == .cancelledInTheName ? ["--name"] : ["--name", "--postal-code", "CA"]
        }

        /// Key presses, each sent once the output (or, for a name or code typed, the line on
        /// screen) shows the text beside it.
        var steps: [(keys: String, then: String)] {
            let card = CardMemoryTests.number + "1230" + "123\r"
            let name = CardMemoryTests.holderName
            let code = CardMemoryTests.postalCode
            switch self {
            case .delivered:
                return [
                    (card, "Name (as on the card): "), (name + "\r", "Postal code (K1A 0B1): "),
                    (code + "\r", "Success!"),
                ]
            case .cancelledInTheName:
                return [(card, "Name (as on the card): "), (name, name), ("\u{03}", "Card cancelled.")]
            case .cancelledInThePostalCode:
                return [
                    (card, "Name (as on the card): "), (name + "\r", "Postal code (K1A 0B1): "), (code, code),
                    ("\u{03}", "Card cancelled."),
                ]
            case .swipedWithAName:
                // Track 1's name field, `SURNAME/GIVEN`: the name field filled with `ZEBULON QUIXOTE`.
                let tracks =
                    "%B\(CardMemoryTests.number)^QUIXOTE/ZEBULON^3012201000000000000?;\(CardMemoryTests.number)=30122010000000000?"
                return [
                    (tracks + "\r", "Type the 3-digit CVV"), ("123\r", "Name (as on the card): "),
                    ("", name.uppercased()), ("\r", "Success!"),
                ]
            }
        }
    }

    @Test(arguments: HolderEnding.allCases)
    func noCopyOfTheNameOrPostalCodeOnceTheEntryHasEnded(_ ending: HolderEnding) throws {
        let t = try start(delivering: ending.delivers, ending.arguments)
        for step in ending.steps {
            t.send(step.keys)
            if step.then == Self.holderName || step.then == Self.postalCode || step.then == Self.holderName.uppercased()
            {
                #expect(t.waitForScreen("\(step.then) typed") { $0.cursorLine.contains(step.then) } != nil)
            } else {
                t.expect(step.then)
            }
        }
        if ending.delivers { t.waitForPiped(3, containing: "\n") }
        waitUntilIdle(t)
        let found = copies(in: t.pid)
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")
    }
}

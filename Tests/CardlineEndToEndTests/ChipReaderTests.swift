import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Chip and contactless cards through a real PC/SC stack (issue 40): the binary on a pty, its
/// own pcscd with vsmartcard's virtual reader, and emulated cards (`Tests/chip/cards.py`)
/// inserted while the prompt waits. Each card is read at the empty number field, drawn masked
/// from the start, and delivered with `"entry":"chip"` or `"contactless"`; each fault ends in
/// one message with the fields left empty, and the next read works. Serialized: each test
/// starts its own pcscd, and two at once would only share the machine's two cores.
@Suite(.serialized, .enabled(if: ChipReaderStack.available)) struct ChipReaderTests {
    let home = TemporaryHome()
    static let unreadable = "couldn't read the chip — insert it again, swipe or type the number"

    /// The prompt on the stack, once it says a card may be inserted (the reader is found).
    func prompt(_ stack: ChipReaderStack, _ extra: [String] = ["--print", "--once"]) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--no-history"] + extra,
            environment: stack.environment(home), pipes: [1])
        t.waitForRawMode()
        t.expect("Type, swipe, insert or tap the card")
        return t
    }

    func delivered(_ t: PseudoTerminal) throws -> [String: Any] {
        let line = try #require(t.pipedText(1).split(separator: "\n").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Nothing but the masked number reached the terminal.
    func expectMasked(_ t: PseudoTerminal, _ number: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = String(decoding: t.raw, as: UTF8.self)
        #expect(!raw.contains(number), "the whole number reached the terminal", sourceLocation: sourceLocation)
    }

    /// The number's field is empty and live again.
    func expectEmptyNumber(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        let screen = t.waitForScreen("an empty number field") {
            $0.lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.hasPrefix(
                "Card number (#### #### #### ####):  ") == true
        }
        #expect(screen != nil, sourceLocation: sourceLocation)
    }

    @Test func aVisaInsertedIsReadThroughThePSEAndDelivered() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let card = try stack.insert("visa-contact")
        defer { card.remove() }
        t.expect("Visa •••• 1111, expires 12/30")
        let screen = try #require(
            t.waitForScreen("the CVV prompt") { $0.lines.contains { $0.hasPrefix("CVV (###): ") } })
        #expect(screen.lines.contains { $0.hasPrefix("Card number (#### #### #### ####): 4111 11•• •••• 1111") })
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        let json = try delivered(t)
        #expect(json["number"] as? String == "4111111111111111")
        #expect(json["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        #expect(json["entry"] as? String == "chip")
        #expect(json["pan_sequence"] as? Int == 1)
        #expect(json["chip"] == nil, "the swipe's chip flag keeps its meaning")
        expectMasked(t, "4111111111111111")
    }

    @Test func aMastercardTappedIsReadFromItsPPSEAndFormat2Answer() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let card = try stack.insert("mastercard-contactless")
        defer { card.remove() }
        t.expect("Mastercard •••• 4444, expires 12/28")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        let json = try delivered(t)
        #expect(json["number"] as? String == "5555555555554444")
        #expect(json["entry"] as? String == "contactless")
        #expect(json["pan_sequence"] as? Int == 2)
        expectMasked(t, "5555555555554444")
    }

    @Test func anAmexThatRefusesAZeroPDOLIsRead() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let card = try stack.insert("amex")
        defer { card.remove() }
        t.expect("American Express •••• 0005, expires 11/29")
        t.send("1234\r")
        #expect(t.waitForExit() == 0)
        #expect(try delivered(t)["number"] as? String == "378282246310005")
        expectMasked(t, "378282246310005")
    }

    @Test func aT0CardIsReadThroughGetResponseAndWrongLengthAnswers() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let card = try stack.insert("visa-t0")
        defer { card.remove() }
        t.expect("Visa •••• 1881, expires 12/30")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        let json = try delivered(t)
        #expect(json["number"] as? String == "4012888888881881" && json["entry"] as? String == "chip")
    }

    /// Cartes Bancaires + Visa: CB is preselected (the card gives it priority 1), Ctrl-N
    /// chooses Visa, as for any co-badged card.
    @Test func aCoBadgedCardOffersItsApplicationsPreselectedByPriority() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack, ["--print"])
        var card = try stack.insert("co-badged")
        t.expect("Network: Cartes Bancaires (also Visa); Ctrl-N or :network ID changes it.")
        t.expect("Cartes Bancaires •••• 0008, expires 01/30")
        t.send("123\r")
        t.expect("Success!")
        card.remove()
        card = try stack.insert("co-badged")
        t.expect("Network: Cartes Bancaires (also Visa)")
        t.expect("CVV (###): ")
        t.send("\u{0E}")  // Ctrl-N
        t.send("123\r")
        t.expect("Success! Visa")
        card.remove()
        t.send("\u{04}")  // Ctrl-D: quits between cards
        #expect(t.waitForExit() == 0)
        let lines = t.pipedText(1).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(first["network"] as? String == "cartes-bancaires" && first["also_networks"] as? [String] == ["visa"])
        #expect(second["network"] as? String == "visa")
        #expect(first["entry"] as? String == "contactless")
    }

    /// A card pulled out between two records: one message, the fields empty, the prompt usable;
    /// the next card is read.
    @Test func aCardPulledMidReadSaysSoAndTheNextReadWorks() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let pulled = try stack.insert("pulled")
        t.expect(Self.unreadable)
        expectEmptyNumber(t)
        pulled.remove()
        let card = try stack.insert("visa-contact")
        defer { card.remove() }
        t.expect("Visa •••• 1111, expires 12/30")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        #expect(try delivered(t)["number"] as? String == "4111111111111111")
    }

    @Test func garbageTLVSaysSoAndTypingStillWorks() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let card = try stack.insert("garbage")
        defer { card.remove() }
        t.expect(Self.unreadable)
        expectEmptyNumber(t)
        t.send("4111111111111111" + "1230" + "123\r")
        #expect(t.waitForExit() == 0)
        #expect(try delivered(t)["entry"] as? String == "keyed")
    }

    @Test func anExpiredCardIsRefusedWithItsExpiry() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack)
        let card = try stack.insert("expired")
        defer { card.remove() }
        t.expect("the card read from the chip expired in 09/25")
        expectEmptyNumber(t)
        expectMasked(t, "4111111111111111")
    }

    @Test func aCardOfANetworkNotAcceptedIsRefused() throws {
        let stack = try ChipReaderStack()
        let t = try prompt(stack, ["--print", "--once", "--networks", "mastercard"])
        let card = try stack.insert("visa-contact")
        defer { card.remove() }
        t.expect("Visa")
        t.expect("not accepted")
        expectEmptyNumber(t)
        expectMasked(t, "4111111111111111")
    }

    @Test func aReaderNamedButNotAttachedIsAUsageError() throws {
        let stack = try ChipReaderStack()
        let run = try runPiped(
            ["--reader", "No Such Reader", "--print"], input: "", environment: stack.environment(home))
        #expect(run.status == 64)
        #expect(run.errors.contains("no chip reader named 'No Such Reader'"))
        #expect(run.errors.contains(ChipReaderStack.reader))
        let listed = try runPiped(["readers"], input: "", environment: stack.environment(home))
        #expect(listed.status == 0)
        #expect(listed.output == "Virtual PCD 00 00\tempty\nVirtual PCD 00 01\tempty\n")
    }

    /// `--no-reader`: the hint stays the typed one, and an inserted card is not read.
    @Test func noReaderLeavesTheReaderAlone() throws {
        let stack = try ChipReaderStack()
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--no-history", "--no-reader", "--print", "--once"],
            environment: stack.environment(home), pipes: [1])
        t.waitForRawMode()
        let card = try stack.insert("visa-contact")
        defer { card.remove() }
        // The card is in: `cardline readers` sees it; the prompt, told not to look, types on.
        #expect(Self.waitUntil { Self.readers(stack, home).hasPrefix("Virtual PCD 00 00\tcard") })
        t.send("5555555555554444" + "1228" + "123\r")
        #expect(t.waitForExit() == 0)
        #expect(try delivered(t)["entry"] as? String == "keyed")
        #expect(!t.text.contains("insert or tap"))
    }

    /// On a machine where libpcsclite cannot be loaded (here: every copy of it hidden behind
    /// /dev/null in a mount namespace of the test's), cardline starts and takes a typed card
    /// as before, even with a pcscd and a card in the reader, and says nothing of readers.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func withoutLibpcscliteTheBinaryStartsAndTakesATypedCard() throws {
        let stack = try ChipReaderStack()
        let libraries = ["/usr/lib", "/lib", "/usr/lib64"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).flatMap { sub in
                ["\(folder)/\(sub)/libpcsclite.so.1", "\(folder)/libpcsclite.so.1"]
            }
        }.filter { FileManager.default.fileExists(atPath: $0) }
        let hide = libraries.map { "mount --bind /dev/null \($0) && " }.joined()
        let arguments = ["--today", "2026-11", "--no-color", "--no-history", "--print", "--once"]
        let t = try PseudoTerminal(
            arguments: ["-rm", "/bin/sh", "-c", hide + "exec \"$0\" \"$@\"", cardlineBinary] + arguments,
            environment: stack.environment(home), binary: "/usr/bin/unshare", pipes: [1])
        t.waitForRawMode()
        let card = try stack.insert("visa-contact")
        defer { card.remove() }
        // The card is in (`cardline readers` outside the namespace sees it); a prompt that could
        // load the library would have found the reader by now and said so.
        #expect(Self.waitUntil { Self.readers(stack, home).hasPrefix("Virtual PCD 00 00\tcard") })
        t.send("4111111111111111" + "1230" + "123\r")
        #expect(t.waitForExit() == 0)
        #expect(try delivered(t)["entry"] as? String == "keyed")
        #expect(!t.text.contains("insert or tap") && !t.text.contains("chip"))
    }

    /// What `cardline readers` says on the stack.
    static func readers(_ stack: ChipReaderStack, _ home: TemporaryHome) -> String {
        (try? runPiped(["readers"], input: "", environment: stack.environment(home)))?.output ?? ""
    }

    /// Runs `condition` until it holds, for up to 10 seconds.
    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
        }
        return false
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Handing the card to a caller: `--print`, `--print-fd`, `--once`, `--networks`, `--title`,
/// the exit statuses a script branches on, and the `order-desk` example built on the library.
/// The prompt runs on a real pseudo-terminal while stdout is a pipe, as in
/// `card=$(cardline --print --once)`.
@Suite struct DeliveryTests {
    let home = TemporaryHome()
    static let number = "4111111111111111", code = "987"

    func start(
        _ arguments: [String], pipes: [Int32] = [1], binary: String = cardlineBinary,
        environment: [String: String] = [:]
    ) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: arguments, environment: home.environment.merging(environment) { $1 },
            binary: binary, pipes: pipes)
        t.waitForRawMode()
        return t
    }

    func json(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// No full number and no code anywhere in what the terminal received: not echoed by the
    /// driver (the number is sent in one burst, so an echo would show it whole), not printed.
    func expectNothingSecretOnTheTerminal(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = String(decoding: t.raw, as: UTF8.self)
        #expect(!raw.contains(Self.number), sourceLocation: sourceLocation)
        #expect(!raw.contains(Self.code), sourceLocation: sourceLocation)
        #expect(!raw.contains("\"number\""), "no JSON on the terminal", sourceLocation: sourceLocation)
    }

    @Test func printOnceDeliversExactlyTheCardTyped() throws {
        let t = try start(["--today", "2026-11", "--print", "--once", "--no-history"])
        t.expect("Card number (#### #### #### ####): ")
        t.send(Self.number)
        t.expect("•• •••• 1111")  // the finished line is redrawn masked
        t.expect("Type the expiry date")
        t.send("1230")
        t.expect("Type the 3-digit CVV")
        t.send(Self.code + "\r")
        #expect(t.waitForExit() == 0)
        t.expect("Success! Visa •••• 1111, expires 12/30")
        let lines = t.pipedText(1).split(separator: "\n")
        #expect(lines.count == 1)
        let card = try json(try #require(lines.first))
        #expect(card["network"] as? String == "visa")
        #expect(card["network_name"] as? String == "Visa")
        #expect(card["number"] as? String == Self.number)
        #expect(card["cvv"] as? String == Self.code)
        #expect(card["last4"] as? String == "1111")
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        expectNothingSecretOnTheTerminal(t)
    }

    @Test func severalCardsAreEachDeliveredWhenAccepted() throws {
        let t = try start(["--today", "2026-11", "--print", "--no-history"])
        t.send(Self.number + "1230" + Self.code + "\r")
        t.expect("Success! Visa")
        // Delivered at the moment of acceptance, while the prompt is still open.
        #expect(t.waitForPiped(1, containing: "\n"))
        #expect(t.pipedText(1).split(separator: "\n").count == 1)
        t.send("378282246310005" + "0129" + "1234\r")
        t.expect("Success! American Express")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        let lines = t.pipedText(1).split(separator: "\n")
        #expect(try lines.map { try json($0)["last4"] as? String } == ["1111", "0005"])
        expectNothingSecretOnTheTerminal(t)
    }

    @Test func aCardThatCannotBeDeliveredIsNotCalledASuccess() throws {
        let t = try start(["--today", "2026-11", "--print", "--no-history"])
        t.expect("Card number")
        t.closeReader(1)  // the caller went away
        t.send(Self.number + "1230" + Self.code + "\r")
        t.expect("✗ The card was not delivered: Broken pipe")
        #expect(t.waitForExit() == 74)
        #expect(!t.text.contains("Success!"))
    }

    /// Issue 36: with `--print` SIGPIPE was ignored for the whole run (so that a closed pipe is
    /// an error to report), and a `kill -PIPE` left the prompt running with the digits on the
    /// screen. Sent from outside it now ends the prompt as SIGTERM does; a delivery's own write
    /// to a closed pipe is still an error (the test above).
    @Test func sigpipeFromOutsideEndsThePromptWithTheFieldCleared() throws {
        let t = try start(["--today", "2026-11", "--print", "--no-history"])
        t.expect("Card number")
        t.send("453914880343")
        t.waitForScreen("12 digits") { KeySequenceTests.field($0.cursorLine) == "4539 1488 0343" }
        kill(t.pid, SIGPIPE)
        #expect(t.waitForExit() == 128 + SIGPIPE)
        #expect(
            !t.screen.lines.contains { $0.contains("4539 1488") },
            "the field cleared: \(t.screen.lines.filter { !$0.isEmpty })")
        #expect(t.currentSettings.c_lflag == t.initialSettings.c_lflag, "terminal settings put back")
        #expect(t.pipedText(1).isEmpty)
    }

    @Test(arguments: [":quit\r", "\u{04}"])
    func givingUpExitsOneWithNothingDelivered(keys: String) throws {
        let t = try start(["--today", "2026-11", "--print", "--once", "--no-history"])
        t.expect("Card number")
        t.send("411")  // 411 can only be Visa (41 and 42 may still be Visa Electron, or eftpos or mada co-badged)
        t.expect("VISA 3/16")
        t.send("\u{15}" + keys)  // Ctrl-U, then quit
        #expect(t.waitForExit() == 1)
        #expect(t.pipedText(1).isEmpty)
    }

    @Test func brokenRulesExit65WithNothingDelivered() throws {
        let folder = home.path + "/bad-rules"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("{\"id\": \"x\"}\n".utf8).write(to: URL(fileURLWithPath: folder + "/x.json"))
        let t = try PseudoTerminal(
            arguments: ["--print", "--rules", folder], environment: home.environment, pipes: [1])
        #expect(t.waitForExit() == 65)
        t.expect("x.json:1:1: error: missing required field")
        #expect(t.pipedText(1).isEmpty)
    }

    @Test func printFDWritesToThatDescriptorAndLeavesStdoutAlone() throws {
        // stdout is the terminal here; the card goes to descriptor 3 only.
        let t = try start(["--today", "2026-11", "--print-fd", "3", "--once", "--no-history"], pipes: [3])
        t.expect("Card number")
        t.send(Self.number + "1230" + Self.code + "\r")
        #expect(t.waitForExit() == 0)
        let card = try json(try #require(t.pipedText(3).split(separator: "\n").first))
        #expect(card["number"] as? String == Self.number)
        expectNothingSecretOnTheTerminal(t)
    }

    @Test(arguments: [
        (["--print"], "--print: standard output is a terminal"),
        (["--print-fd", "2"], "--print-fd 2 would mix cards with cardline's messages"),
        (["--print-fd", "0"], "--print-fd 0: file descriptor 0 is a terminal"),
        (["--print-fd", "7"], "--print-fd 7: file descriptor 7 is not open for writing"),
    ])
    func deliveryToATerminalIsRefused(arguments: [String], message: String) throws {
        let t = try PseudoTerminal(arguments: arguments, environment: home.environment)
        #expect(t.waitForExit() == 64)
        t.expect(message)
    }

    @Test func networksAreCheckedAtTheKeystroke() throws {
        let t = try start(
            ["--today", "2026-11", "--networks", "visa,mastercard,american-express", "--no-history"], pipes: [])
        t.expect("Visa, Mastercard and American Express accepted")
        #expect(t.redraw(expectingBadge: "VISA/MASTERCARD/AMEX 0").contains("Card number"))
        t.send("36")
        t.expect("Diners Club is not accepted here")
        t.send("4")
        #expect(t.redraw(expectingBadge: "AMEX 2/15").contains("): 34"))
        t.send("\u{04}")
        t.expect("Ctrl-D quits only on an empty field")
        t.send("\u{15}\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func titleIsShownWithControlCharactersEscaped() throws {
        let t = try start(
            ["--today", "2026-11", "--title", "Card for order 1042, €52.00\u{1B}[2J", "--no-history"], pipes: [])
        t.expect("Card for order 1042, €52.00\\u{1B}[2J")
        #expect(
            !String(decoding: t.raw, as: UTF8.self).contains("\u{1B}[2J"),
            "the caller's escape is not sent to the terminal")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }

    @Test func coreDumpsAreOffWhileThePromptRuns() throws {
        let t = try start(["--today", "2026-11", "--no-history"], pipes: [1])
        t.expect("Card number")
        let limits = try String(contentsOfFile: "/proc/\(t.pid)/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(
            core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
        // Memory is locked when this process could lock it without limit (root, or
        // CAP_IPC_LOCK), as the child inherits that.
        let status = try String(contentsOfFile: "/proc/\(t.pid)/status", encoding: .utf8)
        let locked =
            status.split(separator: "\n").first { $0.hasPrefix("VmLck:") }.flatMap {
                Int($0.split(separator: " ").dropFirst().first ?? "")
            } ?? 0
        // Otherwise nothing is locked (a limited lock could make allocations fail). Under
        // AddressSanitizer (`make test-asan`) mlockall is a no-op that reports success (ASan
        // cannot lock its terabytes of shadow memory), so nothing is ever locked there.
        if Self.mayLockWithoutLimit() && !testingUnderASan {
            #expect(locked > 0, "VmLck is \(locked) kB")
        } else {
            #expect(locked == 0)
        }
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }

    /// A signal sent to cardline alone ends cardline alone: the script that called it goes on
    /// (libedit's own handling re-sent it to the whole process group, killing the caller).
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalToCardlineDoesNotReachItsCaller(signal: Int32) throws {
        let script =
            "card=$('\(cardlineBinary)' --today 2026-11 --no-history --print --once); echo \"caller goes on: $?\""
        let t = try start(["-c", script], pipes: [], binary: "/bin/sh")
        t.expect("Card number")
        let children = try String(contentsOfFile: "/proc/\(t.pid)/task/\(t.pid)/children", encoding: .utf8)
        let cardline = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
        #expect(kill(cardline, signal) == 0)
        t.expect("caller goes on: \(128 + signal)")
        #expect(t.waitForExit() == 0)
        #expect(t.currentSettings.c_lflag == t.initialSettings.c_lflag, "the terminal is put back")
    }

    /// `check` and `replay` handle card data too, so they lock memory as the prompt does;
    /// `check` is watched while it waits for its first record on the terminal.
    @Test(
        .enabled(if: mayLockWithoutLimit(), "this process may not lock memory without limit"),
        .disabled(if: testingUnderASan, "AddressSanitizer makes mlockall a no-op: nothing is ever locked"))
    func checkLocksMemoryBeforeReadingCards() throws {
        let t = try PseudoTerminal(
            arguments: ["check", "--today", "2026-11"], environment: home.environment, pipes: [1])
        let locked = t.waitForStatusLine("VmLck above 0 kB") { line in
            line.hasPrefix("VmLck:") && (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) > 0
        }
        #expect(locked != nil)
        t.send("4111 1111 1111 1111\n\u{04}")
        #expect(t.waitForExit() == 0)
        #expect(t.pipedText(1).contains("411111******1111"))
    }

    static func mayLockWithoutLimit() -> Bool {
        let limits = (try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8)) ?? ""
        if limits.split(separator: "\n").contains(where: {
            $0.hasPrefix("Max locked memory") && $0.contains("unlimited")
        }) {
            return true
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let value =
            status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }.flatMap {
                UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
            } ?? 0
        return value & (1 << 14) != 0
    }

    @Test func orderDeskTakesACardThroughTheLibrary() throws {
        let t = try start(["1042", "€52.00", "--today", "2026-11"], binary: builtBinary("order-desk"))
        t.expect("Card for order 1042, €52.00")
        t.expect("Visa, Mastercard and American Express accepted")
        t.send("36")
        t.expect("Diners Club is not accepted here")
        t.send("4")
        t.send("0000000000009" + "1230" + "1234\r")
        #expect(t.waitForExit() == 0)
        #expect(t.pipedText(1) == "order 1042: charging €52.00 to American Express 340000•••••0009, expires 12/30\n")
        let raw = String(decoding: t.raw, as: UTF8.self)
        #expect(!raw.contains("340000000000009") && !raw.contains("1234"))
    }

    @Test func orderDeskSaysSoWhenThePersonGivesUp() throws {
        let t = try start(["1042", "€52.00"], binary: builtBinary("order-desk"))
        t.expect("Card number")
        t.send(":quit\r")
        #expect(t.waitForExit() == 1)
        #expect(t.pipedText(1) == "order 1042: no card taken\n")
    }
}

/// Delivery when stdin is not a terminal: the plain-line path.
@Suite struct PipedDeliveryTests {
    let home = TemporaryHome()

    @Test func printOnAPipeSendsMessagesToStderr() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print"], input: "4111 1111 1111 1111 12/30 123\n378282246310005 0129 1234\n",
            environment: home.environment)
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("{\"network\":") })
        #expect(run.output.contains("\"number\":\"378282246310005\""))
        #expect(run.errors.contains("Success! Visa •••• 1111"))
        #expect(!run.errors.contains("4111111111111111"))
    }

    @Test func onceStopsAfterTheFirstCard() throws {
        let run = try runPiped(
            ["--today", "2026-11", "--print", "--once"],
            input: "4111 1111 1111 1111 12/30 123\n378282246310005 0129 1234\n", environment: home.environment)
        #expect(run.status == 0)
        #expect(run.output.split(separator: "\n").count == 1)
        #expect(!run.errors.contains("American Express"))
    }

    @Test func aCardLeftUnfinishedAfterOneDeliveredExitsOne() throws {
        // A script must know that a record was lost, even when another was delivered.
        let run = try runPiped(
            ["--today", "2026-11", "--print"], input: "4111 1111 1111 1111 12/30 123\n4111111111111111\n",
            environment: home.environment)
        #expect(run.status == 1)
        #expect(run.output.split(separator: "\n").count == 1)
        #expect(run.errors.contains("input ended before the card was complete (expiry field)"))
    }

    @Test func aNumberTypedAsACommandNeverReachesTheHistoryFile() throws {
        let run = try runPiped(
            ["--today", "2026-11"], input: ":4111 1111 1111 1111\n:use 4111-1111-1111-1111\n:cards\n",
            environment: home.environment)
        #expect(!run.output.contains("4111 1111 1111 1111") && !run.output.contains("4111-1111-1111-1111"))
        #expect(run.output.contains("unknown command `:4111 11•• •••• 1111`"))
        let history = try String(contentsOfFile: home.path + "/state/cardline/history", encoding: .utf8)
        #expect(history == ":cards\n")
    }

    @Test func nothingDeliveredExitsOne() throws {
        let run = try runPiped(["--today", "2026-11", "--print"], input: "", environment: home.environment)
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
    }

    @Test func networksFromTheEnvironmentApply() throws {
        let run = try runPiped(
            ["--today", "2026-11"], input: "36\n",
            environment: home.environment.merging(["CARDLINE_NETWORKS": "visa"]) { $1 })
        #expect(run.output.contains("line 1: card number: no accepted network starts with 3 (accepted: Visa)"))
        // --networks wins over the environment.
        let amex = try runPiped(
            ["--today", "2026-11", "--networks", "amex"], input: "36\n",
            environment: home.environment.merging(["CARDLINE_NETWORKS": "visa"]) { $1 })
        #expect(
            amex.output.contains("line 1: card number: Diners Club is not accepted here (accepted: American Express)"))
        let unknown = try runPiped(["--networks", "visa,mastercad"], input: "", environment: home.environment)
        #expect(unknown.status == 64)
        #expect(
            unknown.errors.contains(
                "cardline: error: --networks: unknown network `mastercad`\ncardline: hint: did you mean `mastercard`?\n"
            ))
        let fromEnvironment = try runPiped(
            [], input: "", environment: home.environment.merging(["CARDLINE_NETWORKS": "viza"]) { $1 })
        #expect(fromEnvironment.status == 64)
        #expect(
            fromEnvironment.errors.contains(
                "cardline: error: CARDLINE_NETWORKS: unknown network `viza`\ncardline: hint: did you mean `visa`?\n"))
    }

    @Test func aClosedOutputIsReportedNotIgnored() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cardlineBinary)
        process.arguments = ["--today", "2026-11", "--print"]
        process.environment = home.environment
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try output.fileHandleForReading.close()  // nobody reads the cards
        try process.run()
        input.fileHandleForWriting.write(Data("4111 1111 1111 1111 12/30 123\n".utf8))
        try input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 74)
        #expect(
            message.contains("✗ The card was not delivered: Broken pipe"), "the person is told, not shown a success")
        #expect(!message.contains("Success!"))
        #expect(message.contains("the card could not be delivered to file descriptor 1: Broken pipe"))
    }

    @Test func checkMarksNetworksNotAccepted() throws {
        let run = try runPiped(
            ["check", "--today", "2026-11", "--networks", "visa"],
            input: "4111111111111111,12/30,123\n378282246310005,12/30,1234\n", environment: home.environment)
        #expect(run.status == 1)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains("\"errors\":[]"))
        #expect(lines[1].contains("\"errors\":[\"network_not_accepted\"]"))
    }
}

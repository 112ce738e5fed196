import Foundation
import Testing

/// Issue 41, item 2: `cardline --record FILE` at a real pty writes a `.session` script of what
/// was done there that `cardline replay` passes, with none of the cards' data in it.
@Suite struct RecordingTests {
    let home = TemporaryHome()
    /// Luhn-valid. A Visa/Dankort card (`4571`, co-badged in the bundled rules), typed; a
    /// Mastercard, swiped with its holder's name.
    static let typed = "4571736248259186"
    static let swiped = "5196814720396545"
    static let codes = ["737", "482"]
    static let name = ["OKONKWO", "CHIDINMA"]

    var file: String { home.path + "/bug.session" }

    func start(_ arguments: [String] = []) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history", "--no-reader", "--record", file] + arguments,
            environment: home.environment)
        t.waitForRawMode()
        return t
    }

    /// The live field's row: the screen's last row that starts as a field's label does.
    static func fieldRow(_ screen: ScreenModel) -> String {
        screen.lines.last { ["Card number", "Expiry", "CVV", "CVC", ":"].contains(where: $0.hasPrefix) } ?? ""
    }

    @Test func aSessionRecordedAtThePromptReplaysWithNoCardDataInIt() throws {
        let t = try start()
        #expect(t.expect("Recording this session to \(file)"))
        // Typed digits, then the rest of the number pasted: it is complete and moves on.
        t.send(String(Self.typed.prefix(6)))
        t.waitForScreen("the first digits typed") { Self.fieldRow($0).contains("4571 73") }
        t.send("\u{1B}[200~" + Self.typed.dropFirst(6) + "\u{1B}[201~")
        #expect(t.expect("Network: Visa (also Dankort)"))
        t.waitForScreen("the expiry field") { Self.fieldRow($0).hasPrefix("Expiry") }
        // Backspace on the empty expiry: back into the number; Ctrl-N: the card as Dankort.
        t.send("\u{7F}")
        t.waitForScreen("the number again") { Self.fieldRow($0).hasPrefix("Card number") }
        t.send("\u{0E}")
        t.waitForScreen("the DANKORT badge") { Self.fieldRow($0).contains("DANKORT") }
        // A digit past the number's last: refused.
        t.send("5")
        #expect(t.expect("at most 16 digits"))
        t.send("\r")
        t.waitForScreen("the expiry field") { Self.fieldRow($0).hasPrefix("Expiry") }
        t.send(":network visa\r")
        #expect(t.expect("Network: Visa"))
        t.send("1230")
        #expect(t.expect("Type the 3-digit CVV"))
        t.send(Self.codes[0] + "\r")
        #expect(t.expect("Success! Visa"))
        // A resize (taken before the keys that follow it).
        t.resize(columns: 100)
        // A swipe, with the holder's name on track 1, then its code.
        let tracks = "%B\(Self.swiped)^\(Self.name[0])/\(Self.name[1])^3011201000?;\(Self.swiped)=3011201000?"
        t.send(tracks + "\r")
        #expect(t.expect("expires 11/30"))
        t.send(Self.codes[1] + "\r")
        #expect(t.expect("Success! Mastercard"))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)

        var info = stat()
        #expect(stat(file, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let script = try String(contentsOfFile: file, encoding: .utf8)
        let lines = script.split(separator: "\n").map(String.init)
        // What happened is there, as the session format says it.
        for wanted in [
            "@today 2026-11", "<BS>", "<C-n>", "@expect refused 1", "@expect text \":network visa\"",
            "@expect network dankort", "@expect accepted visa", "@expect entry swipe chip",
            "@expect accepted mastercard",
            "@expect cards 2", "@columns 140", "@columns 100",
        ] {
            #expect(lines.contains { $0.hasPrefix(wanted) }, "no line starts \(wanted)")
        }
        #expect(lines.contains { $0.hasPrefix("@paste ") && $0.count == "@paste ".count + 10 })
        #expect(lines.contains { $0.hasPrefix("@swipe %B519681") })
        // No card data: no run of four of a number's digits after its first six (spaces and
        // dashes left out), no code as a number of its own, no part of the name.
        for line in lines {
            let digits = line.filter { $0 != " " && $0 != "-" }
            for number in [Self.typed, Self.swiped] {
                let tail = Array(number.dropFirst(6))
                for start in 0...(tail.count - 4) {
                    #expect(!digits.contains(String(tail[start..<start + 4])), "\(line) shows digits of \(number)")
                }
            }
            let runs = line.split { !("0"..."9").contains($0) }.map(String.init)
            for code in Self.codes { #expect(!runs.contains(code), "\(line) shows the code \(code)") }
            for part in Self.name { #expect(!line.uppercased().contains(part), "\(line) shows the name") }
        }
        // And it replays green on its own.
        let replay = try runPiped(["replay", file], input: "", environment: home.environment)
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
        #expect(replay.output.contains("PASS"))
    }

    /// Accessible mode is recorded too: the keys it hands the engine as each answer is typed
    /// in, a wrong check digit (refused, the field asked again) included.
    @Test func accessibleModeIsRecorded() throws {
        let t = try start(["--accessible", "--name"])
        #expect(t.expect("Recording this session to"))
        #expect(t.expect("Card number: "))
        t.send(Self.typed.dropLast() + "7\r")
        #expect(t.expect("Card number: "))
        t.send(Self.typed + "\r")
        #expect(t.expect("Expiry date, month and year as MM/YY: "))
        t.send("12/30\r")
        #expect(t.expect("CVV, 3 digits"))
        t.send(Self.codes[0] + "\r")
        #expect(t.expect("Name, as on the card: "))
        t.send("Chidinma Okonkwo\r")
        #expect(t.expect("Success!"))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let script = try String(contentsOfFile: file, encoding: .utf8)
        #expect(script.contains("@name\n"))
        #expect(script.contains("@expect accepted visa"))
        for line in script.split(separator: "\n") {
            let digits = line.filter { $0 != " " && $0 != "-" }
            let tail = Array(Self.typed.dropFirst(6))
            for start in 0...(tail.count - 4) { #expect(!digits.contains(String(tail[start..<start + 4])), "\(line)") }
            for part in Self.name { #expect(!line.uppercased().contains(part), "\(line) shows the name") }
        }
        let replay = try runPiped(["replay", file], input: "", environment: home.environment)
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
    }

    /// A prompt that reads only its own rules (`--no-default-rules`, `--retired`) is recorded
    /// with them: the file says `@no-default-rules` and `@retired`, and replays green where
    /// the bundled networks (Mastercard's 51, more specific than Acme's 5) would decide
    /// otherwise.
    @Test func aPromptWithOnlyItsOwnRulesIsRecordedWithThem() throws {
        let mine = home.path + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        try #"""
        {"id": "acme", "name": "Acme", "logo": "ACME", "prefixes": ["5"], "lengths": [16],
         "cvv": {"name": "CVV", "length": 3}}
        """#.write(toFile: mine + "/acme.json", atomically: true, encoding: .utf8)
        let t = try start(["--no-default-rules", "--rules", mine, "--retired"])
        #expect(t.expect("Card number ("))
        t.send("5105105105105100")
        #expect(t.expect("ACME"))
        t.send("1230" + Self.codes[0] + "\r")
        #expect(t.expect("Success!"))
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
        let script = try String(contentsOfFile: file, encoding: .utf8)
        #expect(script.contains("\n@no-default-rules\n@retired\n@rules \(mine)\n"), "\(script)")
        #expect(script.contains("@expect accepted acme"))
        let replay = try runPiped(["replay", file], input: "", environment: home.environment)
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
    }

    /// The card in progress is in the file after every key: a prompt killed mid-card (the
    /// terminal's window closed, SIGHUP; SIGTERM) leaves its keys so far, made up, and the file
    /// replays.
    @Test(arguments: [SIGTERM, SIGHUP])
    func aCardInProgressIsKeptWhenThePromptIsKilled(_ signal: Int32) throws {
        let t = try start()
        #expect(t.expect("Card number ("))
        t.send(":cards\r")
        #expect(t.expect("no cards yet"))
        t.send(String(Self.typed.prefix(12)))
        t.waitForScreen("twelve digits") { Self.fieldRow($0).contains("4571 7362 4825") }
        kill(t.pid, signal)
        #expect(t.waitForExit() == 128 + signal)
        let script = try String(contentsOfFile: file, encoding: .utf8)
        #expect(script.contains("@expect text \":cards\""))
        #expect(script.contains("@expect text \"4571 73"), "\(script)")
        let typedTail = Array(Self.typed.dropFirst(6).prefix(6))
        for line in script.split(separator: "\n") {
            let digits = line.filter { $0 != " " && $0 != "-" }
            for start in 0...(typedTail.count - 4) {
                #expect(!digits.contains(String(typedTail[start..<start + 4])), "\(line)")
            }
        }
        let replay = try runPiped(["replay", file], input: "", environment: home.environment)
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
    }

    @Test func onlyThePromptAtATerminalIsRecorded() throws {
        let piped = try runPiped(
            ["--record", file], input: "4111111111111111 12/30 123\n", environment: home.environment)
        #expect(piped.status == 64)
        #expect(piped.errors.contains("--record: standard input is not a terminal"))
        #expect(!FileManager.default.fileExists(atPath: file))
        let unwritable = try PseudoTerminal(
            arguments: ["--no-reader", "--record", home.path + "/no/such/folder/x.session"],
            environment: home.environment)
        #expect(unwritable.waitForExit() == 74)
        #expect(unwritable.text.contains("--record"))
        // Not a device, a terminal or a FIFO: their modes are not cardline's to change.
        for path in ["/dev/null", home.path + "/fifo"] {
            if path.hasSuffix("fifo") { #expect(mkfifo(path, 0o644) == 0) }
            var before = stat()
            stat(path, &before)
            let refused = try PseudoTerminal(
                arguments: ["--no-reader", "--record", path], environment: home.environment)
            #expect(refused.waitForExit() == 74)
            // (A FIFO with no reader cannot be opened without blocking: "No such device or address".)
            #expect(
                refused.text.contains(path.hasSuffix("fifo") ? "--record" : "not a regular file"), "\(refused.text)")
            var after = stat()
            stat(path, &after)
            #expect(after.st_mode == before.st_mode)
        }
    }
}

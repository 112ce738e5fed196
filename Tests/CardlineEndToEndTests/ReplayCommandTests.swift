import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `cardline replay` run as a process.
@Suite struct ReplayCommandTests {
    let home = TemporaryHome()
    static let examples: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("examples").path
    }()

    func replay(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String, timedOut: Bool) {
        try runPiped(["replay"] + arguments, input: "", environment: home.environment)
    }

    @Test func aRulesFolderNamedWithControlCharactersIsShownEscaped() throws {
        let script = home.path + "/escaped.session"
        try "@today 2026-11\n@rules no\u{1B}[2Jwhere\n4111\n".write(toFile: script, atomically: true, encoding: .utf8)
        let run = try replay([script])
        #expect(run.status == 65)
        #expect(run.errors.contains("escaped.session:2:8: error: @rules no\\u{1B}[2Jwhere"), "\(run.errors)")
        #expect(!(run.output + run.errors).contains("\u{1B}"), "no raw escape reaches the terminal")
    }

    /// Issue 36: a key line holding track data after other keys (here a `:` command) was typed
    /// key by key, and the transcript kept the cardholder's name and the masked number's track
    /// around it. As at the prompt and on a pipe, the track is one swipe, refused there with the
    /// swipe's own message, and nothing of it is shown.
    @Test func trackDataInAKeyLineIsASwipeNeverTyped() throws {
        let script = home.path + "/swipe-in-command.session"
        let tracks = "%B4256967418518869^QUIXOTE/ZEBULON^30121010000000000000?;4256967418518869=30121010000000000000?"
        try "@today 2026-11\n@name\n:\(tracks)\n@expect refused 1\n<C-u>\n\(tracks)\n@expect field cvv\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let run = try replay([script])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(!run.output.contains("QUIXOTE") && !run.output.contains("ZEBULON"), "\(run.output)")
        #expect(!run.output.contains("%B") && !run.output.contains("=3012"), "\(run.output)")
    }

    @Test func everyExampleScriptPasses() throws {
        let run = try replay([Self.examples])
        let count = try FileManager.default.subpathsOfDirectory(atPath: Self.examples).filter {
            $0.hasSuffix(".session")
        }.count
        #expect(count >= 15)
        #expect(run.status == 0, "\(run.output.suffix(2000))")
        #expect(run.output.hasSuffix("\n\(count) passed, 0 failed\n"))
    }

    /// Each bad example fails the way its first line says.
    @Test(arguments: [
        (
            "unknown-directive.bad", 65,
            "unknown-directive.bad:3:1: error: unknown directive `@expcet`; did you mean `@expect`?"
        ),
        ("bad-key-name.bad", 65, "bad-key-name.bad:3:5: error: unknown key name <Escape>"),
        ("unterminated-quote.bad", 65, "unterminated-quote.bad:4:1: error: unterminated quote"),
        ("bad-date.bad", 65, "bad-date.bad:2:8: error: @today takes a date as YYYY-MM"),
        (
            "missing-rules-folder.bad", 65,
            "missing-rules-folder.bad:3:8: error: @rules no-such-folder: the folder cannot be read"
        ),
        ("rules-after-keys.bad", 65, "rules-after-keys.bad:4:1: error: @rules must come before the first line of keys"),
        (
            "unknown-network.bad", 65,
            "unknown-network.bad:3:16: error: @networks: unknown network `dinners-club`; did you mean `diners-club`?"
        ),
        (
            "failing-expectation.bad", 1,
            "failing-expectation.bad:5: expected the last submit to be accepted, got failed cvv"
        ),
    ])
    func badExamplesFailAsTheySay(file: String, status: Int32, message: String) throws {
        let run = try replay([Self.examples + "/bad/" + file])
        #expect(run.status == status)
        #expect((run.output + run.errors).contains(message), "\(run.output)\(run.errors)")
        #expect(run.output.contains("FAIL "))
        #expect(run.output.hasSuffix("0 passed, 1 failed\n"))
    }

    @Test func aMalformedScriptDoesNotStopTheOthers() throws {
        let run = try replay([Self.examples + "/bad/bad-date.bad", Self.examples + "/paste-whole-card.session"])
        #expect(run.status == 65)
        #expect(run.output.contains("PASS \(Self.examples)/paste-whole-card.session"))
        #expect(run.output.hasSuffix("1 passed, 1 failed\n"))
    }

    /// `@no-default-rules` with no rule folder to read is the script's error, at its line;
    /// with `--rules` the script replays on that folder alone.
    @Test func noDefaultRulesWithoutAFolderIsLocated() throws {
        let script = home.path + "/alone.session"
        try "# mine only\n@no-default-rules\n4111<Enter>\n".write(toFile: script, atomically: true, encoding: .utf8)
        let run = try replay([script])
        #expect(run.status == 65)
        #expect(
            (run.output + run.errors).contains(
                "\(script):2:1: error: @no-default-rules leaves no rule folder to read; add @rules DIR, or pass --rules DIR"
            ),
            "\(run.output)\(run.errors)")
        let folder = home.path + "/mine"
        try writeTestNetwork(to: folder, id: "acme", prefix: "41")
        try "@no-default-rules\n4111\n@expect network acme\n".write(toFile: script, atomically: true, encoding: .utf8)
        let mine = try replay(["--rules", folder, script])
        #expect(mine.status == 0, "\(mine.output)\(mine.errors)")
    }

    @Test func brokenRulesStopReplayBeforeAnyScript() throws {
        let folder = home.path + "/broken"
        try writeTestNetwork(to: folder, id: "typo", prefix: "71", extra: ", \"lenghts\": [16]")
        let run = try replay(["--rules", folder, Self.examples])
        #expect(run.status == 65)
        #expect(
            run.errors.contains("\(folder)/typo.json:2:39: error: unknown field `lenghts`; did you mean `lengths`?"))
        #expect(!run.output.contains("PASS"))
    }

    @Test func missingFilesAndEmptyFoldersExit66() throws {
        #expect(try replay([home.path + "/nope.session"]).status == 66)
        let empty = home.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let run = try replay([empty])
        #expect(run.status == 66)
        #expect(run.errors.contains("no .session files"))
    }

    @Test func goldenMismatchShowsADiffAndUpdateRewritesIt() throws {
        let script = home.path + "/visa.session"
        let golden = home.path + "/visa.expected"
        try "@today 2026-11\n4111 1111 1111 1111 12/30 123<Enter>\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        try "something else\n".write(toFile: golden, atomically: true, encoding: .utf8)
        let mismatch = try replay([script])
        #expect(mismatch.status == 1)
        #expect(mismatch.output.contains("  -something else"))
        #expect(mismatch.output.contains("  +Card number (#### #### #### ####): 4111 11•• •••• 1111  [VISA 16/16]"))

        let update = try replay(["--update", script])
        #expect(update.status == 1, "an update never counts as a pass")
        #expect(update.output.contains("updated \(golden)"))
        let written = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(written.hasPrefix("Card number (#### #### #### ####): 4111 11•• •••• 1111  [VISA 16/16]\n"))
        #expect(try replay([script]).status == 0)
    }

    /// The golden is compared as the transcript is made, read as it is needed; the difference
    /// shown is still exactly the lines between the common head and tail, and a golden that
    /// only lacks the last line break differs at the empty piece after it.
    @Test func goldenDifferencesShowTheLinesBetweenCommonHeadAndTail() throws {
        let script = home.path + "/visa.session"
        let golden = home.path + "/visa.expected"
        try "@today 2026-11\n4111 1111 1111 1111 12/30 123<Enter>\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        let transcript =
            "Card number (#### #### #### ####): 4111 11•• •••• 1111  [VISA 16/16]\n"
            + "Type the expiry date as MM/YY, as printed on the card.\n"
            + "Expiry (MM/YY): 12/30  [VISA 4/4]\n"
            + "✓ Visa •••• 1111, expires 12/30\n"
            + "Type the 3-digit CVV on the back of the card; Enter submits.\n"
            + "CVV (###): •••  [CVV 3/3]\n"
            + "✓ Success! Visa •••• 1111, expires 12/30\n"
            + "Card number (#### #### #### ####):   [CARD 0]\n"
        try transcript.write(toFile: golden, atomically: true, encoding: .utf8)
        #expect(try replay([script]).status == 0, "the golden is the transcript")

        try transcript.replacingOccurrences(of: "[VISA 4/4]", with: "[VISA 3/4]").write(
            toFile: golden, atomically: true, encoding: .utf8)
        let middle = try replay([script])
        #expect(middle.status == 1)
        #expect(
            middle.output.contains(
                "visa.expected: the transcript differs (- expected, + actual):\n  @@ line 3\n"
                    + "  -Expiry (MM/YY): 12/30  [VISA 3/4]\n  +Expiry (MM/YY): 12/30  [VISA 4/4]\nFAIL "),
            "\(middle.output)")

        try String(transcript.dropLast()).write(toFile: golden, atomically: true, encoding: .utf8)
        let unterminated = try replay([script])
        #expect(unterminated.status == 1)
        #expect(
            unterminated.output.contains(
                "visa.expected: the transcript differs (- expected, + actual):\n  @@ line 9\n  +\nFAIL "),
            "\(unterminated.output)")
    }

    @Test func jsonPrintsOneObjectPerScriptMasked() throws {
        let run = try replay([
            "--json", Self.examples + "/paste-whole-card.session", Self.examples + "/bad/failing-expectation.bad",
        ])
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["passed"] as? Bool == true)
        // The cards are card records without number and code, masked with `*` (issue 38).
        let cards = try #require(first?["cards"] as? [[String: Any]])
        #expect(cards.count == 1)
        #expect(cards.first?["masked"] as? String == "411111******1111" && cards.first?["last4"] as? String == "1111")
        #expect(cards.first?["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        #expect(cards.first?["network_name"] as? String == "Visa" && cards.first?["entry"] as? String == "keyed")
        #expect(cards.first?["number"] == nil && cards.first?["cvv"] == nil && !lines[0].contains("•"))
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect(second?["passed"] as? Bool == false)
        #expect(
            (second?["failures"] as? [[String: String]])?.first?["message"]?.hasSuffix(
                ":5: expected the last submit to be accepted, got failed cvv") == true)
        #expect(run.errors == "1 passed, 1 failed\n")
    }

    /// With --json, stdout is JSON Lines and nothing else, whatever happens: a pass, a failed
    /// expectation, a malformed script, a golden rewritten by --update. The summary and the
    /// other lines for people go to stderr; the exit status is what it is without --json.
    @Test func jsonKeepsStdoutToJSONLines() throws {
        let script = home.path + "/visa.session"
        try "@today 2026-11\n4111 1111 1111 1111 12/30 123<Enter>\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        try "something else\n".write(toFile: home.path + "/visa.expected", atomically: true, encoding: .utf8)
        let scripts = [
            Self.examples + "/paste-whole-card.session", Self.examples + "/bad/failing-expectation.bad",
            Self.examples + "/bad/bad-date.bad",
        ]
        let mixed = try replay(["--json"] + scripts)
        let update = try replay(["--json", "--update", script])
        #expect(mixed.status == 65)
        #expect(update.status == 1)
        for (run, count) in [(mixed, 3), (update, 1)] {
            #expect(run.output.hasSuffix("}\n"))
            let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == count)
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["file"] is String, "not a JSON object: \(line)")
            }
        }
        #expect(mixed.errors.hasSuffix("\n1 passed, 2 failed\n"), "\(mixed.errors)")
        #expect(mixed.errors.contains("bad-date.bad:2:8: error: @today takes a date as YYYY-MM"))
        #expect(update.errors == "updated \(home.path)/visa.expected\n1 passed, 0 failed\n")
    }

    /// A script is a reproducible artefact: replay reads the bundled rules, --rules and the
    /// script's @rules only. A broken personal rule folder (through XDG_CONFIG_HOME, or
    /// ~/.config without it), a broken CARDLINE_RULES folder and CARDLINE_NETWORKS that leaves
    /// Visa out change nothing. (That the prompt and `check` do read them: RuleSourceTests.)
    @Test func replayIgnoresPersonalRuleFoldersAndEnvironment() throws {
        for folder in ["/config/cardline/rules", "/.config/cardline/rules", "/env-rules"] {
            try FileManager.default.createDirectory(atPath: home.path + folder, withIntermediateDirectories: true)
            try "{\"id\": \"broken\",\n".write(
                toFile: home.path + folder + "/broken.json", atomically: true, encoding: .utf8)
        }
        let ownRules = home.path + "/own"
        try writeTestNetwork(to: ownRules)
        let script = home.path + "/two-networks.session"
        try """
        @today 2026-11
        4111 1111 1111 1111 12/30 123<Enter>
        @expect accepted visa 1111
        7000 0000 0000 0001 12/30 555<Enter>
        @expect accepted testnet 0001

        """.write(toFile: script, atomically: true, encoding: .utf8)
        let hostile = ["CARDLINE_RULES": home.path + "/env-rules", "CARDLINE_NETWORKS": "discover"]
        var withoutXDG = home.environment
        withoutXDG["XDG_CONFIG_HOME"] = nil
        for environment in [home.environment, withoutXDG] {
            let run = try runPiped(
                ["replay", "--rules", ownRules, script], input: "", environment: environment.merging(hostile) { $1 })
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(run.output.hasSuffix("PASS \(script)\n\n1 passed, 0 failed\n"))
            #expect(run.errors.isEmpty, "\(run.errors)")
        }
    }

    /// Masking as a property of the whole output: with spaces and dashes taken out, no line
    /// shows more than ten digits in a row (first six and last four of a number at most).
    @Test func transcriptsNeverHoldAFullNumberOrACVV() throws {
        let run = try replay([Self.examples])
        let output = run.output + run.errors
        #expect(output.contains("4111 11•• •••• 1111"), "the transcripts show masked numbers")
        for line in output.split(separator: "\n") {
            var run = 0
            var longest = 0
            for character in line where character != " " && character != "-" {
                run = character.isASCII && character.isNumber ? run + 1 : 0
                longest = max(longest, run)
            }
            #expect(longest <= 10, "too many digits in a row: \(line.prefix(12))…")
        }
        // Codes typed into the CVV field never appear, only their dots.
        let cvv = try replay([Self.examples + "/cvv-per-network.session"])
        #expect(!cvv.output.contains("1234") && !cvv.output.contains("12345"))
        #expect(cvv.output.contains("CID (####): ••••"))
    }

    /// Every write is checked: transcripts to a full disk are exit 74 with one message; to a
    /// reader that has gone away, exit 74 with none. With --json too (its summary is on stderr).
    @Test(arguments: [[], ["--json"]])
    func aFailedStandardOutputIsExit74(options: [String]) throws {
        let script = Self.examples + "/paste-whole-card.session"
        let full = try runWritingTo(.file("/dev/full"), ["replay"] + options + [script], environment: home.environment)
        #expect(full.status == 74)
        #expect(full.errors == "cardline: error: cannot write to standard output: No space left on device\n")
        let closed = try runWritingTo(
            .closedPipe, ["replay"] + options + [Self.examples], environment: home.environment)
        #expect(closed.status == 74)
        #expect(closed.errors.isEmpty, "\(closed.errors)")
    }

    /// A golden that is there but cannot be read fails the run with 66 and says why, instead of
    /// passing unchecked. Mode 000 would not do as a test: the tests run as root in CI, and root
    /// reads it. A dangling link fails at open(), as mode 000 does for other users (the same
    /// path: a golden is there, by lstat, and open fails); a folder fails after open. Mode 000
    /// is tried too when the tests do not run as root.
    @Test func anUnreadableGoldenIsExit66() throws {
        let script = home.path + "/visa.session"
        let golden = home.path + "/visa.expected"
        try "@today 2026-11\n4111 1111 1111 1111 12/30 123<Enter>\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        var cases: [(make: () throws -> Void, reason: String)] = [
            (
                {
                    try FileManager.default.createSymbolicLink(
                        atPath: golden, withDestinationPath: self.home.path + "/gone")
                }, "No such file or directory"
            ),
            (
                { try FileManager.default.createDirectory(atPath: golden, withIntermediateDirectories: false) },
                "it is a folder"
            ),
        ]
        if getuid() != 0 {
            cases.append(
                (
                    {
                        try "x\n".write(toFile: golden, atomically: false, encoding: .utf8)
                        chmod(golden, 0)
                    }, "Permission denied"
                ))
        }
        for (make, reason) in cases {
            try make()
            defer { try? FileManager.default.removeItem(atPath: golden) }
            for update in [[], ["--update"]] {
                let run = try replay(update + [script])
                // Said once, in the one style, on standard error; the script fails.
                let message = "cardline: error: cannot read \(golden): \(reason)"
                #expect(run.status == 66, "\(reason)")
                #expect(run.errors == message + "\n")
                #expect(run.output.contains("\nFAIL \(script)\n") && !run.output.contains(message), "\(run.output)")
                #expect(run.output.hasSuffix("0 passed, 1 failed\n"))
            }
        }
    }

    /// --update writes a new file beside the golden and renames it over: when writing fails
    /// (here a file-size limit of 0, which stops root as it stops anyone), the old golden is
    /// left whole, nothing else is left behind, and the reason is said in words (no Foundation
    /// error dump): exit 74. Without the limit it is rewritten, keeping its permissions.
    @Test func aGoldenThatCannotBeRewrittenIsExit74AndLeftWhole() throws {
        let folder = home.path + "/goldens"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = folder + "/visa.session"
        let golden = folder + "/visa.expected"
        try "@today 2026-11\n4111 1111 1111 1111 12/30 123<Enter>\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        try "something else\n".write(toFile: golden, atomically: true, encoding: .utf8)
        chmod(golden, 0o640)
        // stdout joins stderr, so every word is captured.
        let limited = try runWritingTo(
            .file("/dev/null"), ["replay", "--update", script], shell: "trap '' XFSZ; ulimit -f 0; exec 1>&2",
            environment: home.environment)
        let message = "cardline: error: cannot rewrite \(golden): File too large"
        #expect(limited.status == 74)
        #expect(limited.errors.hasPrefix(message + "\n"), "\(limited.errors)")
        #expect(limited.errors.components(separatedBy: message).count == 2, "said once: \(limited.errors)")
        #expect(limited.errors.contains("\nFAIL \(script)\n"), "\(limited.errors)")
        #expect(!limited.errors.contains("CocoaError") && !limited.errors.contains("Error Domain"))
        #expect(try String(contentsOfFile: golden, encoding: .utf8) == "something else\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["visa.expected", "visa.session"])

        let update = try replay(["--update", script])
        #expect(update.status == 1)
        #expect(update.output.contains("updated \(golden)"))
        #expect(
            try String(contentsOfFile: golden, encoding: .utf8).hasPrefix(
                "Card number (#### #### #### ####): 4111 11••"))
        #expect((try FileManager.default.attributesOfItem(atPath: golden)[.posixPermissions] as? Int) == 0o640)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["visa.expected", "visa.session"])
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--encrypt-to` and `--encrypt-format` (issue 23): the card reaches the caller only as
/// ciphertext for the recipient's key. Every round trip is decrypted by an independent
/// implementation, `Tests/tools/jwe-check.py` (joserfc on Python's cryptography, installed by
/// `make test-deps`), with keys it makes for each test; none of cardline's code decrypts.
@Suite struct EncryptionTests {
    let home = TemporaryHome()
    static let number = "4111111111111111", code = "987"
    /// The keys `jwe-check.py keys` wrote, in the test's home.
    let keys: String

    init() throws {
        keys = home.path + "/keys"
        let made = try Self.jweCheck(["keys", keys])
        try #require(made.status == 0, "jwe-check.py keys: \(made.errors)")
    }

    /// `Tests/tools/jwe-check.py` with `arguments`, `input` on its standard input; run with this
    /// process's environment (its python3 and the joserfc installed for it).
    static func jweCheck(_ arguments: [String], input: String = "") throws -> (
        status: Int32, output: String, errors: String
    ) {
        let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/jwe-check.py").path
        let result = try runPiped(
            ["python3", tool] + arguments, input: input, environment: ProcessInfo.processInfo.environment,
            timeout: 120, executable: "/usr/bin/env")
        return (result.status, result.output, result.errors)
    }

    /// Each line of cardline's output decrypted: every JWE member replaced by its header, its
    /// plaintext's JSON and that plaintext as text.
    func decrypted(
        _ output: String, with privateKey: String = "private.pem", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [[String: Any]] {
        let result = try Self.jweCheck(["decrypt", keys + "/" + privateKey], input: output)
        #expect(result.status == 0, "jwe-check.py decrypt: \(result.errors)", sourceLocation: sourceLocation)
        return try result.output.split(separator: "\n").map {
            try #require(
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], sourceLocation: sourceLocation)
        }
    }

    /// cardline on pipes with `input`, in the test's home, on 2026-11 (and with no history for the
    /// prompt).
    func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String, errors: String) {
        let pinned = arguments.first == "check" ? ["--today", "2026-11"] : ["--today", "2026-11", "--no-history"]
        let run = try runPiped(pinned + arguments, input: input, environment: home.environment)
        return (run.status, run.output, run.errors)
    }

    /// What `--print` writes for the same card, the plaintext a JWE must hold exactly.
    func printed(_ input: String, _ extra: [String] = []) throws -> String {
        let clear = try run(["--print", "--once"] + extra, input: input)
        try #require(clear.status == 0)
        return String(clear.output.dropLast())  // its line break
    }

    static let card = "\(number) 12/30 \(code)\n"

    /// RSA keys in the three forms (RSA-OAEP-256), and P-256 keys as a JWK and as PEM
    /// (ECDH-ES+A256KW).
    @Test(arguments: ["public.pem", "public.jwk", "adyen.txt", "ec.jwk", "ec.pem"])
    func theJWEHoldsExactlyWhatPrintWouldHaveWritten(key: String) throws {
        let sealed = try run(["--print", "--once", "--encrypt-to", "\(keys)/\(key)"], input: Self.card)
        #expect(sealed.status == 0, "\(sealed.errors)")
        let curve = key.hasPrefix("ec")
        let lines = try decrypted(sealed.output, with: curve ? "ec-private.pem" : "private.pem")
        try #require(lines.count == 1)
        let line = lines[0]
        // Clear members for the caller's bookkeeping, and nothing else.
        #expect(
            Set(line.keys) == ["network", "network_name", "family", "also_networks", "last4", "expiry", "entry", "jwe"])
        #expect(line["entry"] as? String == "keyed")
        #expect(line["network"] as? String == "visa")
        #expect(line["family"] as? String == "visa")
        #expect(line["last4"] as? String == "1111")
        #expect(line["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        let jwe = try #require(line["jwe"] as? [String: Any])
        var header: [String: String] = ["alg": curve ? "ECDH-ES+A256KW" : "RSA-OAEP-256", "enc": "A256GCM"]
        if key.hasSuffix(".jwk") { header["kid"] = curve ? "test-ec-1" : "test-key-1" }  // the JWK's kid is copied
        var seen = try #require(jwe["header"] as? [String: Any])
        if curve {
            // The ephemeral public key (RFC 7518 section 4.6.1.1).
            let epk = try #require(seen.removeValue(forKey: "epk") as? [String: String])
            #expect(epk["kty"] == "EC" && epk["crv"] == "P-256" && epk["x"]?.count == 43 && epk["y"]?.count == 43)
        }
        #expect(seen as? [String: String] == header)
        #expect(jwe["text"] as? String == (try printed(Self.card)))
        let card = try #require(jwe["plaintext"] as? [String: Any])
        #expect(card["number"] as? String == Self.number)
        #expect(card["cvv"] as? String == Self.code)
    }

    /// Issue 24: the name and postal code travel inside the JWE (as `--print` writes them); Adyen's
    /// `holderName` is clear beside its encrypted fields; the security code alone (`--cvv-only`)
    /// is a JWE with the network clear, or Adyen's `encryptedSecurityCode` alone.
    @Test func nameAndPostalCodeAndTheCodeAloneSealed() throws {
        let form = ["--name", "--postal-code", "US"]
        let input = "\(Self.number) 12/2030 \(Self.code) Ada Lovelace\n941051234\n"
        let sealed = try run(["--print", "--once", "--encrypt-to", "\(keys)/public.pem"] + form, input: input)
        #expect(sealed.status == 0, "\(sealed.errors)")
        let line = try #require(try decrypted(sealed.output).first)
        let jwe = try #require(line["jwe"] as? [String: Any])
        #expect(jwe["text"] as? String == (try printed(input, form)))
        let card = try #require(jwe["plaintext"] as? [String: Any])
        #expect(card["holder_name"] as? String == "Ada Lovelace" && card["postal_code"] as? String == "94105-1234")

        let adyen = try run(
            ["--print", "--once", "--encrypt-to", "\(keys)/adyen.txt", "--encrypt-format", "adyen"] + form, input: input
        )
        #expect(adyen.status == 0, "\(adyen.errors)")
        let fields = try #require(try decrypted(adyen.output).first)
        #expect(fields["holderName"] as? String == "Ada Lovelace")
        #expect(!adyen.output.contains("94105"))

        let onFile = ["--cvv-only", "--network", "amex"]
        let code = try run(["--print", "--once", "--encrypt-to", "\(keys)/public.pem"] + onFile, input: "4321\n")
        #expect(code.status == 0, "\(code.errors)")
        let codeLine = try #require(try decrypted(code.output).first)
        #expect(Set(codeLine.keys) == ["network", "network_name", "family", "also_networks", "jwe"])
        #expect(
            (codeLine["jwe"] as? [String: Any])?["text"] as? String
                == #"{"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"cvv":"4321"}"#
        )
        let adyenCode = try run(
            ["--print", "--once", "--encrypt-to", "\(keys)/adyen.txt", "--encrypt-format", "adyen"] + onFile,
            input: "4321\n")
        let adyenLine = try #require(try decrypted(adyenCode.output).first)
        #expect(
            Set(adyenLine.keys) == [
                "type", "encryptedSecurityCode", "network", "network_name", "family", "also_networks",
            ])
        #expect(
            ((adyenLine["encryptedSecurityCode"] as? [String: Any])?["plaintext"] as? [String: String])?["cvc"]
                == "4321")
    }

    /// A swiped card (issue 24): the clear members say so and whether it has a chip, as does
    /// the sealed card.
    @Test func aSwipedCardIsSealedWithItsEntryAndChip() throws {
        let swipe =
            "%B4111111111111111^LOVELACE/ADA^3012201000000000000?;4111111111111111=30122010000000000?\n\(Self.code)\n"
        let sealed = try run(["--print", "--once", "--encrypt-to", "\(keys)/public.pem"], input: swipe)
        #expect(sealed.status == 0, "\(sealed.errors)")
        let line = try #require(try decrypted(sealed.output).first)
        #expect(
            Set(line.keys) == [
                "network", "network_name", "family", "also_networks", "last4", "expiry", "entry", "chip", "jwe",
            ])
        #expect(line["entry"] as? String == "swipe")
        #expect(line["chip"] as? Bool == true)
        let jwe = try #require(line["jwe"] as? [String: Any])
        #expect(jwe["text"] as? String == (try printed(swipe)))
        let card = try #require(jwe["plaintext"] as? [String: Any])
        #expect(card["number"] as? String == Self.number)
        #expect(card["entry"] as? String == "swipe")
        #expect(card["chip"] as? Bool == true)
    }

    /// A JSON object's top-level members as written, in order (`"name":value` each, value as
    /// its text): enough for cardline's one-line objects.
    static func members(_ object: Substring) -> [Substring] {
        var members: [Substring] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = object.index(after: object.startIndex)
        for index in object.indices {
            let c = object[index]
            if inString {
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    inString = false
                }
                continue
            }
            switch c {
            case "\"": inString = true
            case "{", "[": depth += 1
            case "]": depth -= 1
            case "}":
                depth -= 1
                if depth == 0 { members.append(object[start..<index]) }
            case "," where depth == 1:
                members.append(object[start..<index])
                start = object.index(after: index)
            default: break
            }
        }
        return members
    }

    /// The clear members beside a JWE are written by `--print`'s writer: the same members, as
    /// bytes, in `--print`'s order (the network's members, last4, expiry, entry, chip), for a keyed
    /// card and a swiped one, at the prompt's pipe and from `check --encrypt-to`.
    @Test func theClearMembersAreThoseOfPrintInItsOrder() throws {
        let swipe =
            "%B4111111111111111^LOVELACE/ADA^3012201000000000000?;4111111111111111=30122010000000000?\n\(Self.code)\n"
        let secret = ["\"number\"", "\"cvv\"", "\"masked\""]
        for input in [Self.card, swipe] {
            let sealed = try run(["--print", "--once", "--encrypt-to", "\(keys)/public.pem"], input: input)
            #expect(sealed.status == 0, "\(sealed.errors)")
            let clear = Self.members(sealed.output.dropLast()).filter { !$0.hasPrefix("\"jwe\":") }
            let printed = Self.members(try printed(input)[...]).filter { member in
                !secret.contains { member.hasPrefix($0 + ":") }
            }
            #expect(clear == printed)
            #expect(clear.count == (input == swipe ? 8 : 7), "\(clear)")
        }
        let file = home.path + "/cards.txt"
        try "\(Self.number),12/30,\(Self.code)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try run(["check", "--encrypt-to", "\(keys)/public.pem", file], input: "")
        #expect(checked.status == 0, "\(checked.errors)")
        let line = try #require(checked.output.split(separator: "\n").first)
        let expected = Self.members(try printed(Self.card)[...]).filter { member in
            !secret.contains { member.hasPrefix($0 + ":") }
        }
        #expect(
            Self.members(line).filter { !$0.hasPrefix("\"jwe\":") && !$0.hasPrefix("\"line\":") } == expected, "\(line)"
        )
    }

    @Test(arguments: ["public.pem", "public.jwk", "adyen.txt"])
    func adyenFieldsEachHoldOneFieldAndTheTimeOfEncryption(key: String) throws {
        let before = Date()
        let sealed = try run(
            ["--print", "--once", "--encrypt-to", "\(keys)/\(key)", "--encrypt-format", "adyen"],
            input: "5555 5555 5555 4444 03/31 123\n")
        #expect(sealed.status == 0, "\(sealed.errors)")
        let after = Date()
        let lines = try decrypted(sealed.output)
        try #require(lines.count == 1)
        let line = lines[0]
        #expect(line["type"] as? String == "scheme")
        let expected = [
            "encryptedCardNumber": ("number", "5555555555554444"), "encryptedExpiryMonth": ("expiryMonth", "03"),
            "encryptedExpiryYear": ("expiryYear", "2031"), "encryptedSecurityCode": ("cvc", "123"),
        ]
        // Adyen's fields under Adyen's names, and the clear members beside them (issue 38).
        #expect(
            Set(line.keys)
                == Set(expected.keys).union([
                    "type", "network", "network_name", "family", "also_networks", "last4", "expiry", "entry",
                ]))
        #expect(line["last4"] as? String == "4444" && line["expiry"] as? [String: Int] == ["month": 3, "year": 2031])
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        for (member, (field, value)) in expected {
            let jwe = try #require(line[member] as? [String: Any], "\(member)")
            #expect(
                jwe["header"] as? [String: String] == ["alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1"])
            let plaintext = try #require(jwe["plaintext"] as? [String: String], "\(member)")
            #expect(Set(plaintext.keys) == [field, "generationtime"])
            #expect(plaintext[field] == value, "\(member)")
            let time = try #require(plaintext["generationtime"])
            #expect(time.count == 24 && time.hasSuffix("Z"), "\(time)")
            let when = try #require(format.date(from: time), "\(time)")
            #expect(when >= before.addingTimeInterval(-1) && when <= after.addingTimeInterval(1), "\(time)")
        }
    }

    @Test func twoEncryptionsOfTheSameCardDiffer() throws {
        for format in ["jwe", "adyen"] {
            let sealed = try run(
                ["--print", "--encrypt-to", "\(keys)/public.pem", "--encrypt-format", format],
                input: Self.card + Self.card)
            #expect(sealed.status == 0)
            let lines = sealed.output.split(separator: "\n")
            try #require(lines.count == 2)
            #expect(lines[0] != lines[1])
            // Every JWE's key, IV, ciphertext and tag are fresh; only the header repeats.
            func parts(_ line: Substring) -> [Substring] {
                line.split(separator: "\"").filter { $0.split(separator: ".").count == 5 }.flatMap {
                    $0.split(separator: ".").dropFirst()
                }
            }
            let first = parts(lines[0])
            let second = parts(lines[1])
            #expect(first.count == (format == "jwe" ? 4 : 16))
            #expect(Set(first).isDisjoint(with: second))
            #expect(try decrypted(sealed.output).count == 2)
        }
    }

    /// Checked on stdout's raw bytes: no run of the number's digits beyond the last four (any
    /// eight in a row, its first twelve, the whole), and no security code as a value.
    @Test(arguments: ["jwe", "adyen"])
    func stdoutHoldsNothingOfTheNumberButItsLastFourAndNoCode(format: String) throws {
        let number = "378282246310005"
        let code = "7391"
        let sealed = try run(
            ["--print", "--once", "--encrypt-to", "\(keys)/public.pem", "--encrypt-format", format],
            input: "\(number) 01/29 \(code)\n")
        #expect(sealed.status == 0)
        let raw = Array(sealed.output.utf8)
        try #require(raw.count > 300)
        func contains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return raw.indices.contains { raw[$0...].starts(with: needle) }
        }
        for start in 0...(number.count - 8) {
            let window = String(number.dropFirst(start).prefix(8))
            #expect(!contains(window), "\(window)")
        }
        #expect(!contains(String(number.prefix(12))))
        #expect(!contains("\"\(code)\""))
        // No member of the output is named for the number or the code. (Looked for among the
        // members, not in the raw text: a random ciphertext holds "cvv" now and then.)
        func names(_ value: Any) -> [String] {
            if let object = value as? [String: Any] { return object.keys + object.values.flatMap(names) }
            if let array = value as? [Any] { return array.flatMap(names) }
            return []
        }
        let members = try sealed.output.split(separator: "\n").flatMap { line in
            names(try JSONSerialization.jsonObject(with: Data(line.utf8)))
        }
        try #require(!members.isEmpty)
        #expect(!members.contains { ["cvv", "cvc", "number"].contains($0.lowercased()) }, "\(members)")
        // And it does decrypt to the card.
        let line = try #require(try decrypted(sealed.output).first)
        if format == "jwe" {
            #expect((line["jwe"] as? [String: Any])?["text"] as? String == (try printed("\(number) 01/29 \(code)\n")))
        } else {
            #expect(
                ((line["encryptedCardNumber"] as? [String: Any])?["plaintext"] as? [String: String])?["number"]
                    == number)
            #expect(
                ((line["encryptedSecurityCode"] as? [String: Any])?["plaintext"] as? [String: String])?["cvc"] == code)
        }
    }

    /// Refused before the prompt: exit 64 (no usable key) or 66 (no readable file), a message
    /// naming the file, nothing on stdout, and not one line of input read as a card.
    @Test(arguments: [
        ("truncated.pem", 64, "cut short", "jwe"), ("weak.pem", 64, "1024 bits", "jwe"),
        ("oct.jwk", 64, "a JWK of type \"oct\"", "jwe"), ("p384.jwk", 64, "other than P-256", "jwe"),
        ("ec.jwk", 64, "Adyen's encrypted fields need an RSA key", "adyen"),
        ("garbage.txt", 64, "not a public key", "jwe"), ("garbage-bar.txt", 64, "not a public key", "jwe"),
        ("private.pem", 64, "private key", "jwe"),
        ("missing.pem", 66, "cannot read it", "jwe"), ("", 66, "it is a folder", "jwe"),
        // Issue 36, item 10: exponents BoringSSL refuses, named as such (not its error code).
        ("exponent-1.jwk", 64, "an RSA key whose public exponent is 1;", "jwe"),
        ("exponent-1.txt", 64, "an RSA key whose public exponent is 1;", "adyen"),
        ("exponent-1.pem", 64, "an RSA key whose public exponent is 1;", "jwe"),
        ("exponent-large.jwk", 64, "an RSA key whose public exponent is 1099511627777;", "jwe"),
        ("exponent-large.txt", 64, "an RSA key whose public exponent is 1099511627777;", "jwe"),
        ("exponent-large.pem", 64, "an RSA key whose public exponent is 1099511627777;", "jwe"),
    ])
    func badKeysAreRefusedBeforeThePrompt(key: String, status: Int32, reason: String, format: String) throws {
        let refused = try run(
            ["--print", "--once", "--encrypt-to", "\(keys)/\(key)", "--encrypt-format", format], input: Self.card)
        #expect(refused.status == status)
        #expect(refused.output.isEmpty)
        #expect(refused.errors.hasPrefix("cardline: error: --encrypt-to \(keys)/\(key): "), "\(refused.errors)")
        #expect(refused.errors.contains(reason), "\(refused.errors)")
        #expect(refused.errors.split(separator: "\n").count == 1, "only the refusal: \(refused.errors)")
    }

    @Test func aKeyFileNameIsPrintedEscaped() throws {
        let name = "\(home.path)/bad\u{1B}[2Jkey"
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: name))
        let refused = try run(["--print", "--encrypt-to", name], input: Self.card)
        #expect(refused.status == 64)
        #expect(!refused.errors.contains("\u{1B}"))
        #expect(refused.errors.contains("bad\\u{1B}[2Jkey: "), "\(refused.errors)")
    }

    @Test func encryptionOptionsNeedWhatTheyApplyTo() throws {
        let noDelivery = try run(["--encrypt-to", "\(keys)/public.pem"], input: Self.card)
        #expect(noDelivery.status == 64)
        #expect(noDelivery.errors.contains("--encrypt-to encrypts the cards --print or --print-fd writes"))
        let noKey = try run(["--print", "--encrypt-format", "adyen"], input: Self.card)
        #expect(noKey.status == 64)
        #expect(noKey.errors.contains("--encrypt-format needs --encrypt-to"))
        let badFormat = try run(
            ["--print", "--encrypt-to", "\(keys)/public.pem", "--encrypt-format", "pgp"], input: Self.card)
        #expect(badFormat.status == 64)
        for (extra, words) in [(["--format", "text"], "--format text"), (["--unmasked"], "--unmasked")] {
            let check = try run(["check", "--encrypt-to", "\(keys)/public.pem"] + extra, input: Self.card)
            #expect(check.status == 64)
            #expect(check.errors.contains(words), "\(check.errors)")
            #expect(check.output.isEmpty)
        }
    }

    /// One card typed at the real prompt on a pseudo-terminal, stdout a pipe, as in
    /// `card=$(cardline --print --once --encrypt-to key.jwk)`.
    @Test func aCardTypedAtThePromptReachesTheCallerOnlyEncrypted() throws {
        let t = try PseudoTerminal.prompt(
            ["--print", "--once", "--encrypt-to", "\(keys)/public.jwk"], home: home, pipes: [1])
        t.expect("Card number (#### #### #### ####): ")
        t.send(Self.number)
        t.expect("Type the expiry date")
        t.send("1230")
        t.expect("Type the 3-digit CVV")
        t.send(Self.code + "\r")
        #expect(t.waitForExit() == 0)
        t.expect("Success! Visa •••• 1111, expires 12/30")
        let output = t.pipedText(1)
        #expect(!output.contains(Self.number) && !output.contains("\"\(Self.code)\""))
        let raw = String(decoding: t.raw, as: UTF8.self)
        #expect(!raw.contains(Self.number) && !raw.contains("jwe"))
        let line = try #require(try decrypted(output).first)
        let jwe = try #require(line["jwe"] as? [String: Any])
        #expect(jwe["text"] as? String == (try printed(Self.card)))
    }

    /// `check --encrypt-to`: each valid record sealed (`{"line":N,...}`), invalid ones as `check`
    /// writes them, masked; every record form's number and code reach the plaintext.
    @Test(arguments: ["jwe", "adyen"])
    func checkSealsEachValidRecord(format: String) throws {
        let records = """
            4111 1111 1111 1111 12/30 987
            # a comment
            5555555555554444,03/31,123
            4111111111111112,12/30,987
            {"number": "378282246310005", "expiry": {"month": 1, "year": 2029}, "cvv": "7391"}
            6011111111111117,11/28
            4111111111111111

            """
        let checked = try run(
            ["check", "--encrypt-to", "\(keys)/adyen.txt", "--encrypt-format", format], input: records)
        #expect(checked.status == 1, "two records are invalid: \(checked.errors)")
        #expect(checked.errors.contains("cardline: line 7: not encrypted: the record has no expiry"))
        #expect(checked.errors.contains("6 records, 4 valid, 2 invalid"), "\(checked.errors)")
        #expect(!checked.output.contains("4111111111111111") && !checked.output.contains("5555555555554444"))
        let lines = try decrypted(checked.output)
        try #require(lines.count == 6)
        #expect(lines.map { $0["line"] as? Int } == [1, 3, 4, 5, 6, 7])
        // Invalid: check's own line, masked.
        #expect(lines[2]["masked"] as? String == "411111******1112")
        #expect(lines[2]["errors"] as? [String] == ["luhn"])
        #expect(lines[5]["masked"] as? String == "411111******1111")
        // Counted invalid, and said so on its line too (issue 36, item 10).
        #expect(lines[5]["valid"] as? Bool == false)
        #expect(lines[5]["errors"] as? [String] == ["expiry_missing"])
        #expect(lines.filter { $0["valid"] as? Bool == false }.count == 2)
        let cards = [
            (0, "4111111111111111", "987", 12, 2030), (1, "5555555555554444", "123", 3, 2031),
            (3, "378282246310005", "7391", 1, 2029), (4, "6011111111111117", "", 11, 2028),
        ]
        for (index, number, code, month, year) in cards {
            let line = lines[index]
            if format == "jwe" {
                let card = try #require(
                    (line["jwe"] as? [String: Any])?["plaintext"] as? [String: Any], "line \(index)")
                #expect(card["number"] as? String == number)
                #expect(card["cvv"] as? String == code)
                #expect(card["expiry"] as? [String: Int] == ["month": month, "year": year])
                #expect(line["last4"] as? String == String(number.suffix(4)))
            } else {
                func field(_ member: String, _ name: String) -> String? {
                    ((line[member] as? [String: Any])?["plaintext"] as? [String: String])?[name]
                }
                #expect(field("encryptedCardNumber", "number") == number)
                #expect(field("encryptedExpiryYear", "expiryYear") == String(year))
                #expect(field("encryptedSecurityCode", "cvc") == (code.isEmpty ? nil : code))
                #expect(line["encryptedSecurityCode"] == nil || !code.isEmpty)
            }
        }
    }
}

extension CardMemoryTests {
    /// The card sealed for delivery (`--encrypt-to`) leaves no clear copy behind either: not the
    /// JSON plaintext, not Adyen's field plaintexts.
    @Test(arguments: ["jwe", "adyen"])
    func noCopyOnceAnEncryptedCardIsDelivered(format: String) throws {
        let keys = home.path + "/keys"
        #expect(try EncryptionTests.jweCheck(["keys", keys]).status == 0)
        let t = try PseudoTerminal(
            arguments: [
                "--today", "2026-11", "--no-color", "--print-fd", "3",
                "--encrypt-to", keys + "/public.pem", "--encrypt-format", format,
            ],
            environment: home.environment, pipes: [3])
        t.waitForRawMode()
        t.expect("Card number (#### #### #### ####): ")
        t.send(Self.number + "1230" + "123\r")
        t.expect("Success!")
        t.waitForPiped(3, containing: "\n")
        #expect(!t.pipedText(3).contains(Self.number))
        waitUntilIdle(t)
        let found = copies(in: t.pid)
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")
    }

    /// Nor of the cardholder's name and postal code (issue 36): sealed inside the JWE, and
    /// for Adyen also written in clear (`holderName`) beside the encrypted fields.
    @Test(arguments: ["jwe", "adyen"])
    func noCopyOfTheNameOrPostalCodeOnceAnEncryptedCardIsDelivered(format: String) throws {
        let keys = home.path + "/keys"
        #expect(try EncryptionTests.jweCheck(["keys", keys]).status == 0)
        let t = try start(
            delivering: true,
            [
                "--name", "--postal-code", "CA", "--encrypt-to",
                keys + (format == "adyen" ? "/adyen.txt" : "/public.pem"),
                "--encrypt-format", format,
            ])
        t.send(Self.number + "1230" + "123\r")
        t.expect("Name (as on the card): ")
        t.send(Self.holderName + "\r")
        t.expect("Postal code (K1A 0B1): ")
        t.send(Self.postalCode + "\r")
        t.expect("Success!")
        t.waitForPiped(3, containing: "\n")
        #expect(!t.pipedText(3).contains(Self.number) && !t.pipedText(3).contains(Self.postalCode))
        waitUntilIdle(t)
        let found = copies(in: t.pid)
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")
    }
}

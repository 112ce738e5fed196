import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 24 items 2–6 through the real binary: four-digit years (`12/2030`), `--name`,
/// `--postal-code COUNTRY` for every bundled format (valid and invalid), `--cvv-only --network`
/// for a 4-digit and a 3-digit network, on a pseudo-terminal and on pipes.
@Suite struct PaymentFormTests {
    let home = TemporaryHome()
    static let number = "4111111111111111", code = "739"

    func start(_ extra: [String]) throws -> PseudoTerminal {
        try PseudoTerminal.prompt(["--print", "--once"] + extra, home: home, pipes: [1])
    }

    func delivered(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(t.waitForExit() == 0, sourceLocation: sourceLocation)
        let lines = t.pipedText(1).split(separator: "\n")
        try #require(lines.count == 1, sourceLocation: sourceLocation)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any],
            sourceLocation: sourceLocation)
    }

    func expectNoCardDigitsOnTheTerminal(_ t: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = String(decoding: t.raw, as: UTF8.self)
        #expect(!raw.contains(Self.number), sourceLocation: sourceLocation)
        #expect(!raw.contains(Self.code), sourceLocation: sourceLocation)
    }

    /// Types the number, `12/30` and the code, then Enter (which moves on to the name or
    /// postal code when one follows).
    func typeTheCard(_ t: PseudoTerminal) { t.send(Self.number + "1230" + Self.code + "\r") }

    /// Waits until the line with the cursor (the live field) holds `text`.
    func expectLine(_ t: PseudoTerminal, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(t.waitForScreen(text) { $0.cursorLine.contains(text) } != nil, sourceLocation: sourceLocation)
    }

    func piped(_ arguments: [String], input: String) throws -> (status: Int32, output: String, errors: String) {
        let run = try runPiped(
            ["--today", "2026-11", "--no-history"] + arguments, input: input, environment: home.environment)
        return (run.status, run.output, run.errors)
    }

    // MARK: - 12/2030

    @Test func aFourDigitYearGrowsTheExpiryField() throws {
        let t = try start([])
        t.send(Self.number)
        t.expect("Type the expiry date")
        t.send("12/20")
        expectLine(t, "Expiry (MM/YY): 12/20 ")
        t.send("3")
        expectLine(t, "Expiry (MM/YYYY): 12/203 ")
        t.send("0")
        t.expect("Type the 3-digit CVV")
        t.send(Self.code + "\r")
        let card = try delivered(t)
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        #expect(card["number"] as? String == Self.number)
        expectNoCardDigitsOnTheTerminal(t)
    }

    @Test func aFourDigitYearOnAPipeAndInCheck() throws {
        let run = try piped(["--print"], input: "\(Self.number) 12/2030 \(Self.code)\n")
        #expect(run.status == 0, "\(run.errors)")
        let card = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        let check = try runPiped(
            ["check", "--today", "2026-11"], input: "\(Self.number),12/2030,\(Self.code)\n",
            environment: home.environment)
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains(#""expiry":{"month":12,"year":2030}"#), "\(check.output)")
    }

    // MARK: - --name

    @Test func theNameIsAskedAfterTheCode() throws {
        let t = try start(["--name"])
        typeTheCard(t)
        t.expect("Name (as on the card): ")
        t.send("Ada 7")  // a digit is refused
        t.expect("a name takes no digits")
        t.send("Lovelace-Kïng\r")
        let card = try delivered(t)
        #expect(card["holder_name"] as? String == "Ada Lovelace-Kïng")
        #expect(card["network_name"] as? String == "Visa")
        expectNoCardDigitsOnTheTerminal(t)
    }

    @Test func backspaceOnAnEmptyNameGoesBackToTheCode() throws {
        let t = try start(["--name"])
        typeTheCard(t)
        t.expect("Name (as on the card): ")
        t.send("\u{7F}")
        expectLine(t, "CVV (###): ••• ")
        t.send("\u{7F}4\r")
        t.expect("Name (as on the card): ")
        t.send("Ada\r")
        let card = try delivered(t)
        #expect(card["cvv"] as? String == "734")
    }

    @Test func theNameIsNeverWrittenToTheHistoryFile() throws {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-color", "--name"], environment: home.environment)
        t.waitForRawMode()
        typeTheCard(t)
        t.expect("Name (as on the card): ")
        t.send(":cards\r")  // a command in the empty name field: history is on in this run
        t.expect("no cards")
        t.send("Ada Lovelace\r")
        t.expect("Success! Visa")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
        let history = try String(contentsOfFile: home.path + "/state/cardline/history", encoding: .utf8)
        #expect(history.contains(":cards"))
        #expect(!history.contains("Lovelace") && !history.contains("Ada"))
    }

    // MARK: - --postal-code

    /// Each bundled format: typed in lowercase without separators, shown formatted, refused
    /// while incomplete, then delivered as the country writes it.
    @Test(arguments: [
        ("US", "9410", "5", "94105"), ("CA", "k1a0b", "1", "K1A 0B1"), ("GB", "sw1a1a", "a", "SW1A 1AA"),
        ("DE", "1011", "5", "10115"), ("FR", "7500", "8", "75008"), ("NL", "1012a", "b", "1012 AB"),
        ("AU", "200", "0", "2000"), ("JP", "100000", "1", "100-0001"), ("BR", "0131010", "0", "01310-100"),
        ("IN", "11000", "1", "110001"),
    ])
    func postalCode(country: String, incomplete: String, rest: String, shown: String) throws {
        let t = try start(["--postal-code", country.lowercased()])
        typeTheCard(t)
        t.expect("of the card's billing address")
        t.send(incomplete + "\r")
        t.expect("looks like")  // refused while incomplete
        t.send(rest)
        expectLine(t, "): " + shown + " ")
        t.send("\r")
        let card = try delivered(t)
        #expect(card["postal_code"] as? String == shown)
    }

    @Test func aPostalCodeRefusesACharacterItsFormatCannotTake() throws {
        let t = try start(["--postal-code", "CA"])
        typeTheCard(t)
        t.expect("Postal code (K1A 0B1): ")
        t.send("KK")
        t.expect("a Canada postal code has a digit here, like K1A 0B1")
        t.send("1a0b1\r")
        let card = try delivered(t)
        #expect(card["postal_code"] as? String == "K1A 0B1")
    }

    @Test func anUnknownCountryIsAUsageErrorListingTheKnownOnes() throws {
        let run = try piped(["--postal-code", "XX", "--print"], input: "")
        #expect(run.status == 64)
        #expect(
            run.errors.contains(
                "unknown country `XX` for a postal code (known: US, CA, GB, DE, FR, NL, AU, JP, BR, IN)"),
            "\(run.errors)")
    }

    @Test func nameAndPostalCodeOnAPipe() throws {
        let run = try piped(
            ["--name", "--postal-code", "GB", "--print"],
            input: "\(Self.number) 12/2030 \(Self.code) Ada Lovelace\nsw1a 1aa\n")
        #expect(run.status == 0, "\(run.errors)")
        #expect(
            run.output.hasSuffix(
                #""cvv":"\#(Self.code)","entry":"keyed","holder_name":"Ada Lovelace","postal_code":"SW1A 1AA"}"#
                    + "\n"), "\(run.output)")
        #expect(!run.errors.contains(Self.number) && !run.errors.contains(Self.code))
    }

    // MARK: - --cvv-only

    @Test(arguments: [("amex", "american-express", "1234"), ("visa", "visa", "739")])
    func theSecurityCodeAlone(network: String, id: String, code: String) throws {
        let t = try start(["--cvv-only", "--network", network.uppercased()])
        t.expect("-digit")  // the network's code help
        t.send(String(code.dropLast()) + "\r")  // one digit short
        t.expect("Cannot accept")
        t.send(String(code.last!) + "\r")
        #expect(t.waitForExit() == 0)
        let name = id == "visa" ? "Visa" : "American Express"
        #expect(
            t.pipedText(1)
                == #"{"network":"\#(id)","network_name":"\#(name)","family":"\#(id)","also_networks":[],"cvv":"\#(code)"}"#
                + "\n")
        #expect(!String(decoding: t.raw, as: UTF8.self).contains(code))
    }

    @Test func cvvOnlyNeedsANetworkAndKnowsIt() throws {
        #expect(try piped(["--cvv-only", "--print"], input: "").status == 64)
        #expect(try piped(["--network", "visa", "--print"], input: "").status == 64)
        let unknown = try piped(["--cvv-only", "--network", "nosuch", "--print"], input: "")
        #expect(unknown.status == 64)
        #expect(unknown.errors.contains("--network: unknown network `nosuch`"), "\(unknown.errors)")
        let piped = try piped(["--cvv-only", "--network", "amex", "--print"], input: "1234\n")
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(
            piped.output
                == #"{"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"cvv":"1234"}"#
                + "\n")
    }
}

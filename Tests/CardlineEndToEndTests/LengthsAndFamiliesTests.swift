import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 19, items 2 and 5, through the real binary on a pseudo-terminal: a number moves on
/// by itself only when it cannot grow into another valid length of its pattern, so a 19-digit
/// Maestro and a 16-digit Diners Club are delivered whole; a network's family (`visa` for Visa
/// Electron) is accepted by `--networks` and said in the delivered JSON.
@Suite struct LengthsAndFamiliesTests {
    let home = TemporaryHome()

    func start(_ arguments: [String]) throws -> PseudoTerminal {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history"] + arguments,
            environment: home.environment, pipes: [1])
        t.waitForRawMode()
        return t
    }

    /// The one JSON record the program printed.
    func delivered(_ t: PseudoTerminal) throws -> [String: Any] {
        let lines = t.pipedText(1).split(separator: "\n")
        #expect(lines.count == 1, "records printed: \(lines.count)")
        let line = try #require(lines.first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Types the expiry and the code, submits, and returns the delivered record.
    func finish(_ t: PseudoTerminal) throws -> [String: Any] {
        t.send("1230")
        t.expect("Type the 3-digit")
        t.send("123\r")
        #expect(t.waitForExit() == 0)
        return try delivered(t)
    }

    /// Numbers whose network has longer valid lengths: typed whole, they stay in the number
    /// field (the last digit of a 19-digit Maestro moves on; Diners Club's 16 waits for Enter,
    /// saying so), and the number delivered is the number typed.
    /// A 19-digit V Pay (Adyen's test card 4013 2500 0000 0000 006, Visa family) and a 19-digit
    /// Visa Debit (Worldpay's 4917610000000000003) are delivered whole: their BINs have 19 in the rules.
    @Test(arguments: [
        ("6759649826438453003", "maestro", "MAESTRO 19/19"),
        ("3011711535317500", "diners-club", "DINERS 16/19 (16 valid)"),
        ("4013250000000000006", "v-pay", "V PAY 19/19"),
        ("4917610000000000003", "visa-electron", "ELECTRON 19/19"),
    ])
    func aLongerLengthOfTheSameRangeIsDeliveredWhole(number: String, network: String, badge: String) throws {
        let t = try start(["--print", "--once"])
        t.expect("Card number (")
        t.send(number)
        if number.count < 19 {
            t.expect("complete - Enter to continue, or keep typing")
            // Still in the number field, every digit there (grouped), the badge saying it is valid.
            #expect(t.redraw(expectingBadge: badge).filter(\.isNumber).hasPrefix(number))
            t.send("\r")
        }
        t.expect("Type the expiry date")
        let card = try finish(t)
        #expect(card["number"] as? String == number)
        #expect(card["network"] as? String == network)
        #expect(card["expiry"] as? [String: Int] == ["month": 12, "year": 2030])
        // The line that said "complete" left no copy of the live field: once done, the screen
        // shows the number masked only (first six, last four).
        let middle = String(number.dropFirst(6).dropLast(4))
        #expect(
            t.screen.lines.contains {
                $0.hasSuffix(
                    "Success! \(card["network_name"] as? String ?? "?") •••• \(number.suffix(4)), expires 12/30")
            }, "\(t.screen.lines)")
        #expect(!t.screen.lines.contains { $0.filter(\.isNumber).contains(middle) }, "\(t.screen.lines)")
    }

    /// The common lengths still move on by themselves: no Enter is sent.
    @Test(arguments: [
        ("4111111111111111", "visa"), ("4242424242424242", "visa"), ("4012888888881881", "visa"),
        ("4917300800000000", "visa-electron"), ("5555555555554444", "mastercard"),
        ("378282246310005", "american-express"),
    ])
    func aNumberThatCannotGrowMovesOnByItself(number: String, network: String) throws {
        let t = try start(["--print", "--once"])
        t.expect("Card number (")
        t.send(number)
        t.expect("Type the expiry date")
        // 4012 8888 8888 1 is itself a valid 13-digit Visa (13 is a Visa length; Braintree's
        // 4012888818888 shares the BIN), so the hint shows at 13 there; it still moves on at 16.
        #expect(!t.text.contains("Enter to continue") || number == "4012888888881881")
        t.send("1230")
        t.expect(network == "american-express" ? "Type the 4-digit" : "Type the 3-digit")
        t.send((network == "american-express" ? "1234" : "123") + "\r")
        #expect(t.waitForExit() == 0)
        let card = try delivered(t)
        #expect(card["number"] as? String == number)
        #expect(card["network"] as? String == network)
    }

    /// `--networks visa` takes the family: a Visa Electron card is accepted and its record says both.
    @Test func networksVisaTakesVisaElectron() throws {
        let t = try start(["--print", "--once", "--networks", "visa"])
        t.expect("Card number (")
        t.send("4917300800000000")
        t.expect("Type the expiry date")
        let card = try finish(t)
        #expect(card["number"] as? String == "4917300800000000")
        #expect(card["network"] as? String == "visa-electron")
        #expect(card["family"] as? String == "visa")
    }

    /// A network outside the family is still refused, and a Visa card says its own family.
    @Test func networksVisaStillRefusesOthersAndVisaIsItsOwnFamily() throws {
        let t = try start(["--print", "--once", "--networks", "visa"])
        t.expect("Card number (")
        t.send("5")
        t.expect("no accepted network starts with 5 (accepted: Visa)")
        t.send("4111111111111111")
        t.expect("Type the expiry date")
        let card = try finish(t)
        #expect(card["network"] as? String == "visa")
        #expect(card["family"] as? String == "visa")
    }

    /// On a pipe, a whole card per line keeps its fields apart for numbers that could grow
    /// (Discover 16-19, Diners Club 14-19, Maestro 12-19), and each number is delivered whole.
    @Test func wholeCardsOnAPipeAreDeliveredAsTyped() throws {
        let numbers = ["6011111111111117", "3011711535317500", "6759649826438453003", "4111111111111111"]
        let input = numbers.map { "\($0) 12/30 123\n" }.joined()
        let run = try runPiped(
            ["--today", "2026-11", "--no-history", "--print"], input: input, environment: home.environment)
        #expect(run.status == 0, "\(run.errors)")
        let delivered = run.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(delivered.map { $0["number"] as? String } == numbers)
        #expect(delivered.map { $0["family"] as? String } == ["discover", "diners-club", "maestro", "visa"])
    }

    /// `check` takes the family too, and `rules show` says it.
    @Test func checkAndRulesShowKnowTheFamily() throws {
        let check = try runPiped(
            ["check", "--today", "2026-11", "--networks", "visa"],
            input: "4917300800000000,12/30\n5555555555554444,12/30\n", environment: home.environment)
        let records = check.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(records.map { $0["valid"] as? Bool } == [true, false], "\(check.output)\(check.errors)")
        #expect((records.last?["errors"] as? [String])?.contains("network_not_accepted") == true)
        let show = try runPiped(["rules", "show", "visa-electron"], input: "", environment: home.environment)
        #expect(show.status == 0)
        #expect(show.output.contains("family:       visa (--networks visa takes it)"), "\(show.output)")
        let test = try runPiped(["rules", "test", "3011711535317500"], input: "", environment: home.environment)
        #expect(
            test.output.contains("length:    16 — valid, could grow to 19 (Diners Club allows 14, 15, 16, 17, 18, 19)"),
            "\(test.output)")
    }
}

import Foundation
import Testing

/// `check` reads what `--print` writes (JSON Lines) and plain records whose fields are told
/// apart without guessing; whatever it reads, a security code never reaches its output and no
/// digit outside the number appears inside a masked number.
@Suite struct CheckRecordFormatTests {
    let home = TemporaryHome()

    func check(_ arguments: [String], input: String) throws -> (
        status: Int32, output: String, errors: String, timedOut: Bool
    ) {
        try runPiped(["check", "--today", "2026-11"] + arguments, input: input, environment: home.environment)
    }

    /// `cardline --print … | cardline check`: every card `--print` delivers is read back as a
    /// valid record of its network, numbered by its line, with its expiry, and its code nowhere.
    @Test func printOutputReadsBackValid() throws {
        let cards = "4111 1111 1111 1111 12/30 987\n378282246310005 01/31 6543\n5555555555554444 02/29 321\n"
        let printed = try runPiped(["--print", "--today", "2026-11"], input: cards, environment: home.environment)
        #expect(printed.status == 0)
        #expect(printed.output.split(separator: "\n").count == 3, "\(printed.output)")
        for format in ["json", "text"] {
            let run = try check(["--format", format], input: printed.output)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(run.errors == "3 records, 3 valid, 0 invalid\n")
            for code in ["987", "6543", "321"] { #expect(!run.output.contains(code), "\(format): \(run.output)") }
            if format == "json" {
                let lines = run.output.split(separator: "\n")
                #expect(lines.count == 3)
                #expect(
                    lines[0]
                        == #"{"line":1,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"valid":true,"errors":[]}"#
                )
                #expect(
                    lines[1].hasPrefix(
                        #"{"line":2,"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"masked":"378282*****0005","last4":"0005","expiry":{"month":1,"year":2031}"#
                    ))
                #expect(
                    lines[2].hasPrefix(#"{"line":3,"network":"mastercard","#) && lines[2].contains(#""valid":true"#))
            }
        }
    }

    /// A JSON record is checked as a plain one is: a wrong code length or an expired card are
    /// that record's errors; an `"expiry"` may also be written `"MM/YY"`.
    @Test func jsonRecordsAreCheckedLikePlainOnes() throws {
        let input =
            #"{"number":"4111111111111111","expiry":{"month":12,"year":2030},"cvv":"12"}"# + "\n"
            + #"{"number":"4111111111111111","expiry":"01/20"}"# + "\n"
        let run = try check([], input: input)
        #expect(run.status == 1)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines.first?.hasSuffix(#""expiry":{"month":12,"year":2030},"valid":false,"errors":["cvv_length"]}"#)
                == true, "\(run.output)")
        #expect(
            lines.last?.hasSuffix(#""expiry":{"month":1,"year":2020},"valid":false,"errors":["expired"]}"#) == true,
            "\(run.output)")
    }

    /// A line that starts with `{` but is not a card record is a `record_format` record with a
    /// message naming its line (and no text of the line), the good lines around it are still
    /// checked, and the exit status is 65.
    @Test func badJSONLinesAreNamedAndExitSixtyFive() throws {
        let good = #"{"network":"visa","number":"4111111111111111","expiry":{"month":12,"year":2030},"cvv":"123"}"#
        let input =
            [
                good, #"{"number": 4111111111111111}"#, #"{"number":"4111111111111111","#,
                #"{"number":"4111111111111111","expiry":{"month":12}}"#, #"{"expiry":"12/30","cvv":"555"}"#, good,
            ]
            .joined(separator: "\n") + "\n"
        let run = try check([], input: input)
        #expect(run.status == 65, "\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0].contains(#""valid":true"#) && lines[5].contains(#""valid":true"#))
        for line in lines[1...4] { #expect(line.contains(#""errors":["record_format"]"#), "\(line)") }
        let messages = run.errors.split(separator: "\n").map(String.init)
        #expect(
            messages.filter { $0.hasPrefix("cardline: line ") }.map { $0.prefix(16) } == [
                "cardline: line 2", "cardline: line 3", "cardline: line 4", "cardline: line 5",
            ], "\(run.errors)")
        #expect(messages.last == "6 records, 2 valid, 4 invalid")
        #expect(!run.errors.contains("4111111111") && !run.errors.contains("555"), "\(run.errors)")
        #expect(!run.output.contains("555") && !run.output.contains("123"))
    }

    /// `378282246310005 9876`: a space after an unbroken number ends it, so 9876 is the next
    /// field (here the expiry, which it is not), never a digit of the masked number.
    @Test func aCodeAfterASpaceIsNotPartOfTheNumber() throws {
        for format in ["json", "text"] {
            let run = try check(["--format", format], input: "378282246310005 9876\n")
            #expect(
                !run.output.contains("9876") && !run.output.contains("987") && !run.output.contains("876"),
                "\(run.output)")
            #expect(run.output.contains("378282*****0005"), "\(run.output)")
            #expect(
                run.output.contains(format == "json" ? "expiry_format" : "the expiry is not MM/YY"), "\(run.output)")
        }
        // Fields separated by spaces, as `--print` reads a card from a pipe: all valid.
        let spaced = try check(
            [], input: "378282246310005 12/30 9876\n4111 1111 1111 1111 12/30 123\n3782 822463 10005 01/31\n")
        #expect(spaced.status == 0, "\(spaced.output)")
        #expect(!spaced.output.contains("9876") && !spaced.output.contains("123"))
        // The same in the comma form: the number field ends at the space, and a field without
        // a comma before it is a record_format error, not digits of the number.
        let comma = try check([], input: "378282246310005 9876,12/30\n")
        #expect(comma.status == 65)
        #expect(
            comma.output.contains(#""masked":"378282*****0005""#) && !comma.output.contains("9876"), "\(comma.output)")
    }
}

import CardKit
import Foundation
import Testing

@Suite struct CardCheckTests {
    static let checker = CardCheck(
        rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))

    func json(_ record: String, unmasked: Bool = false) -> String {
        let bytes = Array(record.utf8)
        var out: [UInt8] = []
        let result = Self.checker.check(bytes.span)
        Self.checker.appendJSON(result, line: 7, unmasked: unmasked, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// One record per error kind, and valid ones, with the exact JSON line each gets.
    @Test(arguments: [
        (
            "4111 1111 1111 1111,12/30,123",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"valid":true,"errors":[]}"#
        ),
        (
            "4111-1111-1111-1111",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","valid":true,"errors":[]}"#
        ),
        (
            "378282246310005,01/2029,1234",
            #"{"line":7,"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"masked":"378282*****0005","last4":"0005","expiry":{"month":1,"year":2029},"valid":true,"errors":[]}"#
        ),
        (
            "1,2,3,4",
            #"{"line":7,"masked":"*","last4":"","valid":false,"errors":["record_format","length","expiry_format","cvv_format"]}"#
        ),
        (",12/30", #"{"line":7,"valid":false,"errors":["record_format"]}"#),
        (
            "4111x1111 1111 1111",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","valid":true,"errors":["number_format"]}"#
                .replacingOccurrences(of: #""valid":true"#, with: #""valid":false"#)
        ),
        (
            "7000 0000 0000 0000",
            #"{"line":7,"masked":"700000******0000","last4":"0000","valid":false,"errors":["unknown_network"]}"#
        ),
        (
            "4111 1111 1111",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"41******1111","last4":"1111","valid":false,"errors":["length"]}"#
        ),
        ("3", #"{"line":7,"masked":"*","last4":"","valid":false,"errors":["length"]}"#),
        (
            "4111111111111112",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1112","last4":"1112","valid":false,"errors":["luhn"]}"#
        ),
        (
            "4111111111111111,13/30",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","valid":false,"errors":["expiry_format"]}"#
        ),
        (
            "4111111111111111,1230",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","valid":false,"errors":["expiry_format"]}"#
        ),
        (
            "4111111111111111,10/26",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":10,"year":2026},"valid":false,"errors":["expired"]}"#
        ),
        (
            "4111111111111111,11/26",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":11,"year":2026},"valid":true,"errors":[]}"#
        ),
        (
            "4111111111111111,01/2047",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":1,"year":2047},"valid":false,"errors":["expiry_too_far"]}"#
        ),
        (
            "4111111111111111,12/30,12a",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"valid":false,"errors":["cvv_format"]}"#
        ),
        (
            "378282246310005,12/30,123",
            #"{"line":7,"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"masked":"378282*****0005","last4":"0005","expiry":{"month":12,"year":2030},"valid":false,"errors":["cvv_length"]}"#
        ),
        (
            "6200000000000001,12/30,123",
            #"{"line":7,"network":"unionpay","network_name":"UnionPay","family":"unionpay","also_networks":[],"masked":"620000******0001","last4":"0001","expiry":{"month":12,"year":2030},"valid":true,"errors":[]}"#
        ),
        (
            "41111111111111111111111",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111*********1111","last4":"1111","valid":false,"errors":["length"]}"#
        ),
        // Whitespace after more than six digits in a row ends the number: the next word is a field.
        (
            "378282246310005 9876",
            #"{"line":7,"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"masked":"378282*****0005","last4":"0005","valid":false,"errors":["expiry_format"]}"#
        ),
        (
            "378282246310005 9876,12/30",
            #"{"line":7,"network":"american-express","network_name":"American Express","family":"american-express","also_networks":[],"masked":"378282*****0005","last4":"0005","expiry":{"month":12,"year":2030},"valid":false,"errors":["record_format"]}"#
        ),
        (
            "4111 1111 1111 1111 12/30 123",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"valid":true,"errors":[]}"#
        ),
        (
            "4111111111111111\t12/30\t123",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"valid":true,"errors":[]}"#
        ),
        (
            "4111111111111111 12/30 123 9",
            #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"valid":false,"errors":["record_format"]}"#
        ),
    ])
    func eachRecordGetsItsLine(record: String, expected: String) {
        #expect(json(record) == expected + "\n")
    }

    @Test func theCodeNeverAppearsAndUnmaskedShowsTheNumber() {
        let line = json("4111111111111111,12/30,987", unmasked: true)
        #expect(line.contains(#""number":"4111111111111111""#))
        #expect(!line.contains("987"))
    }

    @Test func textForPeople() {
        func text(_ record: String, file: String? = nil) -> String {
            var out: [UInt8] = []
            let result = Self.checker.check(Array(record.utf8).span)
            Self.checker.appendText(result, line: 3, file: file, unmasked: false, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(
            text("4111111111111112,12/30")
                == "line 3: 411111******1112 Visa: invalid: the number's check digit is wrong (it fails the Luhn check)\n"
        )
        #expect(
            text("378282246310005,12/30,12", file: "cards.txt")
                == "cards.txt, line 3: 378282*****0005 American Express: invalid: the code has 2 digits; American Express's has 4\n"
        )
        #expect(
            text("4111111111111111 12/30 1")
                == "line 3: 411111******1111 Visa: invalid: the code has 1 digit; Visa's has 3\n")
        #expect(text("4571000000000001,12/30,123") == "line 3: 457100******0001 Visa (also Dankort): valid\n")
        #expect(
            text("4111 1111 1111,12/30")
                == "line 3: 41******1111 Visa: invalid: the number has 12 digits; Visa's have 13 or 16\n")
        #expect(text("x") == "line 3: invalid: not a card record: no card number\n")
    }

    /// A co-badged number checks as the prompt delivers the card: the international scheme,
    /// with its other networks beside it (issue 38).
    @Test func aCoBadgedNumberChecksWithAllItsNetworks() {
        #expect(
            json("4571000000000001,12/30,123")
                == #"{"line":7,"network":"visa","network_name":"Visa","family":"visa","also_networks":["dankort"],"masked":"457100******0001","last4":"0001","expiry":{"month":12,"year":2030},"valid":true,"errors":[]}"#
                + "\n")
    }
}

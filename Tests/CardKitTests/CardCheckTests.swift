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
            #"{"line":7,"network":"visa","valid":true,"number":"411111******1111","expiry":"2030-12","errors":[]}"#
        ),
        ("4111-1111-1111-1111", #"{"line":7,"network":"visa","valid":true,"number":"411111******1111","errors":[]}"#),
        (
            "378282246310005,01/2029,1234",
            #"{"line":7,"network":"american-express","valid":true,"number":"378282*****0005","expiry":"2029-01","errors":[]}"#
        ),
        (
            "1,2,3,4",
            #"{"line":7,"network":null,"valid":false,"number":"*","errors":["record_format","length","expiry_format","cvv_format"]}"#
        ),
        (",12/30", #"{"line":7,"network":null,"valid":false,"number":"","errors":["record_format"]}"#),
        (
            "4111x1111 1111 1111",
            #"{"line":7,"network":"visa","valid":true,"number":"411111******1111","errors":["number_format"]}"#
                .replacingOccurrences(of: #""valid":true"#, with: #""valid":false"#)
        ),
        (
            "7000 0000 0000 0000",
            #"{"line":7,"network":null,"valid":false,"number":"700000******0000","errors":["unknown_network"]}"#
        ),
        ("4111 1111 1111", #"{"line":7,"network":"visa","valid":false,"number":"41******1111","errors":["length"]}"#),
        ("3", #"{"line":7,"network":null,"valid":false,"number":"*","errors":["length"]}"#),
        (
            "4111111111111112",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1112","errors":["luhn"]}"#
        ),
        (
            "4111111111111111,13/30",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1111","errors":["expiry_format"]}"#
        ),
        (
            "4111111111111111,1230",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1111","errors":["expiry_format"]}"#
        ),
        (
            "4111111111111111,10/26",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1111","expiry":"2026-10","errors":["expired"]}"#
        ),
        (
            "4111111111111111,11/26",
            #"{"line":7,"network":"visa","valid":true,"number":"411111******1111","expiry":"2026-11","errors":[]}"#
        ),
        (
            "4111111111111111,01/2047",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1111","expiry":"2047-01","errors":["expiry_too_far"]}"#
        ),
        (
            "4111111111111111,12/30,12a",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1111","expiry":"2030-12","errors":["cvv_format"]}"#
        ),
        (
            "378282246310005,12/30,123",
            #"{"line":7,"network":"american-express","valid":false,"number":"378282*****0005","expiry":"2030-12","errors":["cvv_length"]}"#
        ),
        (
            "6200000000000001,12/30,123",
            #"{"line":7,"network":"unionpay","valid":true,"number":"620000******0001","expiry":"2030-12","errors":[]}"#
        ),
        (
            "41111111111111111111111",
            #"{"line":7,"network":"visa","valid":false,"number":"411111*********1111","errors":["length"]}"#
        ),
        // Whitespace after more than six digits in a row ends the number: the next word is a field.
        (
            "378282246310005 9876",
            #"{"line":7,"network":"american-express","valid":false,"number":"378282*****0005","errors":["expiry_format"]}"#
        ),
        (
            "378282246310005 9876,12/30",
            #"{"line":7,"network":"american-express","valid":false,"number":"378282*****0005","expiry":"2030-12","errors":["record_format"]}"#
        ),
        (
            "4111 1111 1111 1111 12/30 123",
            #"{"line":7,"network":"visa","valid":true,"number":"411111******1111","expiry":"2030-12","errors":[]}"#
        ),
        (
            "4111111111111111\t12/30\t123",
            #"{"line":7,"network":"visa","valid":true,"number":"411111******1111","expiry":"2030-12","errors":[]}"#
        ),
        (
            "4111111111111111 12/30 123 9",
            #"{"line":7,"network":"visa","valid":false,"number":"411111******1111","expiry":"2030-12","errors":["record_format"]}"#
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
        let bytes = Array("4111111111111112,12/30".utf8)
        var out: [UInt8] = []
        Self.checker.appendText(Self.checker.check(bytes.span), line: 3, unmasked: false, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "line 3: 411111******1112  visa  invalid (luhn)\n")
    }
}

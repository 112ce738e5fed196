import CardKit
import Testing

/// `CardCheck.card(of:line:)`, the whole card of a valid record for `check --encrypt-to`: the
/// checker's number, network and expiry, and the code of every record form the checker takes.
@Suite struct CardCheckCardTests {
    static let checker = CardCheck(
        rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))

    func cardOf(_ record: String) -> PaymentCard? {
        let bytes = Array(record.utf8)
        let result =
            CardCheck.isJSONRecord(bytes.span)
            ? Self.checker.checkJSON(bytes.span).result : Self.checker.check(bytes.span)
        return Self.checker.card(of: result, line: bytes.span)
    }

    @Test(arguments: [
        ("4111 1111 1111 1111,12/30,123", "4111111111111111", "123", "visa", 12, 2030),
        ("4111-1111-1111-1111 , 12 / 2030 , 1 2 3", "4111111111111111", "123", "visa", 12, 2030),
        ("4111 1111 1111 1111 12/30 123", "4111111111111111", "123", "visa", 12, 2030),
        ("  378282246310005\t01/29\t7391\r", "378282246310005", "7391", "american-express", 1, 2029),
        ("378282 246310005 01/2029 7391", "378282246310005", "7391", "american-express", 1, 2029),
        ("5555555555554444,03/31", "5555555555554444", "", "mastercard", 3, 2031),
        ("5555555555554444 03/31", "5555555555554444", "", "mastercard", 3, 2031),
        (
            #"{"number": "4111 1111 1111 1111", "expiry": "12/30", "cvv": "987"}"#, "4111111111111111", "987", "visa",
            12, 2030
        ),
        (
            #"{"cvv": "7391", "expiry": {"month": 1, "year": 2029}, "number": "378282246310005"}"#, "378282246310005",
            "7391", "american-express", 1, 2029
        ),
        (#"{"number": "5555555555554444", "expiry": "03/31"}"#, "5555555555554444", "", "mastercard", 3, 2031),
    ])
    func aValidRecordGivesItsWholeCard(
        record: String, number: String, code: String, network: String, month: Int, year: Int
    ) throws {
        var card = try #require(cardOf(record))
        #expect(card.number == number)
        #expect(card.securityCode == code)
        #expect(card.network.id == network)
        #expect(card.expiry == YearMonth(year: year, month: month))
        card.wipe()
        #expect(card.numberDigits.isEmpty && card.securityCodeDigits.isEmpty)
    }

    /// The code taken is the one the checker judged: a record whose code field the checker
    /// refuses is not valid, so gives no card.
    @Test(arguments: [
        "4111111111111112,12/30,123", "4111111111111111,12/30,12", "4111111111111111 12/30 12a",
        "4111111111111111", "4111111111111111,10/26,123", #"{"number": "4111111111111111", "cvv": "123"}"#,
        "378282246310005,01/29,123",
    ])
    func anInvalidRecordOrOneWithoutExpiryGivesNone(record: String) {
        #expect(cardOf(record) == nil)
    }
}

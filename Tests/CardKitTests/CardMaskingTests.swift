import CardKit
import Testing

/// The one masking policy (`CardNumber+Masking.swift`) and the one function for text from
/// outside (`String.escapingControlCharacters`).
@Suite struct CardMaskingTests {
    /// How many digits of an n-digit number are shown: first six and last four from 13 on,
    /// never more than half below.
    @Test(arguments: [
        (19, 6, 4), (16, 6, 4), (15, 6, 4), (13, 6, 4), (12, 2, 4), (11, 1, 4), (10, 1, 4),
        (9, 0, 4), (8, 0, 4), (6, 0, 3), (4, 0, 2), (1, 0, 0), (0, 0, 0),
    ])
    func shownDigits(count: Int, first: Int, last: Int) {
        let shown = CardPolicy.shownDigits(count: count)
        #expect(shown.first == first && shown.last == last)
        #expect(count < 13 ? shown.first + shown.last <= count / 2 : shown.first + shown.last <= 10)
    }

    /// A number known as digits, masked whole.
    @Test(arguments: [
        ("4111111111111111", "411111••••••1111"),
        ("378282246310005", "378282•••••0005"),
        ("4222222222222", "422222•••2222"),
        ("501800000009", "50••••••0009"),  // 12-digit Maestro: 6 of 12, not 10
        ("4111111111111111110", "411111•••••••••1110"),
        ("1234567890", "1•••••7890"),
        ("41111111", "••••1111"),
    ])
    func maskedDigits(number: String, masked: String) {
        let digits = number.utf8.map { $0 - 48 }
        #expect(CardNumber.masked(digits) == masked)
        #expect(CardNumber.masked(digits, mask: "*") == masked.replacingBullets(with: "*"))
        // A field's grouped text, masked as one number, agrees.
        #expect(
            CardNumber.maskingNumber(in: CardPolicy.grouped(digits, groups: [4, 4, 4, 4])).filter { $0 != " " }
                == masked)
    }

    /// Card numbers in free text.
    @Test(arguments: [
        // A CVV and an expiry after the number are masked, however they are written.
        (":4111111111111111 12/30 987", ":411111••••••1111 ••/•• •••"),
        ("4111111111111111,12/30,987", "411111••••••1111,••/••,•••"),
        ("4111111111111111 1230", "411111••••••1111 ••••"),
        ("4111 1111 1111 1111 98", "4111 11•• •••• 1111 ••"),
        // 16 and 19 digits both pass the Luhn check: where the number ends is not known.
        ("4111 1111 1111 1111 987", "4111 11•• •••• •••• •••"),
        ("987 4111111111111111", "••• 411111••••••1111"),
        // 12-, 13-, 15-, 16-, 19- and 10-digit numbers.
        ("card 501800000009", "card 50••••••0009"),
        ("4222222222222", "422222•••2222"),
        ("3782 822463 10005", "3782 82•••• •0005"),
        ("4111-1111-1111-1111", "4111-11••-••••-1111"),
        ("4111.1111.1111.1111", "4111.11••.••••.1111"),
        ("5-5.55555.5.55.554-44/4", "•-•.•••••.•.••.•••-••/•"),
        ("4111111111111111110", "411111•••••••••1110"),
        ("call 1234567890", "call 1•••••7890"),
        // Line numbers, dates, expiries and card indexes are not numbers.
        ("line 12: 4111111111111111", "line 12: 411111••••••1111"),
        ("script.session:12:5: error: @today 2026-11", "script.session:12:5: error: @today 2026-11"),
        ("due 2026-11-25, card 12/30, :use 2", "due 2026-11-25, card 12/30, :use 2"),
        ("paid 25/11/2026", "paid 25/11/2026"),
        ("4111111111111111 line 12", "411111••••••1111 line 12"),
        // Several numbers in one text.
        ("4111111111111111 and 5555 5555 5555 4444", "411111••••••1111 and 5555 55•• •••• 4444"),
        (
            "got \":use 5555555555554444\", expected \":use 4111111111111111\"",
            "got \":use 555555••••••4444\", expected \":use 411111••••••1111\""
        ),
    ])
    func maskingText(text: String, masked: String) {
        #expect(CardNumber.maskingDigits(in: text) == masked)
        #expect(CardNumber.maskingDigits(in: masked) == masked, "masking is idempotent")
    }

    /// Issue 36 item 4: a number typed with its groups joined by several spaces, commas or other
    /// punctuation, or with letters between its digits, is masked as a number: no more than its
    /// first six and last four digits are shown.
    @Test(arguments: [
        (":4256  9674  1851  8869", ":4256  96••  ••••  8869"),
        (":4256,9674,1851,8869", ":4256,96••,••••,8869"),
        (":a4256967b418518869", ":a425696•b•••••8869"),
        ("unknown command ':4256 , 9674 ; 1851 : 8869'", "unknown command ':4256 , 96•• ; •••• : 8869'"),
        ("4256_9674_1851_8869 12/30", "4256_96••_••••_8869 ••/••"),
        // 16 and 19 digits both pass the Luhn check: where the number ends is not known.
        ("4256  9674  1851  8869  123", "4256  96••  ••••  ••••  •••"),
        // Still not numbers: line numbers, times, dates, expiries, a location before a number.
        ("line 12: 4256  9674  1851  8869", "line 12: 4256  96••  ••••  8869"),
        ("file.session:12:5: at 12:30, 2026-11-25", "file.session:12:5: at 12:30, 2026-11-25"),
        ("due 2026-11-25, card 12/30, :use 2; at 12:30", "due 2026-11-25, card 12/30, :use 2; at 12:30"),
    ])
    func looselyWrittenNumbers(text: String, masked: String) {
        #expect(CardNumber.maskingDigits(in: text) == masked)
        #expect(CardNumber.maskingDigits(in: masked) == masked, "masking is idempotent")
    }

    /// Whatever joins the groups of a number, or stands among its digits, no masked text shows
    /// more than six and four of its digits, nor its middle.
    @Test func noSeparatorShowsTheMiddle() {
        let groups = ["4256", "9674", "1851", "8869"]
        for separator in [
            "  ", ",", ", ", ";", ":", "_", "|", " - ", "+", "#", "=", "~", "*", "'", "\"", "(", ") (", "x", " x ",
        ] {
            for text in [
                ":" + groups.joined(separator: separator),
                "error: " + groups.joined(separator: separator) + " 12/30 987",
            ] {
                let masked = CardNumber.maskingDigits(in: text)
                let shown = masked.filter(\.isASCIIDigit)
                #expect(shown.count <= 10, "\(text) → \(masked)")
                #expect(
                    !shown.contains("741851") && !masked.contains("1851") && !masked.contains("987"),
                    "\(text) → \(masked)")
            }
        }
        // Letters among the digits, one at a time, anywhere.
        let number = Array("4256967418518869")
        for at in 1..<number.count {
            let text = ":" + String(number[..<at]) + "q" + String(number[at...])
            let masked = CardNumber.maskingDigits(in: text)
            #expect(masked.filter(\.isASCIIDigit).count <= 10, "\(text) → \(masked)")
        }
    }

    /// The line a field leaves on screen, and the transcript's, mask the number as one number
    /// (12 digits typed: 2 + 4 shown, not 10).
    @Test func theFieldLineIsMaskedAsOneNumber() {
        var engine = BundledRules.engine()
        _ = engine.type("411111111111")
        #expect(engine.view.maskedText == "41•• •••• 1111")
        #expect(engine.view.maskedText(mask: "*") == "41** **** 1111")
        #expect(engine.view.transcriptLine.contains("): 41•• •••• 1111  [VISA 12/16]"))
    }

    /// A 12-digit card in the tray, its JSON and its description: 2 + 4 digits shown.
    @Test func aTwelveDigitCardShowsHalf() throws {
        let maestro = try #require(BundledRules.set.networks.first { $0.id == "maestro" })
        let card = PaymentCard(
            network: maestro, numberDigits: digits("501800000009"), expiry: YearMonth(year: 2030, month: 12),
            securityCodeDigits: digits("123"))
        #expect(card.maskedNumber == "50••••••0009")
        #expect(card.description.contains("50••••••0009"))
        var json: [UInt8] = []
        card.appendJSON(to: &json)
        #expect(String(decoding: json, as: UTF8.self).contains(#""masked":"50******0009""#))
        var tray = CardTray()
        tray.add(card.trayEntry)
        #expect(tray[0] == card.trayEntry)
        #expect(tray[0].maskedNumber == "50••••••0009" && tray[0].lastFour == "0009")
    }

    /// No masked text keeps a digit of the CVV or more than ten digits of a number.
    @Test func neverTheCodeNorTheMiddle() {
        for separator in [" ", ",", "  ", " / ", "-"] {
            for expiry in ["12/30", "1230", "12 30"] {
                let text = ":4111111111111111\(separator)\(expiry)\(separator)987"
                let masked = CardNumber.maskingDigits(in: text)
                #expect(!masked.contains("987") && !masked.contains("11111111"), "\(text) → \(masked)")
                #expect(masked.filter(\.isASCIIDigit).count <= 10, "\(text) → \(masked)")
            }
        }
    }

    /// The one function for text from outside: numbers masked, controls and bidi controls escaped.
    @Test func outsideText() {
        #expect("a\u{1B}]52;c;aGk=\u{7}b".escapingControlCharacters == "a\\u{1B}]52;c;aGk=\\u{7}b")
        #expect("abc\u{202E}fed".escapingControlCharacters == "abc\\u{202E}fed")
        for bidi: UInt32 in [
            0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
        ] {
            let text = "x" + String(Unicode.Scalar(bidi)!) + "y"
            #expect(text.escapingControlCharacters == "x\\u{\(String(bidi, radix: 16, uppercase: true))}y")
        }
        #expect("\u{9B}31m".escapingControlCharacters == "\\u{9B}31m")
        #expect("Card for 4111111111111111\u{202E}".escapingControlCharacters == "Card for 411111••••••1111\\u{202E}")
        #expect(
            "one\ntwo 4111111111111111".escapingControlCharacters(keepingLineBreaks: true)
                == "one\ntwo 411111••••••1111")
        #expect("one\ntwo".escapingControlCharacters == "one\\ntwo")
        #expect("plain café".escapingControlCharacters == "plain café")
        // JSON strings escape them too (\u, as JSON spells it).
        #expect("a\u{202E}\u{9B}b".jsonQuoted == "\"a\\u202e\\u009bb\"")
    }
}

extension String {
    func replacingBullets(with mark: Character) -> String { String(map { $0 == "•" ? mark : $0 }) }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

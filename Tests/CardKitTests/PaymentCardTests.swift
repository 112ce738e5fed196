import CardKit
import Foundation
import Testing

/// The whole card handed to a caller: its JSON, masked descriptions, and wiping.
@Suite struct PaymentCardTests {
    static func card() -> PaymentCard {
        PaymentCard(
            network: BundledRules.set.network(id: "visa")!, numberDigits: digits("4111111111111111"),
            expiry: YearMonth(year: 2030, month: 12), securityCodeDigits: digits("987"))
    }

    @Test func jsonCarriesTheWholeCard() throws {
        var bytes: [UInt8] = []
        Self.card().appendJSON(to: &bytes)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["network"] as? String == "visa")
        #expect(object["network_name"] as? String == "Visa")
        #expect(object["family"] as? String == "visa")
        #expect(object["also_networks"] as? [String] == [])
        #expect(object["entry"] as? String == "keyed")
        #expect(object["number"] as? String == "4111111111111111")
        #expect(object["cvv"] as? String == "987")
        #expect(object["last4"] as? String == "1111")
        #expect(object["masked"] as? String == "411111******1111")
        let expiry = try #require(object["expiry"] as? [String: Int])
        #expect(expiry == ["month": 12, "year": 2030])
        #expect(!bytes.contains(UInt8(ascii: "\n")), "one line")
        #expect(bytes.count == Self.card().jsonLength, "the buffer is sized once, exactly")
    }

    /// The card record's members in their one order (`CardRecord`), for `--print`, for the
    /// clear members beside a sealed card and for `replay --json`'s cards.
    @Test func membersComeInTheRecordsOrder() {
        var card = Self.card()
        card.holderName = "Jane Doe"
        card.postalCode = "94105"
        func members(_ which: PaymentCard.JSONMembers) -> String {
            var bytes: [UInt8] = []
            card.appendJSONMembers(which, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        let networks = #""network":"visa","network_name":"Visa","family":"visa","also_networks":[]"#
        #expect(
            members(.all)
                == networks
                + #","number":"4111111111111111","masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"cvv":"987","entry":"keyed","holder_name":"Jane Doe","postal_code":"94105""#
        )
        #expect(
            members(.masked)
                == networks
                + #","masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"entry":"keyed","holder_name":"Jane Doe","postal_code":"94105""#
        )
        #expect(members(.clear) == networks + #","last4":"1111","expiry":{"month":12,"year":2030},"entry":"keyed""#)
        card.isSecurityCodeOnly = true
        #expect(members(.all) == networks + #","cvv":"987","holder_name":"Jane Doe","postal_code":"94105""#)
        #expect(members(.clear) == networks)
    }

    @Test func everyDescriptionIsMasked() {
        let card = Self.card()
        var dumped = ""
        dump(card, to: &dumped)
        for text in ["\(card)", String(reflecting: card), dumped] {
            #expect(!text.contains("4111111111111111"), "\(text)")
            #expect(!text.contains("987"), "\(text)")
            #expect(text.contains("411111••••••1111"), "\(text)")
        }
    }

    @Test func wipeOverwritesTheDigitsInPlace() {
        var card = Self.card()
        let number = card.numberDigits.withUnsafeBufferPointer { $0.baseAddress! }
        let code = card.securityCodeDigits.withUnsafeBufferPointer { $0.baseAddress! }
        card.wipe()
        #expect(card.numberDigits.isEmpty && card.securityCodeDigits.isEmpty)
        // The storage is kept (emptied, not freed), so it can be read back: all zeros.
        #expect(card.numberDigits.withUnsafeBufferPointer { $0.baseAddress } == number)
        #expect((0..<16).allSatisfy { number[$0] == 0 })
        #expect((0..<3).allSatisfy { code[$0] == 0 })
    }

    @Test func wipeEmptiesTheNameAndPostalCodeToo() {
        var card = Self.card()
        card.holderName = "Ada Lovelace"
        card.postalCode = "K1A 0B1"
        #expect(card.holderName == "Ada Lovelace" && card.postalCode == "K1A 0B1")
        card.wipe()
        #expect(card.holderName == "" && card.postalCode == "")
        var unnamed = Self.card()
        unnamed.wipe()
        #expect(unnamed.holderName == nil && unnamed.postalCode == nil, "not asked for stays nil")
    }

    @Test func theEngineOverwritesItsDigitsOnceTheCardIsAccepted() {
        var engine = BundledRules.engine()
        engine.type("4111111111111111" + "1230" + "987")
        let number = engine.numberDigits.withUnsafeBufferPointer { $0.baseAddress! }
        let code = engine.cvvDigits.withUnsafeBufferPointer { $0.baseAddress! }
        #expect(number[0] == 4 && code[0] == 9)
        guard case .accepted(let card) = engine.handle(.enter).event else {
            Issue.record("not accepted")
            return
        }
        #expect(card.number == "4111111111111111", "the card keeps its own copy")
        #expect(engine.numberDigits.withUnsafeBufferPointer { $0.baseAddress } == number, "same storage")
        #expect((0..<16).allSatisfy { number[$0] == 0 })
        #expect((0..<3).allSatisfy { code[$0] == 0 })
    }

    @Test func cancelAndBackspaceOverwriteToo() {
        var engine = BundledRules.engine()
        engine.type("41111111")
        let number = engine.numberDigits.withUnsafeBufferPointer { $0.baseAddress! }
        _ = engine.handle(.backspace)
        #expect(number[7] == 0 && number[6] == 1)
        _ = engine.handle(.cancel)
        #expect((0..<8).allSatisfy { number[$0] == 0 })
    }
}

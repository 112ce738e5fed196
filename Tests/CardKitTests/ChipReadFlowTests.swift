import CardChip
import CardKit
import Testing

/// BER-TLV, data object lists and the chip read flow (`CardChip`), driven against test cards
/// (`TestCard`), and the engine taking a chip read (`Key.chip`).
@Suite struct ChipReadFlowTests {
    typealias Card = TestCard

    // MARK: - BER-TLV

    @Test func readsMultiByteTagsLongLengthsAndPadding() throws {
        let long = [UInt8](repeating: 0x41, count: 300)
        let bytes: [UInt8] =
            [0x00, 0xFF] + Card.tlv(0x9F6B, [1, 2]) + Card.tlv(0x5F20, Array(long.prefix(200)))
            + Card.tlv(0x70, long) + [0x00]
        let elements = try BERTLV.elements(of: bytes, in: bytes.indices)
        #expect(elements.map(\.tag) == [0x9F6B, 0x5F20, 0x70])
        #expect(elements.map(\.value.count) == [2, 200, 300])
        #expect(Array(bytes[4..<5]) == [0x02], "9F6B's one-byte length")
        #expect(bytes[elements[1].value.lowerBound - 2] == 0x81, "200 bytes take an 81 length")
        #expect(bytes[elements[2].value.lowerBound - 3] == 0x82, "300 bytes take an 82 length")
        #expect(elements[2].isConstructed && !elements[0].isConstructed)
    }

    @Test func findsTagsInsideConstructedValues() throws {
        let bytes = Card.tlv(
            0x6F, Card.tlv(0x84, [1]) + Card.tlv(0xA5, Card.tlv(0xBF0C, Card.tlv(0x61, Card.tlv(0x4F, [7, 7])))))
        let found = try #require(try BERTLV.first(0x4F, in: bytes, range: bytes.indices))
        #expect(Array(bytes[found.value]) == [7, 7])
        #expect(try BERTLV.first(0x5A, in: bytes, range: bytes.indices) == nil)
    }

    @Test(
        arguments: [
            ([0x5A, 0x05, 0x01], BERTLV.Problem.truncated), ([0x9F], .truncated), ([0x5A, 0x81], .truncated),
            ([0x5A, 0x83, 0, 0, 1, 0], .unsupportedLength), ([0x5A, 0x80], .unsupportedLength),
            ([0x9F, 0x81, 0x81, 0x01, 0x00], .tagTooLong),
        ] as [([UInt8], BERTLV.Problem)])
    func refusesMalformedTLV(bytes: [UInt8], problem: BERTLV.Problem) {
        #expect(throws: problem) { try BERTLV.elements(of: bytes, in: bytes.indices) }
    }

    @Test func boundsTheDepthOfASearch() {
        var bytes = Card.tlv(0x5A, [1])
        for _ in 0..<20 { bytes = Card.tlv(0x70, bytes) }
        #expect(throws: BERTLV.Problem.tooDeep) { try BERTLV.first(0x5A, in: bytes, range: bytes.indices) }
    }

    // MARK: - Data object lists

    @Test func fillsADOLInOrderEachTagAsOftenAsListed() throws {
        let dol = Card.hex("9F66 04 9A 03 9F02 06 DF01 02 9A 03 5F2A 01 9F37 04")
        let entries = try #require(DataObjectList.entries(of: dol, in: dol.indices))
        #expect(entries.map(\.tag) == [0x9F66, 0x9A, 0x9F02, 0xDF01, 0x9A, 0x5F2A, 0x9F37])
        let filled = try #require(DataObjectList.fill(entries, with: Card.terminal))
        #expect(
            Hex.string(filled) == "F620C000" + "261105" + "000000000100" + "0000" + "261105" + "78" + "01020304",
            "numeric values cut on the left; an unknown tag zeros")
    }

    @Test func refusesADOLCutShortOrTooLong() {
        let cut = Card.hex("9F66")
        #expect(DataObjectList.entries(of: cut, in: cut.indices) == nil)
        let entries = Array(repeating: DataObjectList.Entry(tag: 0x9F66, length: 200), count: 2)
        #expect(DataObjectList.fill(entries, with: Card.terminal) == nil)
    }

    // MARK: - The flow

    static func application(_ step: ChipReadFlow.Step) -> ChipApplication? {
        guard case .read(let card) = step else { return nil }
        return card.applications.first
    }

    @Test func readsAVisaCardThroughThePSEAndItsRecords() throws {
        var card = Card.visaContact()
        let read = try #require(Self.application(card.read()))
        #expect(read.numberDigits == digits("4111111111111111"))
        #expect((read.expiryMonth, read.expiryYear) == (12, 30))
        #expect(read.holderName == "ADA LOVELACE")
        #expect(read.panSequence == 1)
        #expect(read.label == "VISA CREDIT" && read.priority == 1 && read.aidHex == "A0000000031010")
        #expect(card.commands.first.map(Hex.string) == Card.select(Card.pse))
        #expect(card.commands.contains { $0.starts(with: [0x80, 0xA8]) }, "GET PROCESSING OPTIONS sent")
        #expect(
            !card.commands.contains { $0.starts(with: [0x80, 0xAE]) || $0.starts(with: [0x00, 0x20]) },
            "never GENERATE AC or VERIFY")
        var dumped = ""
        dump(read, to: &dumped)
        for text in ["\(read)", String(reflecting: read), dumped] {
            #expect(!text.contains("411111") && !text.contains("1111 "), "described without the number: \(text)")
        }
    }

    @Test func aT0CardsGetResponseAndWrongLengthAnswersGiveTheSameCard() throws {
        var card = Card.visaContact()
        card.t0 = true
        let read = try #require(Self.application(card.read()))
        #expect(read.numberDigits == digits("4111111111111111") && read.panSequence == 1)
        #expect(card.commands.contains { $0.starts(with: [0x00, 0xC0, 0x00, 0x00]) }, "GET RESPONSE sent")
    }

    @Test func aWrongLengthAnswerIsSentAgainWithTheLengthTheCardSays() throws {
        var card = Card.visaContact()
        // The card wants Le 0x20 for its directory's first record: 6C20 to Le 00.
        let record = Card.readRecord(sfi: 1, 1)
        let answer = card.answers[record]!
        card.answers[record] = [0x6C, UInt8(answer.count - 2)]
        card.answers[String(record.dropLast(2)) + Hex.string([UInt8(answer.count - 2)])] = answer
        let read = try #require(Self.application(card.read()))
        #expect(read.label == "VISA CREDIT")
    }

    @Test func aCardPulledBetweenTwoRecordsIsNotRead() {
        var card = Card.visaContact()
        let full = card.read()
        guard case .read = full else {
            Issue.record("the whole card reads")
            return
        }
        var pulled = Card.visaContact()
        pulled.pulledAfter = card.commands.count - 1  // the last record never answers
        #expect(pulled.read() == .failed(.noAnswer))
    }

    static func mastercardContactless(aid: String = "A0000000041010") -> Card {
        var card = Card()
        card.answers[Card.select(Card.ppse)] = Card.ok(
            Card.tlv(
                0x6F,
                Card.tlv(0x84, Card.ppse)
                    + Card.tlv(0xA5, Card.tlv(0xBF0C, Card.directoryEntry(aid, label: "MASTERCARD", priority: 1)))))
        card.answers[Card.select(Card.hex(aid))] = Card.ok(Card.fci(aid, label: "MASTERCARD"))
        card.processingOptions[aid] = { values in
            values.isEmpty
                ? Card.ok(
                    Card.tlv(
                        0x77,
                        Card.tlv(0x82, [0x19, 0x80])
                            + Card.tlv(0x9F6B, Card.track2("5555555555554444", yymm: "2812")) + Card.tlv(0x5F34, [0x02])
                    ))
                : [0x67, 0x00]
        }
        return card
    }

    @Test func readsAContactlessMastercardFromItsFormat2Answer() throws {
        var card = Self.mastercardContactless()
        let read = try #require(Self.application(card.read()))
        #expect(read.numberDigits == digits("5555555555554444"))
        #expect((read.expiryMonth, read.expiryYear) == (12, 28))
        #expect(read.holderName == nil && read.panSequence == 2)
        #expect(card.commands.prefix(2).map(Hex.string) == [Card.select(Card.pse), Card.select(Card.ppse)])
    }

    @Test func nineF6BIsTrack2OnlyUnderAMastercardAID() {
        var card = Self.mastercardContactless(aid: "A0000000031010")
        #expect(card.read() == .failed(.noApplication), "for Visa, 9F6B is the CVM limit")
    }

    static func amex() -> Card {
        var card = Card()
        let aid = "A00000002501"
        let pdol = Card.hex("9F35 01 9F6E 04 9F37 04")
        card.answers[Card.select(Card.hex(aid))] = Card.ok(Card.fci(aid, label: "AMERICAN EXPRESS", pdol: pdol))
        card.processingOptions[aid] = { values in
            guard values.count == 9, values[0] == 0x22, values[1..<5] != [0, 0, 0, 0] else { return [0x69, 0x85] }
            return Card.ok(Card.tlv(0x80, Card.hex("1980 08010100")))
        }
        card.answers[Card.readRecord(sfi: 1, 1)] = Card.ok(
            Card.tlv(0x70, Card.tlv(0x5A, Card.pan("378282246310005")) + Card.tlv(0x5F24, Card.hex("291130"))))
        return card
    }

    @Test func anAmexWithoutADirectoryIsFoundByItsAIDAndGetsTerminalValues() throws {
        var card = Self.amex()
        let read = try #require(Self.application(card.read()))
        #expect(read.numberDigits == digits("378282246310005") && (read.expiryMonth, read.expiryYear) == (11, 29))
        #expect(
            card.commands.contains { Hex.string($0) == Card.select(Card.hex("A0000000031010")) }, "Visa tried first")
    }

    @Test func aCoBadgedCardGivesBothApplicationsByPriority() throws {
        var card = Card()
        let entries =
            Card.directoryEntry("A0000000031010", label: "VISA", priority: 2)
            + Card.directoryEntry("A0000000421010", label: "CB", priority: 1)
        card.answers[Card.select(Card.ppse)] = Card.ok(
            Card.tlv(0x6F, Card.tlv(0x84, Card.ppse) + Card.tlv(0xA5, Card.tlv(0xBF0C, entries))))
        for (aid, label) in [("A0000000031010", "VISA"), ("A0000000421010", "CB")] {
            card.answers[Card.select(Card.hex(aid))] = Card.ok(Card.fci(aid, label: label))
            card.processingOptions[aid] = { _ in
                Card.ok(
                    Card.tlv(
                        0x77, Card.tlv(0x82, [0, 0]) + Card.tlv(0x57, Card.track2("4035501000000008", yymm: "3001"))))
            }
        }
        guard case .read(let read) = card.read() else {
            Issue.record("not read")
            return
        }
        #expect(read.applications.map(\.label) == ["CB", "VISA"])
        var engine = BundledRules.engine()
        #expect(engine.handle(.chip(read)).refusal == nil)
        #expect(engine.network?.id == "cartes-bancaires", "preselected by the card's priority")
        #expect(engine.handle(.nextNetwork).refusal == nil)
        #expect(engine.network?.id == "visa", "Ctrl-N chooses the other")
    }

    @Test func statusWordsThatEndTheFlow() {
        var none = Card()
        #expect(none.read() == .failed(.noApplication), "6A82 to every AID")
        var blocked = Card()
        blocked.answers[Card.select(Card.hex("A0000000031010"))] = [0x6A, 0x81]
        #expect(blocked.read() == .failed(.blocked))
        var refused = Self.amex()
        refused.processingOptions["A00000002501"] = { _ in [0x69, 0x85] }
        #expect(refused.read() == .failed(.noApplication), "6985 to GET PROCESSING OPTIONS")
        var mute = Card()
        mute.pulledAfter = 0
        #expect(mute.read() == .failed(.noAnswer))
    }

    @Test func garbageAnswersEndInAFailureNotACrash() {
        var card = Card.visaContact()
        card.answers[Card.readRecord(sfi: 2, 2)] = Card.ok([0x70, 0x82, 0xFF, 0xFF, 0x5A])
        card.answers[Card.readRecord(sfi: 2, 1)] = Card.ok([0x70, 0x03, 0x9F, 0x81, 0x81])
        #expect(card.read() == .failed(.noApplication))
    }

    @Test func contactlessATRs() {
        #expect(ChipCard.isContactless(atr: Card.hex("3B8F8001804F0CA0000003060300030000000068")))
        #expect(!ChipCard.isContactless(atr: Card.hex("3B6800000073C84013009000")))
        #expect(!ChipCard.isContactless(atr: [0x3B]))
    }

    // MARK: - The engine

    static func chipCard(_ card: TestCard = Card.visaContact(), contactless: Bool = false) -> ChipCard? {
        var card = card
        guard case .read(var read) = card.read(known: BundledRules.set.knownAIDs) else { return nil }
        read.contactless = contactless
        return read
    }

    @Test func theEngineTakesAChipReadAsASwipeAndDeliversItsEntry() throws {
        var engine = BundledRules.engine()
        let outcome = engine.handle(.chip(Self.chipCard()))
        #expect(outcome.refusal == nil)
        #expect(engine.field == .cvv && engine.numberDigits == digits("4111111111111111"))
        engine.type("123")
        let accepted = engine.handle(.enter)
        guard case .accepted(let card) = accepted.event else {
            Issue.record("not accepted")
            return
        }
        var json: [UInt8] = []
        card.appendJSON(to: &json)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.hasSuffix(#""entry":"chip","pan_sequence":1}"#), "\(card)")
        var tapped = BundledRules.engine()
        _ = tapped.handle(.chip(Self.chipCard(Self.mastercardContactless(), contactless: true)))
        tapped.type("123")
        guard case .accepted(let contactless) = tapped.handle(.enter).event else {
            Issue.record("not accepted")
            return
        }
        #expect(contactless.entry == .contactless && contactless.panSequence == 2 && contactless.chip == nil)
    }

    @Test func theEngineRefusesAChipReadAsItRefusesASwipe() throws {
        var engine = BundledRules.engine()
        #expect(
            engine.handle(.chip(nil)).refusal?.text
                == "couldn't read the chip — insert it again, swipe or type the number")
        #expect(engine.cardIsEmpty)
        let expired = Self.chipCard(Card.visaContact(expiry: "250930"))
        #expect(engine.handle(.chip(expired)).refusal?.text == "the card read from the chip expired in 09/25")
        #expect(engine.cardIsEmpty)
        var mastercardOnly = EntryEngine(
            rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            acceptedNetworks: try AcceptedNetworks.parse("mastercard", in: BundledRules.set))
        let refusal = mastercardOnly.handle(.chip(Self.chipCard())).refusal?.text
        #expect(refusal?.contains("Visa") == true, "\(refusal ?? "")")
        #expect(mastercardOnly.cardIsEmpty)
        engine.type("4")
        #expect(engine.handle(.chip(Self.chipCard())).refusal != nil, "only at an empty number")
        #expect(engine.numberDigits == [4])
    }
}

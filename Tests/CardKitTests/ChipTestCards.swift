import CardChip

/// Cards for the chip tests: each answers command APDUs as a card would, so `ChipReadFlow`
/// can be driven end to end without a reader (`read(_:)`).
struct TestCard {
    /// Answers by the command's hex (upper case), data and status word together.
    var answers: [String: [UInt8]] = [:]
    /// The answer to GET PROCESSING OPTIONS of the application last selected (by AID hex),
    /// given the PDOL values sent.
    var processingOptions: [String: ([UInt8]) -> [UInt8]] = [:]
    /// T=0: every answer with data comes as `61xx`, then GET RESPONSE.
    var t0 = false
    /// Goes silent (empty answers) after this many commands.
    var pulledAfter: Int?
    private(set) var commands: [[UInt8]] = []
    private var selected = ""
    private var waiting: [UInt8] = []

    mutating func answer(_ command: [UInt8]) -> [UInt8] {
        commands.append(command)
        if let pulledAfter, commands.count > pulledAfter { return [] }
        if t0, command.count == 5, command[0...3] == [0x00, 0xC0, 0x00, 0x00] {
            guard Int(command[4]) == waiting.count else { return [0x6C, UInt8(waiting.count)] }
            defer { waiting = [] }
            return waiting + [0x90, 0x00]
        }
        var whole: [UInt8]
        if command.starts(with: [0x80, 0xA8]) {
            let values = Array(command.dropFirst(7).dropLast())
            whole = processingOptions[selected]?(values) ?? [0x69, 0x85]
        } else {
            whole = answers[Hex.string(command)] ?? [0x6A, 0x82]
            if command.starts(with: [0x00, 0xA4, 0x04, 0x00]), whole.suffix(2) == [0x90, 0x00] {
                selected = Hex.string(command.dropFirst(5).dropLast())
            }
        }
        if t0, whole.count > 2 {
            waiting = Array(whole.dropLast(2))
            return [0x61, UInt8(waiting.count)]
        }
        return whole
    }

    /// Runs the flow against this card to its end.
    mutating func read(known: [ChipReadFlow.KnownAID] = TestCard.known, limit: Int = 1000) -> ChipReadFlow.Step {
        var flow = ChipReadFlow(known: known, terminal: TestCard.terminal)
        var step = flow.start()
        for _ in 0..<limit {
            guard case .send(let command) = step else { return step }
            step = flow.take(answer(command))
        }
        return step
    }

    static let terminal = TerminalValues(year: 2026, month: 11, day: 5, unpredictableNumber: [1, 2, 3, 4])
    static let known: [ChipReadFlow.KnownAID] = [
        .init(aid: hex("A0000000031010"), networkID: "visa"),
        .init(aid: hex("A0000000041010"), networkID: "mastercard"),
        .init(aid: hex("A00000002501"), networkID: "american-express"),
    ]

    // MARK: - Builders

    static func hex(_ text: String) -> [UInt8] { Hex.bytes(text.filter { $0 != " " })! }

    static func tlv(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        if tag > 0xFFFF { out.append(UInt8(tag >> 16)) }
        if tag > 0xFF { out.append(UInt8(tag >> 8 & 0xFF)) }
        out.append(UInt8(tag & 0xFF))
        if value.count < 0x80 {
            out.append(UInt8(value.count))
        } else if value.count < 0x100 {
            out += [0x81, UInt8(value.count)]
        } else {
            out += [0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
        }
        return out + value
    }

    static func ok(_ data: [UInt8]) -> [UInt8] { data + [0x90, 0x00] }
    static func select(_ name: [UInt8]) -> String {
        Hex.string([0x00, 0xA4, 0x04, 0x00, UInt8(name.count)] + name + [0])
    }
    static func readRecord(sfi: UInt8, _ record: UInt8) -> String { Hex.string([0x00, 0xB2, record, sfi << 3 | 4, 0]) }
    static let pse = Array("1PAY.SYS.DDF01".utf8)
    static let ppse = Array("2PAY.SYS.DDF01".utf8)

    static func directoryEntry(_ aid: String, label: String, priority: UInt8?) -> [UInt8] {
        tlv(0x61, tlv(0x4F, hex(aid)) + tlv(0x50, Array(label.utf8)) + (priority.map { tlv(0x87, [$0]) } ?? []))
    }
    static func fci(_ aid: String, label: String, pdol: [UInt8]? = nil) -> [UInt8] {
        tlv(0x6F, tlv(0x84, hex(aid)) + tlv(0xA5, tlv(0x50, Array(label.utf8)) + (pdol.map { tlv(0x9F38, $0) } ?? [])))
    }
    /// `5A` of a number: its digits in nibbles, `F` after an odd count.
    static func pan(_ number: String) -> [UInt8] {
        let digits = number.compactMap { $0.hexDigitValue.map(UInt8.init) } + (number.count % 2 == 1 ? [0xF] : [])
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
    static func track2(_ number: String, yymm: String) -> [UInt8] {
        let text = number + "D" + yymm + "201" + "0000000000"
        return pan(text.count % 2 == 1 ? text + "F" : text)
    }

    /// A Visa card read by contact: the PSE names one application; its records hold `5A`,
    /// `5F24`, `5F20`, `5F34`.
    static func visaContact(number: String = "4111111111111111", expiry: String = "301231") -> TestCard {
        var card = TestCard()
        card.answers[select(pse)] = ok(tlv(0x6F, tlv(0x84, pse) + tlv(0xA5, tlv(0x88, [1]))))
        card.answers[readRecord(sfi: 1, 1)] = ok(
            tlv(0x70, directoryEntry("A0000000031010", label: "VISA", priority: 1)))
        card.answers[readRecord(sfi: 1, 2)] = [0x6A, 0x83]
        let pdol = hex("9F66 04 9F02 06 9F37 04 5F2A 02 9A 03 9A 03")
        card.answers[select(hex("A0000000031010"))] = ok(fci("A0000000031010", label: "VISA CREDIT", pdol: pdol))
        card.processingOptions["A0000000031010"] = { values in
            values.count == 4 + 6 + 4 + 2 + 3 + 3 ? ok(tlv(0x80, hex("1C00 10010200"))) : [0x67, 0x00]
        }
        card.answers[readRecord(sfi: 2, 1)] = ok(
            tlv(
                0x70,
                tlv(0x57, track2(number, yymm: String(expiry.prefix(4)))) + tlv(0x5F20, Array("LOVELACE/ADA".utf8))))
        card.answers[readRecord(sfi: 2, 2)] = ok(
            tlv(0x70, tlv(0x5A, pan(number)) + tlv(0x5F24, hex(expiry)) + tlv(0x5F34, [0x01])))
        return card
    }
}

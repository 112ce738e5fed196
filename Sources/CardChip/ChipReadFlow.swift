/// Reading a payment card's chip, as a state machine with no I/O: it says which command to
/// send (`start()`), takes the card's answer (`take(_:)`) and says the next command, until the
/// card is read (`Step.read`) or cannot be (`Step.failed`). The PC/SC transport, `.session`
/// replay, the tests and the fuzzer all drive this one flow.
///
/// The flow (EMV Book 1 §12, as the public readers in EMV.md do it): SELECT the payment system
/// environment `1PAY.SYS.DDF01` and read its directory records; else SELECT `2PAY.SYS.DDF01`
/// (contactless) and take its directory; else SELECT each known AID in turn. Then for each
/// application, in the card's order of priority: SELECT it, GET PROCESSING OPTIONS with its
/// PDOL filled (`DataObjectList`), READ RECORD for each record its AFL names, and keep the
/// number (`5A`, else the track 2 equivalent `57`, else Mastercard's `9F6B`), the expiry
/// (`5F24`, else track 2's), the name (`5F20`) and the PAN sequence number (`5F34`). T=0's
/// `61xx` (more data: GET RESPONSE) and `6Cxx` (wrong length: send again with Le) are handled
/// here, below the flow. It never sends GENERATE AC or VERIFY.
///
/// Card answers are the caller's; it wipes them. The flow overwrites what it kept of them
/// (the applications' records) as soon as it has read the number and expiry out.
public struct ChipReadFlow: Sendable {
    /// A known application: its AID and the network whose rule file lists it.
    public struct KnownAID: Equatable, Sendable {
        public let aid: [UInt8]
        public let networkID: String
        public init(aid: [UInt8], networkID: String) {
            self.aid = aid
            self.networkID = networkID
        }
    }

    /// What to do next.
    public enum Step: Equatable, Sendable {
        /// Send this command APDU and hand the answer (data and status word) to `take(_:)`.
        case send([UInt8])
        /// The card is read: at least one application gave a number and an expiry.
        case read(ChipCard)
        /// The card could not be read.
        case failed(Failure)
    }

    /// Why a card could not be read. A person is told one message for all of them.
    public enum Failure: Error, Equatable, Sendable {
        /// An answer shorter than a status word: the card was pulled, or is mute.
        case noAnswer
        /// No application could be selected and read (6A82 for every AID, 6985 to every GPO, …).
        case noApplication
        /// The card answered 6A81 to a SELECT: blocked, or SELECT not supported.
        case blocked
        /// More exchanges than any card needs (`mostExchanges`).
        case tooManyExchanges
    }

    /// The most commands one read sends: a directory of 16 records, four applications of 32
    /// records each and their GET RESPONSEs fit well inside it.
    public static let mostExchanges = 400
    /// The most applications read from one card.
    public static let mostApplications = 4
    /// The most bytes kept from one answer chain (GET RESPONSE after GET RESPONSE).
    static let longestAnswer = 4096

    static let pse = Array("1PAY.SYS.DDF01".utf8)
    static let ppse = Array("2PAY.SYS.DDF01".utf8)
    /// Mastercard's registered application provider: `9F6B` is track 2 only under it (for
    /// Visa the same tag is the card's CVM limit).
    static let mastercardRID: [UInt8] = [0xA0, 0x00, 0x00, 0x00, 0x04]

    private enum Phase: Sendable {
        case selectPSE
        case readDirectory(sfi: UInt8, record: UInt8)
        case selectPPSE
        case selectKnown(index: Int)
        case selectCandidate(index: Int)
        case processingOptions(index: Int)
        case readRecord(index: Int, entry: Int, record: UInt8)
        case finished
    }

    /// An application listed by a directory, or found by SELECTing a known AID.
    private struct Candidate: Sendable {
        var aid: [UInt8]
        var label: String
        var priority: Int
    }

    private let known: [KnownAID]
    private let terminal: TerminalValues
    private var phase = Phase.selectPSE
    private var candidates: [Candidate] = []
    /// Whether the candidates came from SELECTing known AIDs (each already selected once).
    private var fromKnownAIDs = false
    private var applications: [ChipApplication] = []
    private var lastFailure = Failure.noApplication
    /// The command sent last (for `6Cxx`), and the data of a `61xx` chain so far.
    private var command: [UInt8] = []
    private var chained: [UInt8] = []
    private var exchanges = 0
    /// The AFL of the application being read: 4-byte entries.
    private var locator: [UInt8] = []
    /// What the application being read gave so far.
    private var found = Found()

    /// The data elements a read keeps, as their bytes (overwritten by `wipe()`).
    private struct Found: Sendable {
        var pan: [UInt8] = []
        var track2: [UInt8] = []
        var expiry: [UInt8] = []
        var name: [UInt8] = []
        var sequence: Int?
        var label = ""
        var priority = 0

        mutating func wipe() {
            pan.overwriteAndEmpty()
            track2.overwriteAndEmpty()
            expiry.overwriteAndEmpty()
            name.overwriteAndEmpty()
            sequence = nil
        }
    }

    /// A flow that knows `known` (the rules' `aids`, in order) and answers a PDOL with `terminal`.
    public init(known: [KnownAID], terminal: TerminalValues) {
        self.known = known
        self.terminal = terminal
    }

    /// Reads a card whose answers are `answers`, in the order the flow asks for them (a
    /// `.session` script's `@chip` and `@tap`); once they run out the card is gone. The
    /// terminal's values are fixed: an answer does not depend on them.
    public static func read(_ answers: [[UInt8]], known: [KnownAID], contactless: Bool) -> ChipCard? {
        var flow = ChipReadFlow(
            known: known, terminal: TerminalValues(year: 26, month: 1, day: 1, unpredictableNumber: [0, 0, 0, 0]))
        var step = flow.start()
        var next = 0
        while case .send = step {
            step = flow.take(next < answers.count ? answers[next] : [])
            next += 1
        }
        guard case .read(var card) = step else { return nil }
        card.contactless = contactless
        return card
    }

    /// The first command: SELECT the payment system environment.
    public mutating func start() -> Step {
        phase = .selectPSE
        return send(Self.select(Self.pse))
    }

    /// Takes the card's answer to the last command: its data and status word, as the reader
    /// gave them (an answer shorter than two bytes is a card that went away).
    public mutating func take(_ answer: [UInt8]) -> Step {
        guard case .finished = phase else { return takeAnswer(answer) }
        return .failed(.noAnswer)
    }

    private mutating func takeAnswer(_ answer: [UInt8]) -> Step {
        guard answer.count >= 2 else { return fail(.noAnswer) }
        let sw1 = answer[answer.count - 2]
        let sw2 = answer[answer.count - 1]
        if sw1 == 0x61 {  // T=0: more data waits; GET RESPONSE fetches it
            guard chained.count + answer.count <= Self.longestAnswer else { return fail(.noApplication) }
            chained.append(contentsOf: answer[..<(answer.count - 2)])
            return exchange([0x00, 0xC0, 0x00, 0x00, sw2])
        }
        if sw1 == 0x6C, !command.isEmpty {  // T=0: wrong Le; the card says the right one
            var again = command
            again[again.count - 1] = sw2
            return exchange(again)
        }
        var data = chained
        chained.overwriteAndEmpty()
        data.append(contentsOf: answer[..<(answer.count - 2)])
        defer { data.overwriteAndEmpty() }
        return handle(data, status: UInt16(sw1) << 8 | UInt16(sw2))
    }

    private mutating func handle(_ data: [UInt8], status: UInt16) -> Step {
        let ok = status == 0x9000
        switch phase {
        case .selectPSE:
            if ok, let sfi = try? BERTLV.first(0x88, in: data, range: data.indices),
                sfi.value.count == 1, (1...30).contains(data[sfi.value.lowerBound])
            {
                return readDirectory(sfi: data[sfi.value.lowerBound], record: 1)
            }
            if status == 0x6A81 { return fail(.blocked) }
            return selectPPSE()
        case .readDirectory(let sfi, let record):
            if ok {
                listApplications(in: data)
                if record < 16 { return readDirectory(sfi: sfi, record: record + 1) }
            }
            return candidates.isEmpty ? selectPPSE() : selectCandidate(0)
        case .selectPPSE:
            if ok { listApplications(in: data) }
            return candidates.isEmpty ? selectKnown(0) : selectCandidate(0)
        case .selectKnown(let index):
            if ok {
                fromKnownAIDs = true
                candidates.append(Candidate(aid: known[index].aid, label: "", priority: 0))
                return processingOptions(candidates.count - 1, fci: data)
            }
            if status == 0x6A81 { return fail(.blocked) }
            return selectKnown(index + 1)
        case .selectCandidate(let index):
            if ok { return processingOptions(index, fci: data) }
            if status == 0x6A81 { return fail(.blocked) }
            return next(after: index)
        case .processingOptions(let index):
            guard ok, readLocator(data) else { return next(after: index) }
            return readRecord(index, entry: 0, record: nil)
        case .readRecord(let index, let entry, let record):
            if ok { keep(data, under: 0x70) }
            return readRecord(index, entry: entry, record: record)
        case .finished:
            return .failed(lastFailure)
        }
    }

    // MARK: - Directories

    private mutating func readDirectory(sfi: UInt8, record: UInt8) -> Step {
        phase = .readDirectory(sfi: sfi, record: record)
        return exchange([0x00, 0xB2, record, sfi << 3 | 4, 0x00])
    }

    private mutating func selectPPSE() -> Step {
        phase = .selectPPSE
        return exchange(Self.select(Self.ppse))
    }

    /// Adds the directory entries (`61{4F AID, 50 label, 87 priority}`) of `data`.
    private mutating func listApplications(in data: [UInt8]) {
        guard let entries = try? BERTLV.all(0x61, in: data, range: data.indices) else { return }
        for entry in entries where candidates.count < 16 {
            guard let aid = try? BERTLV.first(0x4F, in: data, range: entry.value), (5...16).contains(aid.value.count)
            else { continue }
            let label = (try? BERTLV.first(0x50, in: data, range: entry.value)).flatMap { $0 }
            let priority = (try? BERTLV.first(0x87, in: data, range: entry.value)).flatMap { $0 }
            candidates.append(
                Candidate(
                    aid: Array(data[aid.value]), label: label.map { Self.text(data[$0.value]) } ?? "",
                    priority: priority.flatMap { $0.value.isEmpty ? nil : Int(data[$0.value.lowerBound] & 0x0F) } ?? 0))
        }
        // Priority 1 first, …, 15, then none (0); the card's order among equals.
        let order = candidates.enumerated().sorted { a, b in
            let pa = a.element.priority == 0 ? 16 : a.element.priority
            let pb = b.element.priority == 0 ? 16 : b.element.priority
            return pa != pb ? pa < pb : a.offset < b.offset
        }
        candidates = order.map(\.element)
    }

    private mutating func selectKnown(_ index: Int) -> Step {
        guard index < known.count, applications.count < Self.mostApplications else { return finish() }
        phase = .selectKnown(index: index)
        return exchange(Self.select(known[index].aid))
    }

    // MARK: - Applications

    private mutating func selectCandidate(_ index: Int) -> Step {
        guard index < candidates.count, applications.count < Self.mostApplications else { return finish() }
        phase = .selectCandidate(index: index)
        return exchange(Self.select(candidates[index].aid))
    }

    private mutating func next(after index: Int) -> Step {
        found.wipe()
        guard fromKnownAIDs else { return selectCandidate(index + 1) }
        let current = candidates[index].aid
        let position = known.firstIndex { $0.aid == current } ?? known.count
        return selectKnown(position + 1)
    }

    /// GET PROCESSING OPTIONS for the application just selected, its PDOL filled.
    private mutating func processingOptions(_ index: Int, fci: [UInt8]) -> Step {
        found.wipe()
        found.label = candidates[index].label
        found.priority = candidates[index].priority
        if let label = try? BERTLV.first(0x50, in: fci, range: fci.indices), !label.value.isEmpty {
            found.label = Self.text(fci[label.value])
        }
        if let priority = try? BERTLV.first(0x87, in: fci, range: fci.indices), !priority.value.isEmpty {
            found.priority = Int(fci[priority.value.lowerBound] & 0x0F)
        }
        var values: [UInt8] = []
        if let pdol = try? BERTLV.first(0x9F38, in: fci, range: fci.indices) {
            guard let entries = DataObjectList.entries(of: fci, in: pdol.value),
                let filled = DataObjectList.fill(entries, with: terminal)
            else { return next(after: index) }
            values = filled
        }
        var command: [UInt8] = [0x80, 0xA8, 0x00, 0x00]
        if values.count < 0x80 {
            command += [UInt8(values.count + 2), 0x83, UInt8(values.count)]
        } else {
            command += [UInt8(values.count + 3), 0x83, 0x81, UInt8(values.count)]
        }
        command += values
        command.append(0x00)
        phase = .processingOptions(index: index)
        return exchange(command)
    }

    /// Reads GPO's answer: format 1 (`80`: AIP then AFL) or format 2 (`77{82 AIP, 94 AFL, …}`,
    /// whose other objects, such as a contactless card's `57`, are kept). False when it is
    /// neither, or its AFL is malformed.
    private mutating func readLocator(_ data: [UInt8]) -> Bool {
        locator.removeAll()
        guard let top = try? BERTLV.elements(of: data, in: data.indices), let first = top.first else { return false }
        var afl: Range<Int>
        if first.tag == 0x80 {
            guard first.value.count >= 2 else { return false }
            afl = (first.value.lowerBound + 2)..<first.value.upperBound
        } else if first.tag == 0x77 {
            keep(data, under: 0x77)
            afl = (try? BERTLV.first(0x94, in: data, range: first.value))?.value ?? 0..<0
        } else {
            return false
        }
        guard afl.count % 4 == 0, afl.count <= 4 * 16 else { return false }
        for start in stride(from: afl.lowerBound, to: afl.upperBound, by: 4) {
            let sfi = data[start] >> 3
            let firstRecord = data[start + 1]
            let lastRecord = data[start + 2]
            guard (1...30).contains(sfi), firstRecord != 0, firstRecord <= lastRecord else { return false }
        }
        locator = Array(data[afl])
        return true
    }

    /// READ RECORD for the record after `record` of AFL entry `entry` (the first when nil),
    /// or, once the AFL is read, the application's result.
    private mutating func readRecord(_ index: Int, entry: Int, record: UInt8?) -> Step {
        var entry = entry
        var following = record.map { $0 &+ 1 }
        while entry * 4 < locator.count {
            let base = entry * 4
            let recordNumber = following ?? locator[base + 1]
            if recordNumber >= locator[base + 1], recordNumber <= locator[base + 2], recordNumber != 0 {
                phase = .readRecord(index: index, entry: entry, record: recordNumber)
                return exchange([0x00, 0xB2, recordNumber, locator[base] & 0xF8 | 4, 0x00])
            }
            entry += 1
            following = nil
        }
        finishApplication(index)
        return next(after: index)
    }

    /// Keeps the data elements of a record (template `70`) or of GPO's format 2 (`77`).
    private mutating func keep(_ data: [UInt8], under template: UInt32) {
        guard let top = try? BERTLV.elements(of: data, in: data.indices), let first = top.first,
            first.tag == template, let elements = try? BERTLV.elements(of: data, in: first.value)
        else { return }
        let mastercard = candidateAID.starts(with: Self.mastercardRID)
        for element in elements {
            let value = data[element.value]
            switch element.tag {
            case 0x5A where found.pan.isEmpty: found.pan = Array(value)
            case 0x57 where found.track2.isEmpty: found.track2 = Array(value)
            case 0x9F6B where found.track2.isEmpty && mastercard: found.track2 = Array(value)
            case 0x5F24 where found.expiry.isEmpty: found.expiry = Array(value)
            case 0x5F20 where found.name.isEmpty: found.name = Array(value.prefix(26))
            case 0x5F34 where value.count == 1:
                let byte = value[value.startIndex]
                if byte >> 4 < 10, byte & 0x0F < 10 { found.sequence = Int(byte >> 4) * 10 + Int(byte & 0x0F) }
            default: break
            }
        }
    }

    private var candidateAID: [UInt8] {
        switch phase {
        case .processingOptions(let index), .readRecord(let index, _, _):
            return index < candidates.count ? candidates[index].aid : []
        default: return []
        }
    }

    /// Makes the application read from what was kept, when it gives a number and an expiry.
    private mutating func finishApplication(_ index: Int) {
        defer { found.wipe() }
        let track = ChipTrack2(found.track2)
        var number = ChipTrack2.digits(ofCompressedNumeric: found.pan) ?? track?.numberDigits ?? []
        defer { number.overwriteAndEmpty() }
        var expiry: (year: Int, month: Int)?
        if found.expiry.count == 3, let year = ChipTrack2.bcd(found.expiry[0]),
            let month = ChipTrack2.bcd(found.expiry[1])
        {
            expiry = (year, month)
        } else if let track {
            expiry = (track.expiryYear, track.expiryMonth)
        }
        guard (8...19).contains(number.count), let expiry, (1...12).contains(expiry.month) else { return }
        applications.append(
            ChipApplication(
                aid: candidates[index].aid, label: found.label, priority: found.priority, numberDigits: number,
                expiryMonth: expiry.month, expiryYear: expiry.year, nameBytes: Self.holderName(found.name),
                panSequence: found.sequence))
    }

    private mutating func finish() -> Step {
        phase = .finished
        found.wipe()
        locator.removeAll()
        guard !applications.isEmpty else { return .failed(lastFailure) }
        let read = ChipCard(applications: applications, contactless: false)
        applications.removeAll()
        return .read(read)
    }

    private mutating func fail(_ failure: Failure) -> Step {
        lastFailure = failure
        phase = .finished
        found.wipe()
        chained.overwriteAndEmpty()
        for index in applications.indices { applications[index].wipe() }
        applications.removeAll()
        return .failed(failure)
    }

    // MARK: - Commands

    private mutating func send(_ apdu: [UInt8]) -> Step { exchange(apdu) }

    private mutating func exchange(_ apdu: [UInt8]) -> Step {
        exchanges += 1
        guard exchanges <= Self.mostExchanges else { return fail(.tooManyExchanges) }
        command = apdu
        return .send(apdu)
    }

    /// SELECT by name, first or only occurrence, Le 00.
    static func select(_ name: [UInt8]) -> [UInt8] { [0x00, 0xA4, 0x04, 0x00, UInt8(name.count)] + name + [0x00] }

    /// Printable ASCII of a label, anything else left out.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(16).filter { (0x20...0x7E).contains($0) }, as: UTF8.self)
    }

    /// `SURNAME/GIVEN` (ISO/IEC 7813, as `5F20` holds it) as `GIVEN SURNAME`, blanks trimmed and
    /// runs of them made one; empty for a blank name or one with bytes a name does not hold.
    static func holderName(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return [] }
        let parts = bytes.split(separator: UInt8(ascii: "/"), maxSplits: 1, omittingEmptySubsequences: false)
        func words(_ part: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] { part.split(separator: 0x20) }
        let ordered = parts.count == 2 ? words(parts[1]) + words(parts[0]) : words(parts[0])
        var out: [UInt8] = []
        for word in ordered {
            if !out.isEmpty { out.append(0x20) }
            out.append(contentsOf: word)
        }
        return out
    }
}

/// Cards accepted in this process, held masked: the tray never keeps a full number or a CVV.
///
/// Stored packed, ten bytes a card (the shown digits, length and expiry in one word, the
/// network as an index into the tray's own list), in fixed-size chunks: a replayed script
/// may accept a million cards, and the tray must not grow by copying itself.
public struct CardTray: Equatable, Sendable {
    /// One accepted card as the tray keeps it: masked, with no CVV.
    public struct Card: Equatable, Sendable {
        /// The network's id (`visa`).
        public var networkID: String
        /// The network's name for people (`Visa`).
        public var networkName: String
        /// Masked as `CardNumber.masked` does: `411111••••••1111`.
        public var maskedNumber: String
        /// The number's last four digits (fewer for a number shorter than 8, as the masking
        /// policy shows).
        public var lastFour: String
        /// The expiry month, with a four-digit year.
        public var expiry: YearMonth
    }

    /// The networks of the cards held, each once: (id, name).
    private var networks: [Network] = []
    /// Where the last of `networks` with each id is (a tray of many networks' cards looked
    /// each card's up along the list).
    private var networkIndexes: [String: Int] = [:]
    private struct Network: Equatable, Sendable {
        var id: String
        var name: String
    }
    /// Full chunks and the one being filled; card `i` is `chunks[i / chunkSize]`, at `i % chunkSize`.
    private var chunks: [Chunk] = []
    private static let chunkSize = 4096
    private struct Chunk: Equatable, Sendable {
        /// The shown digits' value (34 bits), the length (5), the month (4) and the year (21).
        var words: [UInt64] = []
        /// Index into `networks`, or `overflowMark` for a card kept whole in `overflow`.
        var networks: [UInt16] = []
    }
    /// Cards that do not pack (a year past 2 million, more than 65,534 networks): by position.
    private var overflow: [Int: Card] = [:]
    private static let overflowMark = UInt16.max
    /// How many cards the tray holds.
    public private(set) var count = 0

    /// The cards in the order they were added; card `n` (1-based) is `cards[n - 1]`.
    public var cards: [Card] { (0..<count).map { self[$0] } }
    /// Index of the selected card; the newest card is selected when it is added.
    public private(set) var selected: Int?

    /// An empty tray with nothing selected.
    public init() {}

    /// The card at `index` (0-based).
    public subscript(index: Int) -> Card {
        let chunk = chunks[index / Self.chunkSize]
        let offset = index % Self.chunkSize
        let networkIndex = chunk.networks[offset]
        if networkIndex == Self.overflowMark { return overflow[index]! }
        let word = chunk.words[offset]
        let value = word & (1 << 34 - 1)
        let length = Int(word >> 34 & 31)
        let month = Int(word >> 39 & 15)
        let year = Int(word >> 43)
        let network = networks[Int(networkIndex)]
        return Card(
            networkID: network.id, networkName: network.name, maskedNumber: Self.masked(shown: value, length: length),
            lastFour: CardNumber.string(
                CardPolicy.lastShownDigits(of: Self.numberDigits(shown: value, length: length))),
            expiry: YearMonth(year: year, month: month))
    }

    /// Adds a card at the end and selects it.
    public mutating func add(_ card: Card) {
        let networkIndex = index(of: Network(id: card.networkID, name: card.networkName))
        var digits: [UInt8] = []
        for byte in card.maskedNumber.utf8 where byte &- 48 < 10 { digits.append(byte - 48) }
        let length = card.maskedNumber.unicodeScalars.count
        // Packed only when unpacking gives back the same card: the number masked as the
        // masking policy does, its last four the last digits shown.
        let packs =
            networkIndex < Int(Self.overflowMark) && (0..<(1 << 21)).contains(card.expiry.year)
            && (1...12).contains(card.expiry.month) && length <= CardPolicy.longestNumber && digits.count <= 10
            && Self.masked(shown: Self.value(digits), length: length) == card.maskedNumber
            && CardNumber.string(
                CardPolicy.lastShownDigits(of: Self.numberDigits(shown: Self.value(digits), length: length)))
                == card.lastFour
        append(
            word: packs ? Self.word(digits, length: length, expiry: card.expiry) : 0,
            network: packs ? UInt16(networkIndex) : Self.overflowMark, overflowing: packs ? nil : card)
    }

    /// Adds an accepted card from its digits (no strings made) and selects it.
    mutating func add(_ card: PaymentCard) {
        let digits = card.numberDigits
        let networkIndex = index(of: Network(id: card.network.id, name: card.network.name))
        guard networkIndex < Int(Self.overflowMark), (0..<(1 << 21)).contains(card.expiry.year),
            (1...12).contains(card.expiry.month), digits.count <= CardPolicy.longestNumber
        else { return add(card.trayEntry) }
        // The digits the masking policy shows, read in place: no copy of the number is made.
        let shown = CardPolicy.shownDigits(count: digits.count)
        var value: UInt64 = 0
        for (index, digit) in digits.enumerated() where shown.shows(index) {
            value = value * 10 + UInt64(digit)
        }
        append(
            word: Self.word(value: value, length: digits.count, expiry: card.expiry), network: UInt16(networkIndex),
            overflowing: nil)
    }

    private static func word(_ shown: [UInt8], length: Int, expiry: YearMonth) -> UInt64 {
        word(value: value(shown), length: length, expiry: expiry)
    }

    private static func value(_ digits: [UInt8]) -> UInt64 {
        var value: UInt64 = 0
        for digit in digits { value = value * 10 + UInt64(digit) }
        return value
    }

    /// A `length`-digit number with the digits the masking policy shows (packed in `value`)
    /// in place and zeros where it hides digits: masking it gives back the masked number.
    private static func numberDigits(shown value: UInt64, length: Int) -> [UInt8] {
        let shown = CardPolicy.shownDigits(count: length)
        var digits = [UInt8](repeating: 0, count: length)
        var rest = value
        for i in (0..<length).reversed() where shown.shows(i) {
            digits[i] = UInt8(rest % 10)
            rest /= 10
        }
        return digits
    }

    /// The masked number of `length` digits whose shown digits pack to `value`:
    /// "411111••••••1111".
    private static func masked(shown value: UInt64, length: Int) -> String {
        CardNumber.masked(numberDigits(shown: value, length: length))
    }

    private static func word(value: UInt64, length: Int, expiry: YearMonth) -> UInt64 {
        value | UInt64(length) << 34 | UInt64(expiry.month) << 39 | UInt64(expiry.year) << 43
    }

    private mutating func index(of network: Network) -> Int {
        if let index = networkIndexes[network.id], networks[index] == network { return index }
        // (A network of an id seen before under another name, after a reload, is added anew.)
        if let last = networks.lastIndex(of: network) { return last }
        networks.append(network)
        networkIndexes[network.id] = networks.count - 1
        return networks.count - 1
    }

    private mutating func append(word: UInt64, network: UInt16, overflowing card: Card?) {
        if count % Self.chunkSize == 0 {
            var chunk = Chunk()
            chunk.words.reserveCapacity(Self.chunkSize)
            chunk.networks.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].words.append(word)
        chunks[chunks.count - 1].networks.append(network)
        if let card { overflow[count] = card }
        count += 1
        selected = count - 1
    }

    /// Selects card `number` (1-based); false when there is no such card.
    public mutating func select(_ number: Int) -> Bool {
        guard (0..<count).contains(number - 1) else { return false }
        selected = number - 1
        return true
    }

    /// Removes card `number` (1-based), keeping the selection on the same card where it remains.
    public mutating func remove(_ number: Int) -> Card? {
        guard (0..<count).contains(number - 1) else { return nil }
        var remaining = cards
        let card = remaining.remove(at: number - 1)
        let keptSelection = selected
        self = CardTray()
        for kept in remaining { add(kept) }
        selected = keptSelection
        if let current = selected {
            if current == number - 1 {
                selected = remaining.isEmpty ? nil : min(current, remaining.count - 1)
            } else if current > number - 1 {
                selected = current - 1
            }
        }
        return card
    }

    /// One line per card, numbered from 1, the selected one marked with `*`.
    public var listing: [String] { listing(.english) }

    /// `listing` in `messages`' words.
    public func listing(_ messages: MessageCatalog) -> [String] {
        guard count > 0 else { return [messages.text(.trayEmpty)] }
        return (0..<count).map { index in
            let card = self[index]
            return "\(index == selected ? "*" : " ") \(index + 1). "
                + messages.text(
                    .trayCard, ("card", "\(card.networkName) \(card.maskedNumber)"), ("expiry", card.expiry.cardText))
        }
    }
}

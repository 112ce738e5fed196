/// Cards accepted in this process, held masked: the tray never keeps a full number or a CVV.
public struct CardTray: Equatable, Sendable {
    /// One accepted card as the tray keeps it: masked, with no CVV.
    public struct Card: Equatable, Sendable {
        /// The network's id (`visa`).
        public var networkID: String
        /// The network's name for people (`Visa`).
        public var networkName: String
        /// First six and last four: `411111••••••1111`.
        public var maskedNumber: String
        /// The number's last four digits.
        public var lastFour: String
        /// The expiry month, with a four-digit year.
        public var expiry: YearMonth
    }

    /// The cards in the order they were added; card `n` (1-based) is `cards[n - 1]`.
    public private(set) var cards: [Card] = []
    /// Index of the selected card; the newest card is selected when it is added.
    public private(set) var selected: Int?

    /// An empty tray with nothing selected.
    public init() {}

    /// Adds a card at the end and selects it.
    public mutating func add(_ card: Card) {
        cards.append(card)
        selected = cards.count - 1
    }

    /// Selects card `number` (1-based); false when there is no such card.
    public mutating func select(_ number: Int) -> Bool {
        guard cards.indices.contains(number - 1) else { return false }
        selected = number - 1
        return true
    }

    /// Removes card `number` (1-based), keeping the selection on the same card where it remains.
    public mutating func remove(_ number: Int) -> Card? {
        guard cards.indices.contains(number - 1) else { return nil }
        let card = cards.remove(at: number - 1)
        if let current = selected {
            if current == number - 1 { selected = cards.isEmpty ? nil : min(current, cards.count - 1) }
            else if current > number - 1 { selected = current - 1 }
        }
        return card
    }

    /// One line per card, numbered from 1, the selected one marked with `*`.
    public var listing: [String] {
        guard !cards.isEmpty else { return ["no cards yet"] }
        return cards.enumerated().map { index, card in
            "\(index == selected ? "*" : " ") \(index + 1). \(card.networkName) \(card.maskedNumber)  expires \(card.expiry.cardText)"
        }
    }
}

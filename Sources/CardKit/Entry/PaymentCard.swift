/// A card as the person entered it, whole: the number and the security code in full. The
/// engine hands one to its front end in `Outcome.Event.accepted`, and the front end passes it
/// only to the caller that asked for the card; the tray and every printed line get the masked
/// `trayEntry` instead.
///
/// Printing, interpolating, `dump` and debuggers see only the masked form (`description`,
/// `debugDescription`, `customMirror`). Call `wipe()` once the card has been used: it
/// overwrites the digits, the name and the postal code in place.
public struct PaymentCard: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The network the card is delivered as: the number's network, or for a co-badged card
    /// the one chosen (by default its international scheme).
    public let network: CardNetwork
    /// A co-badged card's other networks (Dankort for a Visa/Dankort card delivered as Visa),
    /// in the order of `Detection.networks`; empty for most cards.
    public let alsoNetworks: [CardNetwork]
    /// The number's digits, each 0–9 (not ASCII).
    public private(set) var numberDigits: [UInt8]
    /// The expiry month, with a four-digit year.
    public let expiry: YearMonth
    /// The security code's digits, each 0–9 (not ASCII).
    public private(set) var securityCodeDigits: [UInt8]
    /// The cardholder's name as typed (`--name`, `EntryForm.asksName`), delivered as
    /// `holder_name`; nil when it was not asked for. Kept as bytes that `wipe()` overwrites.
    public var holderName: String? {
        get { holderNameBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { Self.replace(&holderNameBytes, with: newValue) }
    }
    /// The billing address's postal code as the country writes it (`SW1A 1AA`, `12345-6789`;
    /// `--postal-code`), delivered as `postal_code`; nil when it was not asked for. Kept as
    /// bytes that `wipe()` overwrites.
    public var postalCode: String? {
        get { postalCodeBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { Self.replace(&postalCodeBytes, with: newValue) }
    }
    private var holderNameBytes: [UInt8]?
    private var postalCodeBytes: [UInt8]?
    /// True for the security code of a card on file (`--cvv-only`): no number, and `expiry`
    /// means nothing; the JSON is `{"network":…,"cvv":…}`.
    public var isSecurityCodeOnly = false
    /// How the number came in: typed (`keyed`) or read from the magnetic stripe (`swipe`).
    public let entry: Entry
    /// For a swiped card, whether its service code says it has a chip (the caller should ask
    /// for the chip); nil for a keyed card (nothing says).
    public let chip: Bool?
    /// For a card read from its chip, the PAN sequence number (`5F34`) when the card gives
    /// one, delivered as `pan_sequence`; nil otherwise.
    public let panSequence: Int?

    /// How a card's number came in, as the delivered JSON's `entry` says it.
    public enum Entry: String, Sendable { case keyed, swipe, chip, contactless }

    /// A card from its parts. The digit arrays are copied into storage of the card's own, so
    /// wiping the card never touches the caller's arrays and the other way round.
    public init(
        network: CardNetwork, numberDigits: [UInt8], expiry: YearMonth, securityCodeDigits: [UInt8],
        alsoNetworks: [CardNetwork] = [], entry: Entry = .keyed, chip: Bool? = nil, panSequence: Int? = nil
    ) {
        self.entry = entry
        self.chip = chip
        self.panSequence = panSequence
        self.network = network
        self.alsoNetworks = alsoNetworks
        self.numberDigits = Self.ownCopy(numberDigits)
        self.expiry = expiry
        self.securityCodeDigits = Self.ownCopy(securityCodeDigits)
    }

    /// The full number as digits: `4111111111111111`.
    public var number: String { CardNumber.string(numberDigits) }
    /// The full security code: `123`.
    public var securityCode: String { CardNumber.string(securityCodeDigits) }
    /// The last digits of the number a masked number shows (`CardPolicy.lastShownDigits`: its
    /// last four).
    public var lastFour: String { CardNumber.string(CardPolicy.lastShownDigits(of: numberDigits)) }
    /// Masked by the one policy (`CardNumber.masked`): `411111••••••1111`.
    public var maskedNumber: String { CardNumber.masked(numberDigits) }

    /// The masked card, as the tray keeps it.
    public var trayEntry: CardTray.Card {
        CardTray.Card(
            networkID: network.id, networkName: network.name, maskedNumber: maskedNumber,
            lastFour: lastFour, expiry: expiry)
    }

    /// `Visa 411111••••••1111 12/30`: never the full number or the code.
    public var description: String {
        isSecurityCodeOnly
            ? "\(network.name) (security code only)" : "\(network.name) \(maskedNumber) \(expiry.cardText)"
    }
    /// `PaymentCard(Visa 411111••••••1111 12/30)`: masked, like `description`.
    public var debugDescription: String { "PaymentCard(\(description))" }
    /// Only the network id, masked number and expiry, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["network": network.id, "number": maskedNumber, "expiry": expiry.cardText],
            displayStyle: .struct)
    }

    /// Appends the card as one JSON object, full number and code included, no line break: the
    /// card record (`CardRecord`) with every member,
    /// `{"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"number":"4111111111111111","masked":"411111******1111","last4":"1111","expiry":{"month":12,"year":2030},"cvv":"123","entry":"keyed"}`.
    /// `network` is the network chosen (a co-badged card's international scheme unless the
    /// person chose another), `also_networks` the card's other networks' ids (`["dankort"]`;
    /// `[]` for most cards). A swiped card adds `"chip":true` or `false` after
    /// `"entry":"swipe"`; a card with a name or postal code asked for ends with `"holder_name"`
    /// and `"postal_code"`; the security code alone (`isSecurityCodeOnly`) is the network's
    /// members and `"cvv"` (with those two when asked for).
    public func appendJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        appendJSONMembers(.all, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// Which of the card's JSON members `appendJSONMembers` writes.
    public enum JSONMembers: Sendable {
        /// Every member: `appendJSON`'s object (`--print`).
        case all
        /// Every member but the number and the code (`replay --json`'s cards).
        case masked
        /// Only those that may travel in clear beside a sealed card (`CardSealer`), for the
        /// caller's bookkeeping: the network's members, `last4`, `expiry`, `entry` (and `chip`);
        /// for the security code alone, the network's members. Never more of the number than
        /// its last four, never the code, name or postal code.
        case clear
    }

    /// Appends the card's JSON members (`members` of them), comma-separated, without the
    /// braces (with `comma`, a comma before them), through the one writer of the card record
    /// (`CardRecord.appendMembers`).
    public func appendJSONMembers(_ members: JSONMembers, to out: inout [UInt8], comma: Bool = false) {
        let clear = members == .clear
        CardRecord.appendMembers(
            networks: CardRecord.networkMembers(network, also: alsoNetworks),
            digits: isSecurityCodeOnly ? nil : numberDigits.span,
            number: members == .all ? .full : clear ? .lastFour : .masked,
            expiry: isSecurityCodeOnly ? nil : expiry, code: members == .all ? securityCodeDigits : nil,
            entry: isSecurityCodeOnly ? nil : entry, chip: chip, panSequence: panSequence,
            holderName: clear ? nil : holderName, postalCode: clear ? nil : postalCode, comma: comma, to: &out)
    }

    /// How many bytes `appendJSON` appends, to size a buffer once.
    public var jsonLength: Int {
        var count = 0
        var probe: [UInt8] = []
        // The shape without the digits, measured on an empty card of this network.
        var shape = PaymentCard(
            network: network, numberDigits: [], expiry: expiry, securityCodeDigits: [], alsoNetworks: alsoNetworks,
            entry: entry, chip: chip, panSequence: panSequence)
        (shape.holderName, shape.postalCode, shape.isSecurityCodeOnly) = (holderName, postalCode, isSecurityCodeOnly)
        shape.appendJSON(to: &probe)
        count =
            probe.count + securityCodeDigits.count
            + (isSecurityCodeOnly ? 0 : 2 * numberDigits.count + CardPolicy.lastShownDigits(of: numberDigits).count)
        return count
    }

    /// Overwrites the number, code, name and postal code with zeros in place, then empties
    /// them. Copies of this value made before (it is a value type) keep their own storage only
    /// if they were written to since; Swift gives no way to reach every copy, so wipe each one
    /// you keep.
    public mutating func wipe() {
        numberDigits.overwriteAndEmpty()
        securityCodeDigits.overwriteAndEmpty()
        holderNameBytes?.overwriteAndEmpty()
        postalCodeBytes?.overwriteAndEmpty()
    }

    /// Sets a text kept as bytes (`holderName`, `postalCode`), the old bytes overwritten.
    private static func replace(_ bytes: inout [UInt8]?, with text: String?) {
        bytes?.overwriteAndEmpty()
        bytes = text.map { ownCopy(Array($0.utf8)) }
    }

    /// A copy in storage of its own (an array assigned is shared until written to).
    private static func ownCopy(_ digits: [UInt8]) -> [UInt8] {
        var copy: [UInt8] = []
        copy.reserveCapacity(digits.count)
        copy.append(contentsOf: digits)
        return copy
    }
}

extension Array where Element == UInt8 {
    /// Sets every element to zero in the array's own storage, then empties the array keeping
    /// that storage, so digits do not linger in freed memory.
    public mutating func overwriteAndEmpty() {
        // Nothing to wipe in an empty array: left as it is (asking an empty one for its bytes
        // gives it storage of its own, an allocation, each time a card is reset).
        guard !isEmpty else { return }
        // unsafe: wiping card data, in the array's own storage, through an opaque call
        // (`wipeBytes`) so that the stores are not optimised away.
        withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            wipeBytes(base, bytes.count)
        }
        removeAll(keepingCapacity: true)
    }

    /// Zeroes the last `count` elements (one unless said) in place, then removes them.
    mutating func overwriteLast(_ count: Int = 1) {
        for _ in 0..<Swift.min(count, self.count) {
            self[self.count - 1] = 0
            removeLast()
        }
    }
}

/// Writes zeros over `count` bytes. Kept out of line (`@inline(never)`) so the compiler cannot
/// see that nothing reads them afterwards and drop the stores.
@inline(never)
func wipeBytes(_ base: UnsafeMutableRawPointer, _ count: Int) {  // unsafe: wiping card data
    base.initializeMemory(as: UInt8.self, repeating: 0, count: count)
}

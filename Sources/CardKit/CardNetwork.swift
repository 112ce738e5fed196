/// One card network, as its rule file describes it. Immutable once loaded; a class, so that
/// passing it around (every detection on every keystroke or record holds one) costs one
/// reference count rather than one per field.
public final class CardNetwork: Equatable, Sendable, Identifiable {
    /// Stable lower-case identifier (`visa`, `american-express`).
    public let id: String
    /// Name for people (`American Express`).
    public let name: String
    /// Name of the logo badge the front end shows (`AMEX`).
    public let logo: String
    /// IIN patterns; a number belongs to the network whose most specific pattern matches it.
    public let patterns: [IINPattern]
    /// Every valid number length, ascending.
    public let lengths: [Int]
    /// Lengths at which a complete, valid number moves on to the expiry by itself; always
    /// includes the longest length. Numbers of other valid lengths move on with Enter.
    public let autoAdvanceLengths: [Int]
    /// Digit group sizes for display (`[4, 6, 5]`); digits past them form one last group.
    public let groups: [Int]
    /// The groups as a format hint, `#### ###### #####` (made once: views show it on every key).
    public let formatHint: String
    /// The security code's name on this network's cards and its length.
    public let cvv: SecurityCode
    /// Whether numbers must pass the Luhn check.
    public let luhn: Bool
    /// The file this network was read from, for `rules` listings and messages.
    public let file: String
    /// Where the id and each pattern stand in the file, for messages about them.
    public let idLocation: SourceLocation
    /// Where each pattern stands in the file, in `patterns` order (may be empty).
    public let patternLocations: [SourceLocation]
    /// The help shown in the security-code field (made once: it is shown for every card).
    public let securityCodeHelp: String

    /// The security code printed on the network's cards.
    public struct SecurityCode: Equatable, Sendable {
        /// `CVV`, `CVC`, `CID`, …
        public var name: String
        /// How many digits it has.
        public var length: Int
        /// Where it is printed, for help text ("back" or "front").
        public var side: String

        /// A security code from its name, its number of digits and the side it is printed on.
        public init(name: String, length: Int, side: String) {
            self.name = name
            self.length = length
            self.side = side
        }
    }

    /// A network from its rule-file fields; `formatHint` and `securityCodeHelp` are made from them here.
    public init(id: String, name: String, logo: String, patterns: [IINPattern], lengths: [Int],
                autoAdvanceLengths: [Int], groups: [Int], cvv: SecurityCode, luhn: Bool, file: String,
                idLocation: SourceLocation = SourceLocation(line: 1, column: 1), patternLocations: [SourceLocation] = []) {
        self.id = id
        self.name = name
        self.logo = logo
        self.patterns = patterns
        self.lengths = lengths
        self.autoAdvanceLengths = autoAdvanceLengths
        self.groups = groups
        self.formatHint = CardNumber.hint(groups: groups)
        self.cvv = cvv
        self.luhn = luhn
        self.file = file
        self.idLocation = idLocation
        self.patternLocations = patternLocations
        self.securityCodeHelp = "Type the \(cvv.length)-digit \(cvv.name) on the \(cvv.side) of the card; Enter submits."
    }

    /// The same network: the same object, or the same definition from the same file.
    public static func == (a: CardNetwork, b: CardNetwork) -> Bool {
        a === b || (a.id == b.id && a.file == b.file && a.patterns == b.patterns && a.lengths == b.lengths
                    && a.groups == b.groups && a.cvv == b.cvv && a.luhn == b.luhn && a.name == b.name && a.logo == b.logo)
    }

    /// The longest valid number length (19 if `lengths` is empty).
    public var maxLength: Int { lengths.last ?? 19 }

    /// "a Visa number has 16 digits" / "… has 13, 16 or 19 digits".
    public var lengthPhrase: String {
        let words = lengths.map(String.init)
        let list = words.count == 1 ? words[0] : words.dropLast().joined(separator: ", ") + " or " + words.last!
        return "\(article(for: name)) \(name) number has \(list) digits"
    }

}

/// "a" or "an" for a name, by its first letter.
func article(for word: String) -> String {
    guard let first = word.first?.lowercased() else { return "a" }
    return "aeiou".contains(first) ? "an" : "a"
}

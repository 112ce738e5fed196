/// What the digits typed so far say about the network.
public struct Detection: Equatable, Sendable {
    /// Set once exactly one network remains possible and one of its patterns matches in full
    /// (the longest full match wins).
    public var network: CardNetwork? {
        didSet {  // (`coBadgedNetworks` ends with it)
            guard var all = coBadgedNetworks else { return }
            if oldValue != nil { all.removeLast() }
            if let network { all.append(network) }
            coBadgedNetworks = all
        }
    }
    /// False when no network can start with the digits.
    public var hasCandidates: Bool
    /// The longest length any still-possible pattern allows; digits beyond it are refused.
    public var maxLength: Int
    /// How many digits the pattern that decided `network` looks at.
    public var decidingLength: Int
    /// The lengths the patterns still possible allow: the deciding pattern's own once no
    /// longer pattern can match (Visa `4…`: 16; Visa `413600…`: 13 and 16).
    public var lengths: LengthSet
    /// When the deciding pattern is one of `network`'s `coBadged` entries: the other networks
    /// on the card that are loaded, in the entry's `with` order (Visa for a Dankort `4571…`);
    /// empty otherwise. The number's lengths, groups and code are still `network`'s.
    public var coBadged: [CardNetwork] {
        get {
            guard let coBadgedNetworks else { return [] }
            return network == nil ? coBadgedNetworks : Array(coBadgedNetworks.dropLast())
        }
        set {
            guard !newValue.isEmpty else {
                coBadgedNetworks = nil
                return
            }
            var all = newValue
            if let network { all.append(network) }
            coBadgedNetworks = all
        }
    }
    /// `coBadged` then `network`, nil when `coBadged` is empty: `networks` made once, not on
    /// every call (the badge, the summary and the card ask it), and a detection, copied on
    /// every key, costs no reference count for a number that is not co-badged.
    private var coBadgedNetworks: [CardNetwork]?
    /// Whether the number is a co-badged card's (`coBadged` is not empty).
    public var isCoBadged: Bool { coBadgedNetworks != nil }
    /// No pattern longer than the digits can still match them: digits typed after them
    /// cannot change the detection (the engine stops looking). Set by `RuleSet.detect`; how
    /// far the digits have gone, not what they say, so `==` leaves it out.
    var isFinal = false

    /// A detection from its parts.
    public init(
        network: CardNetwork?, hasCandidates: Bool, maxLength: Int, decidingLength: Int, lengths: LengthSet,
        coBadged: [CardNetwork] = []
    ) {
        self.network = network
        self.hasCandidates = hasCandidates
        self.maxLength = maxLength
        self.decidingLength = decidingLength
        self.lengths = lengths
        if !coBadged.isEmpty { self.coBadged = coBadged }
    }

    /// Two detections are equal when they say the same (all but `isFinal`).
    public static func == (a: Detection, b: Detection) -> Bool {
        a.network == b.network && a.hasCandidates == b.hasCandidates && a.maxLength == b.maxLength
            && a.decidingLength == b.decidingLength && a.lengths == b.lengths
            && a.coBadgedNetworks == b.coBadgedNetworks
    }

    /// The networks of the number, the one home of that list: the co-badged ones first (the
    /// international schemes a `coBadged` entry names, which a card is reported as by
    /// default), then the deciding network; just the deciding network for most numbers; empty
    /// while none is decided.
    public var networks: [CardNetwork] {
        guard let network else { return [] }
        return coBadgedNetworks ?? [network]
    }

    /// The networks a card with this number can be delivered as, the one rule of that choice
    /// (the prompt's badge and Ctrl-N, `check`'s `network`): `networks` less those `accepts`
    /// refuses, when it takes some (all of them when it takes none: they name the refusal).
    /// The first is the default, a co-badged card's first `with` network that is taken.
    public func networks(takenBy accepts: (CardNetwork) -> Bool) -> [CardNetwork] {
        let all = networks
        guard all.count > 1 else { return all }
        let taken = all.filter(accepts)
        return taken.isEmpty ? all : taken
    }
}

/// The networks a merchant takes ("the cards we support"): the rest of the rule set still
/// detects numbers, so a number that can only belong to another network is refused with that
/// network's name, while a partial number that could still become an accepted one is allowed.
public struct AcceptedNetworks: Equatable, Sendable {
    /// The accepted networks' ids, in the order given.
    public let ids: [String]

    /// An accepted set from network ids, taken as they are (see `parse(_:in:)` for checking).
    public init(ids: [String]) {
        self.ids = ids
    }

    /// A list that names a network the rules do not define, or no network at all.
    public struct UnknownNetwork: Error, Equatable, Sendable, CustomStringConvertible {
        /// The problem in words, with a did-you-mean where one is close.
        public var message: String
        /// The message, as printed.
        public var description: String { message }
    }

    /// Reads a comma-separated list (`visa,mastercard,american-express`) against `rules`. Each
    /// entry is a network id or its badge name, in any case (`amex` is American Express), or
    /// a family that rule files name (`visa` also takes Visa Electron, whose `family` is
    /// `visa`); spaces around entries are ignored.
    public static func parse(_ list: String, in rules: RuleSet) throws(UnknownNetwork) -> AcceptedNetworks {
        var ids: [String] = []
        for entry in list.split(separator: ",") {
            let name = String(entry).trimmingBlanks.lowercased()
            if name.isEmpty { continue }
            if rules.network(id: name) == nil, rules.networks.contains(where: { $0.family == name }) {
                // A family no network of that id heads (its head disabled, say): taken as a family.
                if !ids.contains(name) { ids.append(name) }
                continue
            }
            guard let network = rules.network(id: name) ?? rules.networks.first(where: { $0.logo.lowercased() == name })
            else {
                var message = "unknown network `\(name.escapingControlCharacters)`"
                if let guess = NetworkNames.suggestion(for: name, among: rules.networks) {
                    message += "; did you mean `\(guess)`?"
                } else {
                    message += " (known: \(rules.networks.map(\.id).joined(separator: ", ")))"
                }
                throw UnknownNetwork(message: message)
            }
            if !ids.contains(network.id) { ids.append(network.id) }
        }
        guard !ids.isEmpty else { throw UnknownNetwork(message: "the list of accepted networks names no network") }
        return AcceptedNetworks(ids: ids)
    }

    /// True when cards of `network` are taken here: its id is listed, or its family's (a
    /// merchant that takes Visa takes Visa Electron).
    public func accepts(_ network: CardNetwork) -> Bool {
        ids.contains(network.id) || (network.hasFamily && ids.contains(network.family))
    }

    /// Whether a number starting with `digits` may be a card of `network` taken here: the
    /// network is accepted, or one of its co-badged patterns that the digits can still grow
    /// into names an accepted network.
    func mayBeAccepted(_ network: CardNetwork, _ digits: [UInt8], _ rules: RuleSet) -> Bool {
        if accepts(network) { return true }
        return network.patternTerms.contains { terms in
            guard let entry = terms.coBadge, network.patterns[terms.pattern].match(digits) != .none else {
                return false
            }
            return network.coBadges[entry].with.contains { rules.network(id: $0).map(accepts) ?? false }
        }
    }

    /// The accepted networks that `rules` defines, in the order given (a family's members not
    /// listed: `visa` stands for Visa Electron too).
    public func networks(in rules: RuleSet) -> [CardNetwork] { ids.compactMap { rules.network(id: $0) } }

    /// "Visa, Mastercard and American Express", for help and refusals (a family no network
    /// heads by its id).
    public func names(in rules: RuleSet, and word: String = "and") -> String {
        listing(nameList(in: rules), joinedBy: word)
    }

    /// The accepted networks' names, in order (an id the rules lack as itself).
    public func nameList(in rules: RuleSet) -> [String] { ids.map { rules.network(id: $0)?.name ?? $0 } }

    /// Why `digits` (with its `detection`) must be refused, or nil when they belong to an
    /// accepted network or could still grow into one. A co-badged card is taken when one of
    /// its networks is (`Detection.networks`); while the number is undecided, so may be a
    /// number that can still grow into a co-badged pattern naming an accepted network.
    func refusal(for digits: [UInt8], detection: Detection, rules: RuleSet, messages: MessageCatalog = .english)
        -> String?
    {
        let and = messages.text(.listAnd)
        if let network = detection.network {
            guard !detection.isCoBadged else {
                let all = detection.networks
                return all.contains(where: accepts)
                    ? nil
                    : messages.text(
                        .acceptedNoneOf, ("networks", listing(all.map(\.name), joinedBy: and)),
                        ("accepted", names(in: rules, and: and)))
            }
            return accepts(network)
                ? nil
                : messages.text(
                    .networkNotAccepted, ("network", network.name), ("accepted", names(in: rules, and: and)))
        }
        let candidates = rules.candidates(digits)
        guard !candidates.isEmpty, !candidates.contains(where: { mayBeAccepted($0, digits, rules) }) else { return nil }
        let accepted = names(in: rules, and: and)
        let prefix = CardNumber.string(CardPolicy.leadingShownDigits(of: digits))
        switch candidates.count {
        case 1: return messages.text(.networkNotAccepted, ("network", candidates[0].name), ("accepted", accepted))
        case 2...3:
            return messages.text(
                .acceptedStarting, ("digits", prefix), ("networks", messages.orList(candidates.map(\.name))),
                ("accepted", accepted))
        default: return messages.text(.acceptedNoneStarts, ("digits", prefix), ("accepted", accepted))
        }
    }
}

/// "a", "a or b", "a, b or c".
func listing(_ items: [String], joinedBy word: String) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(word) " + items.last!
}

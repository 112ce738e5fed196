import CardChip

extension RuleSet {
    /// Every network's `aids`, in the order the networks are loaded: what a chip read tries
    /// when the card lists no directory (`ChipReadFlow`).
    public var knownAIDs: [ChipReadFlow.KnownAID] {
        networks.flatMap { network in network.aids.map { ChipReadFlow.KnownAID(aid: $0, networkID: network.id) } }
    }

    /// The network of a chip application: the one whose longest listed AID starts `aid` (a card
    /// may add bytes to a registered AID); nil when no loaded rule lists one.
    public func network(ofAID aid: [UInt8]) -> CardNetwork? {
        var best: (network: CardNetwork, length: Int)?
        for network in networks {
            for known in network.aids where aid.starts(with: known) && known.count > (best?.length ?? 0) {
                best = (network, known.count)
            }
        }
        return best?.network
    }
}

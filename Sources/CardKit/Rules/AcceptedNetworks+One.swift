extension AcceptedNetworks {
    /// The one network `name` names, read as `parse` reads an entry of `--networks` (an id or a
    /// badge name, in any case: `amex` is American Express): `--cvv-only --network ID`.
    public static func network(named name: String, in rules: RuleSet) throws(UnknownNetwork) -> CardNetwork {
        guard !name.contains(",") else {
            throw UnknownNetwork(message: "name one network, not a list: `\(name.escapingControlCharacters)`")
        }
        let ids = try parse(name, in: rules).ids
        guard let network = ids.count == 1 ? rules.network(id: ids[0]) : nil else {
            throw UnknownNetwork(
                message:
                    "`\(name.escapingControlCharacters)` is a family of networks; name one of them (\(rules.networks.filter { $0.family == ids.first }.map(\.id).joined(separator: ", ")))"
            )
        }
        return network
    }
}

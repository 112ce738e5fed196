/// The names a person may use for a network where cardline asks for one (`--networks`,
/// `CARDLINE_NETWORKS`, `rules show`, `rules sample`, `@networks`), and the network a
/// mistyped or shortened name most likely means, for "did you mean".
public enum NetworkNames {
    /// Short names people write for a network that are neither its id nor its badge name:
    /// suggested, not taken (a script names the network it means).
    public static let abbreviations: [String: String] = [
        "mc": "mastercard",
        "cup": "unionpay",
        "diners-club-international": "diners-club",
        "americanexpress": "american-express",
        "master": "mastercard",
    ]

    /// The id of the network among `networks` that `name` most likely means: an abbreviation
    /// (`mc` → `mastercard`), else the id, badge name or abbreviation closest by edit distance
    /// (`chek`-style typos: `vias` → `visa`, `dinners` → `diners-club`); nil when none is close.
    public static func suggestion(for name: String, among networks: [CardNetwork]) -> String? {
        let name = name.lowercased()
        let ids = Set(networks.map(\.id))
        if let id = abbreviations[name], ids.contains(id) { return id }
        // Every name by the network it stands for.
        var names: [(name: String, id: String)] = networks.map { ($0.id, $0.id) }
        names += networks.map { ($0.logo.lowercased(), $0.id) }
        names += abbreviations.sorted { $0.key < $1.key }.filter { ids.contains($0.value) }.map { ($0.key, $0.value) }
        guard let guess = closest(to: name, in: names.map(\.name)) else { return nil }
        return names.first { $0.name == guess }?.id
    }
}

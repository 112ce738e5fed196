/// Patterns of two networks that cover some of the same numbers, for `rules lint`: the longer
/// pattern decides those numbers (see `RuleSet`), which is usually meant (a six-digit BIN inside
/// a network's one-digit range) but can also be a slip that hands another network's cards over.
/// An overlap is explained when either network's `note` names the other (its id or its name),
/// saying why, or when the pattern is a `coBadged` one whose `with` names the other network;
/// otherwise `rules lint` warns.
extension RuleSet {
    /// The file's `note` text of a rule file's bytes, or nil (no note, or not an object).
    public static func note(ofRuleFile bytes: [UInt8]) -> String? {
        guard case .object(let members, _)? = try? JSONValue.parse(bytes) else { return nil }
        for member in members where member.key == "note" {
            if case .string(let text, _) = member.value { return text }
        }
        return nil
    }

    /// One warning for each pattern that lies inside (or partly over) a shorter pattern of
    /// another matched network, the longest such pattern (the one that would decide those
    /// numbers without it), when neither network's note (`notes`, by file path) names the
    /// other. Patterns of one length cannot overlap across networks (a tie, an error already).
    public func unexplainedOverlaps(notes: [String: String]) -> [RuleError] {
        let lowered = networks.map { (notes[$0.file] ?? "").lowercased() }
        func explained(_ a: Int, _ b: Int) -> Bool {
            lowered[a].contains(networks[b].id.lowercased()) || lowered[a].contains(networks[b].name.lowercased())
                || lowered[b].contains(networks[a].id.lowercased())
                || lowered[b].contains(networks[a].name.lowercased())
        }
        var warnings: [RuleError] = []
        for (a, network) in networks.enumerated() {
            for (index, pattern) in network.patterns.enumerated() {
                // The other networks' longest patterns, shorter than this one, that cover some of its numbers.
                var longest = 0
                var under: [(network: Int, pattern: Int)] = []
                for (b, other) in networks.enumerated() where b != a {
                    for (j, q) in other.patterns.enumerated()
                    where q.length < pattern.length && q.length >= longest && Self.cover(pattern, q) {
                        if q.length > longest {
                            longest = q.length
                            under.removeAll()
                        }
                        under.append((b, j))
                    }
                }
                // A co-badged pattern's partners are explained by the entry itself.
                let partners =
                    network.patternTerms.first { $0.pattern == index }?.coBadge.map { network.coBadges[$0].with } ?? []
                var named: Set<Int> = []
                for (b, j) in under
                where !partners.contains(networks[b].id) && !explained(a, b) && named.insert(b).inserted {
                    let other = networks[b]
                    warnings.append(
                        RuleError(
                            file: network.file, location: network.location(ofPattern: index), severity: .warning,
                            message:
                                "pattern \(pattern) of `\(network.id)` lies inside pattern \(other.patterns[j]) of `\(other.id)` (\(other.file.escapingControlCharacters):\(other.location(ofPattern: j))), and neither file's `note` names the other network; say in a `note` why these numbers are `\(network.id)`'s (or list them as co-badged)"
                        ))
                }
            }
        }
        return warnings
    }

    /// Whether some number matches both patterns, of any lengths (the shorter one scaled to the
    /// longer one's digits: `4` covers `4111`).
    static func cover(_ p: IINPattern, _ q: IINPattern) -> Bool {
        let (short, long) = p.length <= q.length ? (p, q) : (q, p)
        var scale: UInt64 = 1
        for _ in short.length..<long.length { scale *= 10 }
        return long.highValue >= short.lowValue * scale && (short.highValue + 1) * scale - 1 >= long.lowValue
    }
}

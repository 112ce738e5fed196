import ArgumentParser
import CardPrompt

/// What tab completion offers for the values of cardline's options and arguments, beyond the
/// option names argument-parser's scripts complete by themselves (issue 26). The shells call
/// `cardline ---completion …` for a `.custom` kind, so the network ids come from the rules
/// this cardline loads: the bundled ones and the personal folder, `CARDLINE_RULES` and any
/// `--rules DIR` already on the command line.
enum Completions {
    /// `--networks LIST`: network ids, the last of a comma-separated list completed after the
    /// ones already typed (`visa,ma` offers `visa,maestro`, `visa,mastercard`).
    static let networkList = CompletionKind.custom { words, _, prefix in
        networkListCandidates(prefix: prefix, ids: networkIDs(words: words))
    }

    /// A network's id, as `rules show` and `rules sample` take it.
    static let networkID = CompletionKind.custom { words, _, prefix in
        networkIDs(words: words, listingRetired: true).filter { $0.hasPrefix(prefix) }
    }

    /// `--postal-code COUNTRY`: the countries with a postal-code format, in the case typed
    /// (`g` offers `gb`, as the option takes either).
    static let postalCountry = CompletionKind.custom { _, _, prefix in
        let countries = PostalCodeFormats.bundled.countries
        return (prefix == prefix.uppercased() ? countries : countries.map { $0.lowercased() }).filter {
            $0.hasPrefix(prefix)
        }
    }

    /// `.session` scripts (and folders, which `replay` searches).
    static let sessionFiles = CompletionKind.file(extensions: ["session"])

    /// Rule folders (`--rules DIR`, `rules lint DIR`).
    static let ruleFolders = CompletionKind.directory

    /// Candidates for a comma-separated list whose text before the cursor is `prefix`: the ids
    /// starting with its last item that are not listed already, after the items before it.
    static func networkListCandidates(prefix: String, ids: [String]) -> [String] {
        let items = prefix.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let last = items.last ?? ""
        let listed = Set(items.dropLast())
        let head = items.dropLast().map { $0 + "," }.joined()
        return ids.filter { $0.hasPrefix(last) && !listed.contains($0) }.map { head + $0 }
    }

    /// The ids of the networks loaded with the rule options among `words` (the shell's words,
    /// as typed: `--rules DIR` or `--rules=DIR`, `--no-default-rules`, `--retired`), sorted;
    /// when those rules are broken, the bundled networks' ids; none when neither loads. Retired
    /// networks only with `--retired`, or when `listingRetired` (`rules show` shows them).
    static func networkIDs(words: [String], listingRetired: Bool = false) -> [String] {
        var extra: [String] = []
        var bundled = true
        var retired = false
        for (index, word) in words.enumerated() {
            switch word {
            case "--rules" where index + 1 < words.count: extra.append(unquoted(words[index + 1]))
            case "--no-default-rules": bundled = false
            case "--retired": retired = true
            default: if word.hasPrefix("--rules=") { extra.append(unquoted(String(word.dropFirst("--rules=".count)))) }
            }
        }
        let attempts = [
            RuleSources.folders(bundled: bundled, extra: extra),
            RuleSources.folders(bundled: true, extra: [], personal: false),
        ]
        for folders in attempts {
            if let rules = try? RuleSources.load(folders: folders, includeRetired: retired) {
                return (rules.networks + (listingRetired ? rules.retired : [])).map(\.id).sorted()
            }
        }
        return []
    }

    /// A shell word without the quotes around it (`'my rules'`, `"my rules"`) or the
    /// backslashes in it (`my\ rules`): the completion scripts pass words as typed.
    static func unquoted(_ word: String) -> String {
        if word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first {
            return String(word.dropFirst().dropLast())
        }
        var result = ""
        var escaped = false
        for character in word {
            if character == "\\" && !escaped {
                escaped = true
                continue
            }
            result.append(character)
            escaped = false
        }
        return result
    }
}

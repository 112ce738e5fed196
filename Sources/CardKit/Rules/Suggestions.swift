/// The candidate closest to `word` (case-insensitive), if one is close enough to be a typo of
/// it: for "did you mean". Close enough: one edit (a letter added, dropped, changed, or two
/// neighbours swapped) for words of up to five letters, two for longer ones, none for one or
/// two letters (`mc` is not a typo of `jcb`).
public func closest(to word: String, in candidates: [String]) -> String? {
    let target = Array(word.lowercased())
    let allowed = target.count <= 2 ? 0 : target.count <= 5 ? 1 : 2
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(target, Array(candidate.lowercased()))
        if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.candidate
}

/// The edits that turn `a` into `b`: letters added, dropped or changed, and two neighbouring
/// letters swapped (the optimal string alignment distance).
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var before = [Int](repeating: 0, count: b.count + 1)  // the row two letters back
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var row = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...b.count {
            let change = a[i - 1] == b[j - 1] ? 0 : 1
            row[j] = Swift.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + change)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                row[j] = Swift.min(row[j], before[j - 2] + 1)
            }
        }
        (before, previous) = (previous, row)
    }
    return previous[b.count]
}

import CardKit

/// What the editor's last layout choice was made for (`InteractiveEditor.updatePrompts`): a
/// view that differs from it only by its progress keeps the choice, so a digit is drawn
/// without choosing the layout again.
struct LayoutMemo {
    /// The choice showed the progress whole.
    var keepsProgress = false
    var field = Field.number
    var progressBytes = 0
    /// The columns the row has to spare (`Style.spareColumns`) while the progress is ASCII
    /// (a byte a cell); else 0.
    var spare = 0
    var columns = 0
    var label = "", hint = "", logo = ""

    init() {}

    init(_ choice: Style.LayoutChoice, for view: EntryView, columns: Int, spare: Int) {
        keepsProgress = !view.isCommand && choice.progress == view.progress
        field = view.field
        progressBytes = view.progress.utf8.count
        self.spare = view.progress.scalarCount == progressBytes ? max(0, spare) : 0
        self.columns = columns
        label = view.label
        hint = view.hint
        logo = view.logo
    }

    /// True when `view` differs from the one the choice was made for only by a progress of
    /// the same length, or one longer by no more than the row has to spare (the progress
    /// that widens, `9/16` to `10/16`: taken as the memo's from then on), shown whole.
    /// (Mutating so that calling it on the editor's property does not copy the memo.)
    mutating func differsOnlyByProgress(_ view: EntryView, columns: Int) -> Bool {
        guard keepsLayout(of: view, columns: columns) else { return false }
        let bytes = view.progress.utf8.count
        if bytes == progressBytes { return true }
        // Longer, within the spare columns, and ASCII (a cell a byte).
        guard bytes > progressBytes, bytes - progressBytes <= spare, view.progress.scalarCount == bytes else { return false }
        spare -= bytes - progressBytes
        progressBytes = bytes
        return true
    }

    /// The choice was made for a view like `view` (but for its progress) shown whole.
    @inline(__always)
    private func keepsLayout(of view: borrowing EntryView, columns: Int) -> Bool {
        keepsProgress && !view.isCommand && view.field == field && columns == self.columns
            && view.label == label && view.hint == hint && view.logo == logo
    }

    /// True when `view` with `progress` in place of its own, as many bytes long as the
    /// progress the choice was made for, differs only by that progress
    /// (`differsOnlyByProgress`, which changes nothing then): the next digit's, asked
    /// before it is typed (`armEarlyEcho`). Mutating, and `view` in place, so that neither
    /// is copied.
    mutating func keepsChoice(_ view: inout EntryView, progress: String, columns: Int) -> Bool {
        keepsLayout(of: view, columns: columns) && progress.utf8.count == progressBytes
    }

    /// The same for the editor's own view, read where it is (passed by value, a class's
    /// property is copied whole first).
    mutating func differsOnlyByProgress(_ view: inout EntryView, columns: Int) -> Bool {
        differsOnlyByProgress(view, columns: columns)
    }
}

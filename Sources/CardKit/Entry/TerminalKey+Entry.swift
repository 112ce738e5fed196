extension TerminalKey {
    /// What this key means to the entry engine, or nil for a key that is dropped without a
    /// word (focus reports, which cardline never asks for). Keys with no meaning at the prompt
    /// become `Key.other` with the key's name, refused with it; so does every modified form of
    /// a key that has one (Ctrl-Up is not Up). Ctrl-Z is the front end's own (suspend) and is
    /// `other` here.
    public var entryKey: Key? {
        guard modifiers.isEmpty else { return .other(name) }
        switch base {
        case .character(let character): return .character(character)
        case .keypad(let character): return .character(character)  // the numeric keypad's digits
        case .keypadEnter: return .enter
        case .control(let byte):
            switch byte {
            case 0x7F, 0x08: return .backspace
            case 0x0D, 0x0A: return .enter
            case 0x09: return .character("\t")
            case 0x15: return .clearLine
            case 0x03: return .cancel
            case 0x04: return .endOfInput
            case 0x10: return .historyPrevious
            case 0x0E: return .nextNetwork
            default: return .other(name)
            }
        case .up: return .historyPrevious
        case .down: return .historyNext
        case .focusIn, .focusOut: return nil
        default: return .other(name)
        }
    }
}

extension TerminalKey {
    /// The keys this terminal key types into the engine, as one burst: a paste's characters,
    /// with line breaks and other control characters left out (a pasted card is typed, never
    /// submitted: Enter is the person's); pasted track data (`%…` or `;…`, wherever it starts
    /// among those characters: `TrackData.swipeStart`) one `Key.swipe` after the characters
    /// before it; `entryKey` for any other key.
    ///
    /// The swipe is looked for in the characters typed, so that the paste's text without its
    /// control characters (as a recorded session's `@paste` line writes it) means the same keys.
    public var entryKeys: [Key] {
        guard case .paste(let text) = base else { return entryKey.map { [$0] } ?? [] }
        // Track data pasted (a reader that pastes, or track text copied): one swipe, never
        // typed (its digits would go into whatever field is active).
        // (Looked for in place: the paste's bytes without their control characters, read
        // lazily, are indexed as the paste is.)
        if let start = TrackData.swipeStart(in: text.utf8.lazy.filter { !Self.isControl($0) }) {
            var bytes = Array(text.utf8[start...])
            defer { bytes.overwriteAndEmpty() }
            var keys = Self.typed(text[..<start], room: 1)
            keys.append(.swipe(try? TrackData.read(bytes).get()))
            return keys
        }
        return Self.typed(text[...])
    }

    /// A paste's characters as keys, without its line breaks and other control characters, in
    /// an array sized once (with `room` to spare): a pasted number leaves no copy behind in a
    /// buffer outgrown. The characters are those of the text once the control characters are
    /// left out (a mark after a dropped NUL joins the character before it), so that the text a
    /// recorded `@paste` line writes means the same keys.
    private static func typed(_ text: Substring, room: Int = 0) -> [Key] {
        var kept = ""
        kept.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars where !isControl(scalar) { kept.unicodeScalars.append(scalar) }
        var keys: [Key] = []
        keys.reserveCapacity(text.utf8.count + room)
        for character in kept { keys.append(.character(character)) }
        return keys
    }

    /// A control character's byte, which a paste does not type.
    private static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7F }
}

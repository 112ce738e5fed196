import Testing

@testable import CardKit

/// The terminal key decoder: every key of the terminfo database's common terminals, split reads,
/// Alt chords, Esc, UTF-8 (valid and not), bracketed paste, malformed and unknown sequences, and
/// a deterministic random run.
@Suite struct KeyDecoderTests {
    typealias Key = TerminalKey

    static let esc: UInt8 = 0x1B

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// All keys of `bytes` fed at once, then flushed.
    static func decode(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        let keys = decoder.feed(bytes) + decoder.flush()
        #expect(!decoder.isPending)
        return keys
    }

    static func decode(_ text: String) -> [Key] { decode(bytes(text)) }

    static func char(_ c: Character, _ modifiers: Key.Modifiers = []) -> Key {
        Key(.character(c), modifiers: modifiers)
    }

    // MARK: - 1–3. Every key sequence in terminfo

    /// What a terminfo capability must decode to.
    enum Expected: CustomStringConvertible {
        /// Exactly this key.
        case key(Key)
        /// This base, with whatever modifiers (the terminfo entry is ambiguous about them).
        case base(Key.Base)
        /// `kfN` for N ≥ 13: F-N itself, or a lower function key with modifiers (xterm's kf13 is
        /// Shift-F1).
        case modifiedFunction(Int)
        /// A keypad key (its digit differs between terminals' keypad layouts) or Begin.
        case keypadOrBegin
        /// Some named key: not text, not a control byte, not unknown or invalid.
        case namedKey

        var description: String {
            switch self {
            case .key(let key): return key.name
            case .base(let base): return "\(base) with any modifiers"
            case .modifiedFunction(let n): return "F\(n), or a lower F-key with modifiers"
            case .keypadOrBegin: return "a keypad key"
            case .namedKey: return "a named key"
            }
        }

        func matches(_ key: Key) -> Bool {
            switch self {
            case .key(let expected): return key == expected
            case .base(let base): return key.base == base
            case .modifiedFunction(let n):
                guard case .function(let m) = key.base else { return false }
                return key.modifiers.isEmpty ? m == n : m < n
            case .keypadOrBegin:
                if case .keypad = key.base { return true }
                return key.base == .begin
            case .namedKey:
                switch key.base {
                case .character, .control, .unknown, .invalid, .paste: return false
                default: return true
                }
            }
        }
    }

    static let modifiedKeyBases: [String: Key.Base] = [
        "LFT": .left, "RIT": .right, "UP": .up, "DN": .down, "HOM": .home, "END": .end,
        "IC": .insert, "DC": .delete, "NXT": .pageDown, "PRV": .pageUp, "FND": .home,
    ]
    /// ncurses' suffixes for the extended modified keys (kLFT5 = Ctrl-Left).
    static let modifierSuffixes: [String: Key.Modifiers] = [
        "": .shift, "3": .alt, "4": [.alt, .shift], "5": .control, "6": [.control, .shift],
        "7": [.control, .alt],
    ]
    static let plainKeys: [String: Key.Base] = [
        "kcub1": .left, "kcuf1": .right, "kcuu1": .up, "kcud1": .down, "khome": .home,
        "kend": .end, "kich1": .insert, "kdch1": .delete, "kpp": .pageUp, "knp": .pageDown,
        "kbeg": .begin, "kent": .keypadEnter, "kcbt": .backTab, "kcbt2": .backTab,
        // vt220's Find and Select keys send what PC keyboards' Home and End send.
        "kfnd": .home, "kslt": .end,
    ]

    /// The meaning a capability must decode to, from its name.
    static func expected(terminal: String, capability: String, bytes: [UInt8]) -> Expected {
        // Control-byte capabilities (kbs = ^? or ^H, kspd = ^Z).
        if bytes.count == 1, bytes[0] < 0x20 || bytes[0] == 0x7F {
            return .key(Key(.control(bytes[0])))
        }
        // ESC + control byte: the Linux console's kcbt is ESC Tab, the same bytes as Alt-Tab
        // everywhere else, so it decodes as Alt-Tab.
        if bytes.count == 2, bytes[0] == esc, bytes[1] < 0x20 || bytes[1] == 0x7F {
            return .key(Key(.control(bytes[1]), modifiers: .alt))
        }
        if let base = plainKeys[capability] { return .key(Key(base)) }
        if capability == "kind" { return .base(.down) }  // scroll forward: Shift-Down or Down
        if capability == "kri" { return .base(.up) }
        if capability == "kb2" { return .keypadOrBegin }
        if capability.hasPrefix("kf"), let n = Int(capability.dropFirst(2)) {
            // vt100's kf0 and kf5–kf10 are its keypad keys (ESC O t …).
            if terminal == "vt100" && (n == 0 || n >= 5) { return .keypadOrBegin }
            if n == 0 { return .namedKey }
            return n <= 12 ? .key(Key(.function(n))) : .modifiedFunction(n)
        }
        // Extended modified keys: kLFT, kLFT3 … kLFT7.
        let name = capability.dropFirst()
        let digits = String(name.reversed().prefix { $0.isNumber }.reversed())
        let stem = String(name.dropLast(digits.count))
        if let base = modifiedKeyBases[stem], let modifiers = modifierSuffixes[digits] {
            // rxvt's kUP6 … kRIT6 are ESC O A … ESC O D: the application-mode arrows, which
            // cannot also be Ctrl-Shift-arrows.
            if terminal == "rxvt" && digits == "6" { return .base(base) }
            return .key(Key(base, modifiers: modifiers))
        }
        return .namedKey  // kel, khlp, krdo, the keypad (ka1, kpADD …)
    }

    static var terminfoCases: [(terminal: String, capability: String, bytes: [UInt8])] {
        terminfoKeySequences.filter { $0.capability != "kmous" }  // a mouse report's prefix, not a key
    }

    @Test func terminfoCoversTheTerminals() {
        let terminals = Set(terminfoKeySequences.map(\.terminal))
        #expect(
            terminals == [
                "xterm-256color", "screen", "screen-256color", "tmux-256color", "linux", "vt100",
                "vt220", "rxvt", "rxvt-unicode-256color", "putty",
            ])
        #expect(Self.terminfoCases.count > 500)
    }

    @Test func everyTerminfoKeyDecodesToOneKeyWithItsMeaning() {
        var exact = 0
        for (terminal, capability, bytes) in Self.terminfoCases {
            let keys = Self.decode(bytes)
            let expectation = Self.expected(terminal: terminal, capability: capability, bytes: bytes)
            #expect(keys.count == 1, "\(terminal) \(capability): \(keys.map(\.name))")
            guard let key = keys.first else { continue }
            #expect(
                expectation.matches(key),
                "\(terminal) \(capability) = \(Key(.unknown(bytes)).name) decoded as \(key.name), expected \(expectation)"
            )
            if case .key = expectation { exact += 1 }
        }
        #expect(exact > 350)  // most capabilities have one exact meaning (398 of the 642 non-mouse capabilities today)
    }

    @Test func terminfoKeysSplitAcrossTwoReadsDecodeTheSame() {
        for (terminal, capability, bytes) in Self.terminfoCases {
            let whole = Self.decode(bytes)
            for cut in 1..<bytes.count {
                var decoder = KeyDecoder()
                let keys = decoder.feed(bytes[..<cut]) + decoder.feed(bytes[cut...]) + decoder.flush()
                #expect(keys == whole, "\(terminal) \(capability) cut at \(cut)")
            }
        }
    }

    @Test func aDigitAfterEveryTerminfoKeyIsNotSwallowed() {
        for (terminal, capability, bytes) in Self.terminfoCases {
            let keys = Self.decode(bytes + Self.bytes("7"))
            #expect(keys == Self.decode(bytes) + [Self.char("7")], "\(terminal) \(capability): \(keys.map(\.name))")
        }
    }

    // MARK: - 4. Alt chords and Esc

    @Test func loneEscNeedsAFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([Self.esc]) == [])
        #expect(decoder.isPending)
        #expect(decoder.flush() == [Key(.escape)])
        #expect(!decoder.isPending)
        #expect(decoder.flush() == [])
        // Esc, a pause, then an arrow: two keys.
        #expect(decoder.feed([Self.esc]) == [])
        #expect(decoder.flush() == [Key(.escape)])
        #expect(decoder.feed(Self.bytes("\u{1B}[A")) == [Key(.up)])
    }

    @Test func altChords() {
        #expect(Self.decode("\u{1B}5") == [Self.char("5", .alt)])
        #expect(Self.decode("\u{1B}a") == [Self.char("a", .alt)])
        #expect(Self.decode("\u{1B} ") == [Self.char(" ", .alt)])
        #expect(Self.decode("\u{1B}\u{01}") == [Key(.control(0x01), modifiers: .alt)])
        #expect(Self.decode("\u{1B}\u{7F}") == [Key(.control(0x7F), modifiers: .alt)])
        #expect(Self.decode("\u{1B}é") == [Self.char("é", .alt)])
        #expect(Self.decode("\u{1B}😀") == [Self.char("😀", .alt)])
        // ESC [ and ESC O alone are Alt-[ and Alt-O once the pause shows nothing follows.
        #expect(Self.decode("\u{1B}[") == [Self.char("[", .alt)])
        #expect(Self.decode("\u{1B}O") == [Self.char("O", .alt)])
        // Interrupted by another key, too.
        #expect(Self.decode("\u{1B}[\u{1B}[B") == [Self.char("[", .alt), Key(.down)])
        #expect(Self.decode("\u{1B}O\u{7F}") == [Self.char("O", .alt), Key(.control(0x7F))])
    }

    @Test func escBeforeAnEscapeSequenceIsAlt() {
        #expect(Self.decode("\u{1B}\u{1B}[A") == [Key(.up, modifiers: .alt)])
        #expect(Self.decode("\u{1B}\u{1B}OD") == [Key(.left, modifiers: .alt)])
        #expect(Self.decode("\u{1B}\u{1B}[3~") == [Key(.delete, modifiers: .alt)])
        #expect(Self.decode("\u{1B}\u{1B}[1;5C") == [Key(.right, modifiers: [.alt, .control])])
        // ESC ESC followed by anything else: a lone Esc, then the rest.
        #expect(Self.decode("\u{1B}\u{1B}") == [Key(.escape), Key(.escape)])
        #expect(Self.decode("\u{1B}\u{1B}x") == [Key(.escape), Self.char("x", .alt)])
        #expect(Self.decode("\u{1B}\u{1B}\u{1B}") == [Key(.escape), Key(.escape), Key(.escape)])
        #expect(Self.decode("\u{1B}\u{1B}[") == [Key(.escape), Self.char("[", .alt)])
        // Focus events are not keys a person holds Alt for.
        #expect(Self.decode("\u{1B}\u{1B}[I") == [Key(.escape), Key(.focusIn)])
    }

    @Test func escFollowedByAByteThatCannotStartACharacter() {
        #expect(Self.decode([Self.esc, 0xFF]) == [Key(.escape), Key(.invalid([0xFF]))])
        #expect(Self.decode([Self.esc, 0x80, 0x35]) == [Key(.escape), Key(.invalid([0x80])), Self.char("5")])
        #expect(
            Self.decode([Self.esc, 0xE2, 0x82, 0x41]) == [Key(.escape), Key(.invalid([0xE2, 0x82])), Self.char("A")])
    }

    // MARK: - 4. UTF-8

    @Test func utf8Characters() {
        #expect(Self.decode("€") == [Self.char("€")])
        #expect(Self.decode("😀") == [Self.char("😀")])
        #expect(Self.decode("a é") == [Self.char("a"), Self.char(" "), Self.char("é")])
        #expect(Self.decode([0xC2, 0x80]) == [Self.char("\u{80}")])
        #expect(Self.decode([0xF4, 0x8F, 0xBF, 0xBF]) == [Self.char("\u{10FFFF}")])
        // A decomposed é: one key per scalar.
        #expect(Self.decode("e\u{301}") == [Self.char("e"), Self.char("\u{301}")])
        for text in ["€", "😀", "é"] {
            let bytes = Self.bytes(text)
            for cut in 1..<bytes.count {
                var decoder = KeyDecoder()
                #expect(decoder.feed(bytes[..<cut]) == [])
                #expect(decoder.isPending)
                #expect(decoder.feed(bytes[cut...]) == [Self.char(Character(text))])
                #expect(!decoder.isPending)
            }
        }
    }

    @Test(
        arguments: [
            ([0xFF], [[0xFF]]),
            ([0x80], [[0x80]]),
            ([0xBF, 0x80], [[0xBF], [0x80]]),
            ([0xC0, 0xAF], [[0xC0], [0xAF]]),  // overlong "/"
            ([0xC1, 0xBF], [[0xC1], [0xBF]]),
            ([0xE0, 0x80, 0xAF], [[0xE0], [0x80], [0xAF]]),  // overlong
            ([0xF0, 0x80, 0x80, 0xAF], [[0xF0], [0x80], [0x80], [0xAF]]),  // overlong
            ([0xED, 0xA0, 0x80], [[0xED], [0xA0], [0x80]]),  // surrogate U+D800
            ([0xF4, 0x90, 0x80, 0x80], [[0xF4], [0x90], [0x80], [0x80]]),  // U+110000
            ([0xF5, 0x80], [[0xF5], [0x80]]),
            ([0xE2, 0x82], [[0xE2, 0x82]]),  // cut short by the end of input
            ([0xF0, 0x9F, 0x98], [[0xF0, 0x9F, 0x98]]),
        ] as [([UInt8], [[UInt8]])])
    func invalidUTF8(input: [UInt8], runs: [[UInt8]]) {
        #expect(Self.decode(input) == runs.map { Key(.invalid($0)) })
    }

    @Test func truncatedUTF8ResyncsAtTheNextByte() {
        #expect(Self.decode([0xE2, 0x82, 0x41]) == [Key(.invalid([0xE2, 0x82])), Self.char("A")])
        #expect(Self.decode([0xE2, 0x37]) == [Key(.invalid([0xE2])), Self.char("7")])
        #expect(Self.decode([0xC3, 0x1B, 0x5B, 0x41]) == [Key(.invalid([0xC3])), Key(.up)])
        #expect(Self.decode([0xF0, 0x9F, 0xC3, 0xA9]) == [Key(.invalid([0xF0, 0x9F])), Self.char("é")])
        var decoder = KeyDecoder()
        #expect(decoder.feed([0xE2, 0x82]) == [])
        #expect(decoder.flush() == [Key(.invalid([0xE2, 0x82]))])
        #expect(decoder.feed(Self.bytes("4")) == [Self.char("4")])
    }

    // MARK: - 4. Escape sequences

    @Test(
        arguments: [
            ("\u{1B}[A", Key(.up)), ("\u{1B}OB", Key(.down)), ("\u{1B}[1;5D", Key(.left, modifiers: .control)),
            ("\u{1B}[1;2C", Key(.right, modifiers: .shift)), ("\u{1B}[1;9A", Key(.up, modifiers: .meta)),
            ("\u{1B}[1;16A", Key(.up, modifiers: [.shift, .alt, .control, .meta])),
            ("\u{1B}[H", Key(.home)), ("\u{1B}[F", Key(.end)), ("\u{1B}[E", Key(.begin)), ("\u{1B}OE", Key(.begin)),
            ("\u{1B}[G", Key(.begin)), ("\u{1B}[Z", Key(.backTab)),
            ("\u{1B}[1;5P", Key(.function(1), modifiers: .control)),
            ("\u{1B}[1;2S", Key(.function(4), modifiers: .shift)),
            ("\u{1B}[15;6~", Key(.function(5), modifiers: [.control, .shift])),
            ("\u{1B}[1~", Key(.home)), ("\u{1B}[2~", Key(.insert)), ("\u{1B}[3~", Key(.delete)),
            ("\u{1B}[4~", Key(.end)),
            ("\u{1B}[5~", Key(.pageUp)), ("\u{1B}[6~", Key(.pageDown)), ("\u{1B}[7~", Key(.home)),
            ("\u{1B}[8~", Key(.end)),
            ("\u{1B}[11~", Key(.function(1))), ("\u{1B}[21~", Key(.function(10))), ("\u{1B}[24~", Key(.function(12))),
            ("\u{1B}[26~", Key(.function(14))), ("\u{1B}[29~", Key(.function(16))), ("\u{1B}[34~", Key(.function(20))),
            ("\u{1B}[3;5~", Key(.delete, modifiers: .control)),
            // rxvt
            ("\u{1B}[3^", Key(.delete, modifiers: .control)), ("\u{1B}[2$", Key(.insert, modifiers: .shift)),
            ("\u{1B}[23@", Key(.function(11), modifiers: [.control, .shift])),
            ("\u{1B}Oa", Key(.up, modifiers: .control)),
            ("\u{1B}Od", Key(.left, modifiers: .control)), ("\u{1B}[b", Key(.down, modifiers: .shift)),
            ("\u{1B}[c", Key(.right, modifiers: .shift)),
            // Linux console
            ("\u{1B}[[A", Key(.function(1))), ("\u{1B}[[E", Key(.function(5))),
            // SS3 with xterm's modifier digit
            ("\u{1B}O5A", Key(.up, modifiers: .control)), ("\u{1B}O2P", Key(.function(1), modifiers: .shift)),
            ("\u{1B}O1;5C", Key(.right, modifiers: .control)),
            // the application keypad
            ("\u{1B}Op", Key(.keypad("0"))), ("\u{1B}Ou", Key(.keypad("5"))), ("\u{1B}Oy", Key(.keypad("9"))),
            ("\u{1B}Oj", Key(.keypad("*"))), ("\u{1B}Ok", Key(.keypad("+"))), ("\u{1B}Ol", Key(.keypad(","))),
            ("\u{1B}Om", Key(.keypad("-"))), ("\u{1B}On", Key(.keypad("."))), ("\u{1B}Oo", Key(.keypad("/"))),
            ("\u{1B}OX", Key(.keypad("="))), ("\u{1B}OM", Key(.keypadEnter)),
            // focus
            ("\u{1B}[I", Key(.focusIn)), ("\u{1B}[O", Key(.focusOut)),
            // CSI u and modifyOtherKeys
            ("\u{1B}[53;5u", Self.char("5", .control)), ("\u{1B}[97u", Self.char("a")),
            ("\u{1B}[27;5;53~", Self.char("5", .control)), ("\u{1B}[27u", Key(.escape)),
            ("\u{1B}[13;3u", Key(.control(0x0D), modifiers: .alt)), ("\u{1B}[97;69u", Self.char("a", .control)),
        ] as [(String, Key)])
    func knownSequences(sequence: String, key: Key) {
        #expect(Self.decode(sequence) == [key])
        #expect(Self.decode(sequence + "7") == [key, Self.char("7")])
    }

    @Test(arguments: [
        "\u{1B}[<0;10;5M", "\u{1B}[<0;10;5m",  // SGR mouse press and release
        "\u{1B}[12;5R",  // a cursor position report (row 12): not Ctrl-F3
        "\u{1B}[?1;2c", "\u{1B}[>0;276;0c", "\u{1B}[=1u",  // device attributes, private markers
        "\u{1B}[1;2$y",  // DECRPM: `$` here is an intermediate byte
        "\u{1B}[99z", "\u{1B}[9~", "\u{1B}[35~", "\u{1B}[201~", "\u{1B}[1;17A", "\u{1B}[2;5A", "\u{1B}[1;2;3A",
        "\u{1B}[5I", "\u{1B}[ q", "\u{1B}[57399u",  // kitty's functional keys (private use area)
        "\u{1B}OZ", "\u{1B}O ", "\u{1B}O5a", "\u{1B}[[Z",
    ])
    func unknownSequences(sequence: String) {
        let bytes = Self.bytes(sequence)
        #expect(Self.decode(bytes) == [Key(.unknown(bytes))])
        #expect(Self.decode(bytes + Self.bytes("7")) == [Key(.unknown(bytes)), Self.char("7")])
    }

    @Test func x10MouseReportsAreOneUnknownKey() {
        let report: [UInt8] = [Self.esc, 0x5B, 0x4D, 0x20, 0x21, 0xFF]
        #expect(Self.decode(report + [0x37]) == [Key(.unknown(report)), Self.char("7")])
        var decoder = KeyDecoder()
        #expect(decoder.feed(report[..<4]) == [])
        #expect(decoder.feed(report[4...]) == [Key(.unknown(report))])
        // A control byte cannot be part of a report: it ends it and is decoded afresh.
        #expect(
            Self.decode([Self.esc, 0x5B, 0x4D, 0x20, 0x0D]) == [
                Key(.unknown([Self.esc, 0x5B, 0x4D, 0x20])), Key(.control(0x0D)),
            ])
    }

    @Test func csiOverflowIsOneUnknownKeyAndTypesNoDigit() {
        let digits = [UInt8](repeating: 0x31, count: 70)
        let keys = Self.decode([Self.esc, 0x5B] + digits + [0x7E] + Self.bytes("7"))
        #expect(
            keys == [
                Key(.unknown([Self.esc, 0x5B] + [UInt8](repeating: 0x31, count: KeyDecoder.csiLimit - 2) + [0x7E])),
                Self.char("7"),
            ])
        // The same for SS3, and for an overflow cut by a control byte (decoded afresh).
        #expect(Self.decode([Self.esc, 0x4F] + digits + [0x41]).count == 1)
        #expect(Self.decode([Self.esc, 0x5B] + digits + [0x0D]).last == Key(.control(0x0D)))
        // At the limit, a final byte still completes the sequence.
        let long = [Self.esc, 0x5B] + [UInt8](repeating: 0x3B, count: 62) + [0x7A]
        #expect(Self.decode(long) == [Key(.unknown(long))])
    }

    @Test func aSequenceSplitByAPauseTypesNothing() {
        // Ctrl-Left over a slow link: ESC, a pause (flush), then the rest.
        var decoder = KeyDecoder()
        #expect(decoder.feed([Self.esc]).isEmpty)
        #expect(decoder.flush() == [Key(.escape)])
        #expect(decoder.feed(Self.bytes("[1;5D7")) == [Key(.left, modifiers: .control), Self.char("7")])
        // F5 cut after ESC [: Alt-[, then the rest is one key, not the digits 1 and 5.
        #expect(decoder.feed(Self.bytes("\u{1B}[")).isEmpty)
        #expect(decoder.flush() == [Key(.character("["), modifiers: .alt)])
        #expect(decoder.feed(Self.bytes("15~7")) == [Key(.function(5)), Self.char("7")])
        // SS3 cut after ESC O.
        #expect(decoder.feed(Self.bytes("\u{1B}O")).isEmpty)
        #expect(decoder.flush() == [Key(.character("O"), modifiers: .alt)])
        #expect(decoder.feed(Self.bytes("P7")) == [Key(.function(1)), Self.char("7")])
        // Anything else after the pause is typed as it is, and the window is one byte long.
        #expect(decoder.feed([Self.esc]).isEmpty)
        #expect(decoder.flush() == [Key(.escape)])
        #expect(decoder.feed(Self.bytes("7[")) == [Self.char("7"), Self.char("[")])
        // After a longer pause the next byte starts afresh.
        #expect(decoder.feed(Self.bytes("\u{1B}[")).isEmpty)
        _ = decoder.flush()
        #expect(decoder.isHoldingCutShort)
        decoder.forgetCutShort()
        #expect(decoder.feed(Self.bytes("41")) == [Self.char("4"), Self.char("1")])
    }

    @Test func aControlByteInsideACSIEndsItAndIsDecoded() {
        #expect(Self.decode("\u{1B}[1;\u{01}") == [Key(.unknown(Self.bytes("\u{1B}[1;"))), Key(.control(0x01))])
        #expect(Self.decode("\u{1B}[1\u{1B}[A") == [Key(.unknown(Self.bytes("\u{1B}[1"))), Key(.up)])
        #expect(Self.decode("\u{1B}[12\u{7F}") == [Key(.unknown(Self.bytes("\u{1B}[12"))), Key(.control(0x7F))])
        #expect(
            Self.decode([Self.esc, 0x5B, 0x32, 0xC3, 0xA9]) == [Key(.unknown([Self.esc, 0x5B, 0x32])), Self.char("é")])
        #expect(Self.decode("\u{1B}O5\u{1B}") == [Key(.unknown(Self.bytes("\u{1B}O5"))), Key(.escape)])
        #expect(Self.decode("\u{1B}[[\u{09}") == [Key(.unknown(Self.bytes("\u{1B}[["))), Key(.control(0x09))])
    }

    @Test func incompleteSequencesEndOnFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Self.bytes("\u{1B}[1;5")) == [])
        #expect(decoder.isPending)
        #expect(decoder.flush() == [Key(.unknown(Self.bytes("\u{1B}[1;5")))])
        #expect(decoder.feed(Self.bytes("9")) == [Self.char("9")])
        #expect(decoder.feed(Self.bytes("\u{1B}O")) == [])
        #expect(decoder.finish() == [Self.char("O", .alt)])
        #expect(!decoder.isPending)
    }

    // MARK: - 4. Bracketed paste

    static let pasteStart = "\u{1B}[200~"
    static let pasteEnd = "\u{1B}[201~"

    @Test func pasteIsOneKeyWithEscapeSequencesAsContent() {
        #expect(
            Self.decode(Self.pasteStart + "4111 1111\u{1B}[A1111\r" + Self.pasteEnd + "7")
                == [Key(.paste("4111 1111\u{1B}[A1111\r")), Self.char("7")])
        #expect(Self.decode(Self.pasteStart + Self.pasteEnd) == [Key(.paste(""))])
        // Near misses of the end marker are content, even when an ESC starts the real one.
        #expect(
            Self.decode(Self.pasteStart + "a\u{1B}[202~\u{1B}[20\u{1B}\u{1B}[201~")
                == [Key(.paste("a\u{1B}[202~\u{1B}[20\u{1B}"))])
        // Invalid UTF-8 in a paste becomes U+FFFD.
        #expect(
            Self.decode(Self.bytes(Self.pasteStart) + [0x41, 0xFF, 0xE2, 0x82] + Self.bytes(Self.pasteEnd))
                == [Key(.paste("A\u{FFFD}\u{FFFD}"))])
        // An ESC before the start marker is a lone Esc.
        #expect(Self.decode("\u{1B}" + Self.pasteStart + "x" + Self.pasteEnd) == [Key(.escape), Key(.paste("x"))])
    }

    @Test func pasteEndMarkerSplitAcrossReads() {
        let input = Self.bytes(Self.pasteStart + "5500 0000" + Self.pasteEnd)
        for cut in 1..<input.count {
            var decoder = KeyDecoder()
            var keys = decoder.feed(input[..<cut])
            // A pause inside the paste (not inside its start marker, which a pause would end).
            if cut >= Self.pasteStart.utf8.count { keys += decoder.flush() }
            keys += decoder.feed(input[cut...])
            #expect(keys == [Key(.paste("5500 0000"))], "cut at \(cut)")
            #expect(!decoder.isPending)
        }
    }

    @Test func flushDoesNotEndAPasteButFinishDoes() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Self.bytes(Self.pasteStart + "12")) == [])
        #expect(decoder.flush() == [])
        #expect(decoder.isPending)
        #expect(decoder.feed(Self.bytes("34\u{1B}[2")) == [])
        #expect(decoder.flush() == [])
        #expect(decoder.finish() == [Key(.paste("1234\u{1B}[2"))])
        #expect(!decoder.isPending)
        #expect(decoder.feed(Self.bytes("5")) == [Self.char("5")])
    }

    @Test func longPastesAreCutAtTheLimit() {
        let long = String(repeating: "1", count: 5000)
        let keys = Self.decode(Self.pasteStart + long + Self.pasteEnd + "7")
        #expect(keys == [Key(.paste(String(repeating: "1", count: KeyDecoder.pasteLimit))), Self.char("7")])
        // A character the limit cuts in two is dropped whole, not shown as U+FFFD.
        let cut = String(repeating: "a", count: KeyDecoder.pasteLimit - 1) + "€€"
        #expect(
            Self.decode(Self.pasteStart + cut + Self.pasteEnd)
                == [Key(.paste(String(repeating: "a", count: KeyDecoder.pasteLimit - 1)))])
        // The end marker is still found after the limit, including across reads.
        var decoder = KeyDecoder()
        #expect(decoder.feed(Self.bytes(Self.pasteStart + long + "\u{1B}[20")) == [])
        #expect(decoder.feed(Self.bytes("1~7")).last == Self.char("7"))
    }

    // MARK: - Names

    @Test(
        arguments: [
            (Key(.left, modifiers: .control), "Ctrl-Left"), (Self.char("5", .alt), "Alt-digit"),
            (Key(.backTab), "Shift-Tab"),
            (Key(.function(5)), "F5"), (Key(.function(5), modifiers: [.control, .shift]), "Ctrl-Shift-F5"),
            (Key(.escape), "Esc"), (Key(.delete), "Delete"), (Key(.control(0x01)), "Ctrl-A"),
            (Key(.control(0x01), modifiers: .alt), "Ctrl-Alt-A"), (Key(.pageUp), "Page Up"),
            (Key(.pageDown), "Page Down"),
            (Key(.insert), "Insert"), (Key(.home), "Home"), (Key(.begin), "keypad 5"), (Key(.keypad("5")), "keypad 5"),
            (Key(.keypad("*")), "keypad *"), (Key(.keypadEnter), "keypad Enter"),
            (Key(.up, modifiers: [.meta, .shift, .alt, .control]), "Ctrl-Alt-Shift-Meta-Up"),
            (Key(.control(0x09)), "Tab"), (Key(.control(0x0D)), "Enter"), (Key(.control(0x7F)), "Backspace"),
            (Key(.control(0x7F), modifiers: .alt), "Alt-Backspace"), (Key(.control(0x08)), "Ctrl-H"),
            (Key(.control(0x00)), "Ctrl-Space"), (Key(.control(0x1F)), "Ctrl-_"), (Self.char(" "), "Space"),
            (Self.char("€"), "€"), (Self.char("\u{9B}"), "U+009B"), (Self.char("\u{202E}"), "U+202E"),
            (Self.char("\u{301}"), "U+0301"), (Self.char("\u{A0}"), "U+00A0"),
            (Key(.unknown(Self.bytes("\u{1B}[99z"))), "an unknown escape sequence"),
            (Key(.unknown([0x1B, 0x5B, 0x4D, 0x20, 0x01, 0x7F, 0xFF])), "an unknown escape sequence"),
            (Key(.unknown([0x1B, 0x5B, 0x4D, 0x20, 0x21, 0x21])), "a mouse report"),
            (Key(.unknown(Self.bytes("\u{1B}[<0;10;5M"))), "a mouse report"),
            (Key(.unknown(Self.bytes("\u{1B}[<0;10;5m"))), "a mouse report"),
            (Key(.unknown(Self.bytes("\u{1B}[32;10;5M"))), "a mouse report"),
            (Key(.unknown(Self.bytes("\u{1B}[12;40R"))), "a status reply from the terminal"),
            (Key(.unknown(Self.bytes("\u{1B}[?62;22c"))), "a status reply from the terminal"),
            (Key(.unknown(Self.bytes("\u{1B}[4539 1488 0343 6467"))), "an unknown escape sequence"),
            (Key(.unknown(Self.bytes("\u{1B}O4539148803436467"))), "an unknown escape sequence"),
            (Key(.unknown(Self.bytes("\u{1B}\u{1B}[4539148803436467z"))), "an unknown escape sequence"),
            (Self.char("7", .alt), "Alt-digit"), (Self.char("7", [.control, .alt]), "Ctrl-Alt-digit"),
            (Self.char("\u{664}", .alt), "Alt-digit"), (Key(.keypad("7"), modifiers: .alt), "Alt-keypad digit"),
            (Self.char("x", .alt), "Alt-x"), (Self.char("[", .alt), "Alt-["),
            (Key(.invalid([0xFF])), "a byte that is not UTF-8 (0xFF)"),
            (Key(.invalid([0xE2, 0x82])), "bytes that are not UTF-8 (0xE2 0x82)"),
            (Key(.paste("4111111111111111")), "a paste of 16 characters"), (Key(.focusIn), "focus in"),
        ] as [(Key, String)])
    func names(key: Key, name: String) {
        #expect(key.name == name)
    }

    // MARK: - 5. Deterministic random input

    static let fragments: [[UInt8]] = [
        [0x1B], [0x1B], [0x1B], [0x5B], [0x5B], [0x4F], [0x3B], [0x7E], [0x3C], [0x4D], [0x41], [0x24], [0x5E],
        [0x30], [0x31], [0x32], [0x35], [0x39], [0x75], [0x61], [0x7F], [0x01], [0x0D],
        [0xC3], [0xE2], [0xF0], [0xF4], [0xED], [0x82], [0xA9], [0x9F], [0xBF], [0xFF], [0xC0],
        Array("\u{1B}[200~".utf8), Array("\u{1B}[201~".utf8), Array("\u{1B}[20".utf8), Array("€".utf8),
    ]

    /// The fewest input bytes a key can have come from.
    static func minimumBytes(_ key: Key) -> Int {
        let alt = key.modifiers.contains(.alt) ? 1 : 0
        switch key.base {
        case .character(let c): return c.utf8.count + alt
        case .control: return 1 + alt
        case .escape: return 1
        case .invalid(let bytes), .unknown(let bytes): return bytes.count
        case .paste(let text): return 6 + text.unicodeScalars.count  // start marker, one byte a scalar
        default: return 3  // ESC [ A, ESC O a
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    @Test func randomInputIsAccountedForAndNeverSwallowsLaterDigits() {
        var random = SeededRandom(seed: 0x5EED_CA4D)
        var failures: [String] = []
        let digits = Self.bytes("0123456789")
        for _ in 0..<100_000 where failures.count < 5 {
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<12, using: &random) {
                input += Self.fragments[Int.random(in: 0..<Self.fragments.count, using: &random)]
            }

            var whole = KeyDecoder()
            let keys = whole.feed(input) + whole.finish()

            // Split into random reads: the same keys.
            var chunked = KeyDecoder()
            var chunkedKeys: [Key] = []
            var start = 0
            while start < input.count {
                let end = min(input.count, start + 1 + Int.random(in: 0..<4, using: &random))
                chunkedKeys += chunked.feed(input[start..<end])
                start = end
            }
            chunkedKeys += chunked.finish()

            // Every byte accounted for at most once; refused bytes are the input's own.
            let accounted = keys.reduce(0) { $0 + Self.minimumBytes($1) }
            let refusedAreInput = keys.allSatisfy { key in
                switch key.base {
                case .invalid(let bytes), .unknown(let bytes): return Self.contains(input, bytes)
                default: return true
                }
            }
            let namesAreSafe = keys.allSatisfy { key in
                key.name.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }
            }

            // After a pause, typed digits are digits.
            var paused = KeyDecoder()
            _ = paused.feed(input)
            _ = paused.flush()
            paused.forgetCutShort()  // and a longer pause before the digits
            let pendingOnlyInPaste = !paused.isPending || paused.isInPaste
            if paused.isInPaste { _ = paused.finish() }
            let typed = paused.feed(digits)

            var problems: [String] = []
            if keys != chunkedKeys { problems.append("split reads decode differently") }
            if whole.isPending || !whole.finish().isEmpty { problems.append("pending after finish") }
            if accounted > input.count || keys.count > input.count { problems.append("more keys than bytes") }
            if !input.isEmpty && keys.isEmpty { problems.append("bytes vanished") }
            if !refusedAreInput { problems.append("refused bytes not from the input") }
            if !namesAreSafe { problems.append("a control character in a name") }
            if !pendingOnlyInPaste { problems.append("pending after flush") }
            if typed != digits.map({ Self.char(Character(Unicode.Scalar($0))) }) { problems.append("digits swallowed") }
            if !problems.isEmpty {
                failures.append("\(input.map { String($0, radix: 16) }): \(problems) \(keys.map(\.name))")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}

import CardChip

/// A `.session` script: keystrokes as a person would type them at the prompt, directives, and
/// expectations about the engine's state, one per line. Parsed by hand so that every error
/// names its line.
public struct SessionScript: Equatable, Sendable {
    /// Key lines, mid-session `@today`s and `@expect`s, in script order.
    public var steps: [Step]
    /// `@today`, if the script pins the date before its first keys.
    public var today: YearMonth?
    /// `@rules` folders, as written (relative to the script).
    public var ruleFolders: [String]
    /// The line of each `@rules` folder, in the same order.
    public var ruleFolderLines: [Int] = []
    /// False with `@no-default-rules`: the bundled networks are not read, only the `@rules`
    /// folders (and any `--rules` of the replay), as with `cardline --no-default-rules`.
    public var bundledRules = true
    /// The line of `@no-default-rules`, or 0.
    public var noDefaultRulesLine = 0
    /// `@retired`: retired networks are matched too, as with `cardline --retired`.
    public var retiredNetworks = false
    /// `@networks`: the accepted networks as written, and the line that says so.
    public var acceptedNetworks: (list: String, line: Int)? {
        get { networksList.map { ($0, networksLine) } }
        set { (networksList, networksLine) = (newValue?.list, newValue?.line ?? 0) }
    }
    private var networksList: String?
    private var networksLine = 0
    /// `@name`: the cardholder's name is asked for after the security code.
    public var asksName = false
    /// `@postal-code COUNTRY`: the postal code's country (a `PostalCodeFormats.bundled` one).
    public var postalCodeCountry: String?
    /// `@cvv-only ID`: only the security code of a card on file of that network, as written,
    /// and its line (the id is checked against the rules when they are loaded).
    public var securityCodeOnlyNetwork: String?
    public var securityCodeOnlyLine = 0
    /// The column where `@cvv-only`'s network starts, 1-based, in characters.
    public var securityCodeOnlyColumn = 11
    /// The column where `@networks`' list starts, 1-based, in characters (for located errors).
    public var networksColumn = 11
    /// The column where each `@rules` folder starts, in the same order as `ruleFolders`.
    public var ruleFolderColumns: [Int] = []

    /// One line of the script that does something when replayed.
    public struct Step: Equatable, Sendable {
        /// The line's number in the script, 1-based.
        public var line: Int
        /// What the line does.
        public var kind: Kind
        /// A step at script line `line`.
        public init(line: Int, kind: Kind) {
            self.line = line
            self.kind = kind
        }
    }

    /// What a step does.
    public enum Kind: Equatable, Sendable {
        /// Keys typed at the current prompt.
        case keys([Key])
        /// `@paste TEXT`: keys pasted at the current prompt, handed to the engine as one burst
        /// (a refused key of it shows the only reason the burst shows), as the prompt hands a
        /// bracketed paste (`TerminalKey.entryKeys`).
        case paste([Key])
        /// `@columns N`: the terminal is N columns wide from here on (a resize).
        case columns(Int)
        /// `@today` after keys: time moves on mid-session.
        case today(YearMonth)
        /// An `@expect` line: a check of the engine's state.
        case expect(Expectation)
    }

    /// What an `@expect` line checks.
    public enum Expectation: Equatable, Sendable {
        /// `@expect field cvv`: the active field.
        case field(Field)
        /// `@expect text "12/30"`: the active field's text exactly as shown (grouped digits, `•` for a CVV).
        case text(String)
        /// `@expect network visa`: the network detected so far (for a co-badged card, the one
        /// chosen: Ctrl-N, `:network ID`); nil for `none`.
        case network(String?)
        /// `@expect refused 2`: how many keys were refused since the previous expectation.
        case refused(Int)
        /// `@expect message "…"`: some line shown since the previous expectation contains this text.
        case message(String)
        /// `@expect accepted [network] [last four]`: the last submit was accepted, with that network and last four if given.
        case accepted(network: String?, lastFour: String?)
        /// `@expect failed expiry,cvv`: the last submit failed on exactly these fields.
        case failed(Set<Field>)
        /// `@expect cards 2`: how many cards the tray holds.
        case cards(Int)
        /// `@expect logo VISA`: the logo badge shown for the active field.
        case logo(String)
        /// `@expect entry swipe chip`: how the last accepted card's number came in (`keyed`,
        /// `swipe`) and, when given, whether a swiped card has a chip (`chip`, `no-chip`).
        case entry(PaymentCard.Entry, chip: Bool?)
    }

    /// A malformed line: printed as `file:line:column: error: message`.
    public struct SyntaxError: Error, Equatable, Sendable {
        /// The malformed line's number, 1-based.
        public var line: Int
        /// Where on the line the problem starts, 1-based, in characters (Unicode scalars).
        public var column: Int
        /// What is wrong with it, in words.
        public var message: String
        /// A syntax error on line `line`, at `column`.
        public init(line: Int, column: Int = 1, message: String) {
            self.line = line
            self.column = column
            self.message = message
        }
    }

    /// The key each ASCII character types, made once.
    static let asciiKeyTable: [Key] = (0..<128).map { .character(Character(Unicode.Scalar(UInt8($0)))) }

    /// The keys an ASCII line types, `<Name>` tokens included; nil when a token is unterminated
    /// or unknown (`keys(in:line:)` then says which). Empty unless `keeping`.
    static func asciiKeys(_ bytes: Span<UInt8>, keeping: Bool) -> [Key]? {
        let table = asciiKeyTable
        var keys: [Key] = []
        if keeping { keys.reserveCapacity(bytes.count) }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "<") else {
                if keeping { keys.append(table[Int(byte)]) }
                index += 1
                continue
            }
            var close = index + 1
            while close < bytes.count && bytes[close] != UInt8(ascii: ">") { close += 1 }
            guard close < bytes.count else { return nil }
            // <Enter> ends nearly every card: known without making a string to look up.
            var isEnter = close - index == 6
            if isEnter {
                for (offset, letter) in "enter".utf8.enumerated() where bytes[index + 1 + offset] | 0x20 != letter {
                    isEnter = false
                }
            }
            let key: Key
            if isEnter {
                key = .enter
            } else {
                var name = ""
                for i in (index + 1)..<close {
                    let letter = bytes[i]
                    name.unicodeScalars.append(Unicode.Scalar(letter &- 65 < 26 ? letter + 32 : letter))
                }
                guard let named = namedKeys[name] else { return nil }
                key = named
            }
            if keeping { keys.append(key) }
            index = close + 1
        }
        return keys
    }

    /// Key names in vim notation, as written between `<` and `>` (case-insensitive).
    static let namedKeys: [String: Key] = [
        "bs": .backspace, "backspace": .backspace, "enter": .enter, "cr": .enter, "return": .enter,
        "c-u": .clearLine, "c-c": .cancel, "c-d": .endOfInput, "up": .historyPrevious, "down": .historyNext,
        "c-n": .nextNetwork,
        "tab": .character("\t"), "lt": .character("<"), "space": .character(" "),
        // `#`, `@`, `%` and `;` at the start of a line would make it a comment, a directive or a swipe.
        "hash": .character("#"), "at": .character("@"), "percent": .character("%"), "semicolon": .character(";"),
        // Keys that do nothing at the prompt, so scripts can show them being refused.
        "left": .other("Left"), "right": .other("Right"), "home": .other("Home"), "end": .other("End"),
        "del": .other("Delete"), "esc": .other("Esc"), "c-left": .other("Ctrl-Left"), "c-right": .other("Ctrl-Right"),
    ]

    /// Parses a script's text, skipping blank lines and `#` comments; throws at the first malformed line.
    public static func parse(_ text: String) throws(SyntaxError) -> SessionScript {
        var parser = LineParser()
        var steps: [Step] = []
        for line in lines(of: text) {
            if let step = try parser.next(line) { steps.append(step) }
        }
        var script = parser.header
        script.steps = steps
        return script
    }

    /// Reads a script one line at a time, so that a long script can be replayed as it is read,
    /// never held whole: the header (`@today`, `@rules`, `@networks`) builds up in `header`,
    /// and each line that does something when replayed comes back as a step.
    public struct LineParser: Sendable {
        /// The script so far without its steps: the date, rule folders and networks it names.
        public private(set) var header = SessionScript(steps: [], today: nil, ruleFolders: [])
        /// The number of the line read last, 1-based.
        public private(set) var lineNumber = 0
        /// With `keepingKeys` false, key lines are checked but come back as empty `.keys([])`
        /// (a first pass that only validates the script).
        public var keepingKeys = true
        /// The AIDs a `@chip` or `@tap` card is read with (the rules' `aids`, `RuleSet.knownAIDs`):
        /// a card without a directory is asked for them in this order.
        public var knownAIDs: [ChipReadFlow.KnownAID] = []
        private var sawKeys = false

        /// A parser at the script's first line.
        public init() {}

        /// Parses the next line from its UTF-8 bytes (without the "\n"). A line of plain ASCII
        /// keys, the bulk of a generated script, is read straight from the bytes; any other
        /// line as by `next(_:)`.
        public mutating func next(bytes: Span<UInt8>) throws(SyntaxError) -> Step? {
            var end = bytes.count
            if end > 0 && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            var plain = end > 0 && bytes[0] != UInt8(ascii: "@") && bytes[0] != UInt8(ascii: "#")
            var blank = true
            var index = 0
            while plain && index < end {
                let byte = bytes[index]
                // (A line that may hold track data, `%B…^` or `;…=`, is a swipe: read by `next(_:)`.)
                if byte >= 0x80 || TrackData.isStartSentinel(byte) { plain = false }
                if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") { blank = false }
                index += 1
            }
            guard plain && !blank, let keys = SessionScript.asciiKeys(bytes.extracting(0..<end), keeping: keepingKeys)
            else {
                // Anything else, and every malformed line (for its exact message), as text.
                var text: [UInt8] = []
                text.reserveCapacity(bytes.count)
                for index in bytes.indices { text.append(bytes[index]) }
                return try next(Substring(String(decoding: text, as: UTF8.self)))
            }
            lineNumber += 1
            sawKeys = true
            return Step(line: lineNumber, kind: .keys(keys))
        }

        /// Parses the next line (without its "\n"); the step it makes, if any. A byte-order
        /// mark at the start of the first line is skipped.
        public mutating func next(_ rawLine: Substring) throws(SyntaxError) -> Step? {
            lineNumber += 1
            let number = lineNumber
            var rawLine = rawLine
            if number == 1 && rawLine.unicodeScalars.first == "\u{FEFF}" {
                rawLine = Substring(rawLine.unicodeScalars.dropFirst())
            }
            let line = rawLine.utf8.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            if line.utf8.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
                || line.utf8.first == UInt8(ascii: "#")
            {
                return nil
            }
            guard line.utf8.first == UInt8(ascii: "@") else {
                sawKeys = true
                // Track data in a key line (`TrackData.swipeStart`) is one swipe after the keys
                // before it, as at the prompt and on a pipe: never typed key by key.
                guard let start = TrackData.swipeStart(in: line.utf8) else {
                    return Step(line: number, kind: .keys(try keys(in: line, line: number, keeping: keepingKeys)))
                }
                var keys = try keys(in: line[..<start], line: number, keeping: keepingKeys)
                guard keepingKeys else { return Step(line: number, kind: .keys([])) }
                var bytes = Array(line.utf8[start...])
                defer { bytes.overwriteAndEmpty() }
                keys.append(.swipe(try? TrackData.read(bytes).get()))
                return Step(line: number, kind: .keys(keys))
            }
            // The directive, and the text after the space (or tab) that ends it.
            let (directive, text) = SessionScript.firstWord(Substring(line.unicodeScalars.dropFirst()))
            let argument = String(text).trimmingBlanks
            // Where the argument starts: after `@`, the directive, a space and any more blanks.
            let argumentColumn =
                directive.unicodeScalars.count + 3 + text.unicodeScalars.prefix { $0 == " " || $0 == "\t" }.count
            switch directive {
            case "today":
                guard let month = YearMonth(iso: argument) else {
                    throw SyntaxError(
                        line: number, column: argumentColumn,
                        message:
                            "@today takes a date as YYYY-MM, like 2026-11; got `\(argument.escapingControlCharacters)`")
                }
                if sawKeys { return Step(line: number, kind: .today(month)) }
                header.today = month
            case "rules":
                guard !argument.isEmpty else {
                    throw SyntaxError(line: number, message: "@rules takes a folder, relative to the script")
                }
                guard !sawKeys else {
                    throw SyntaxError(line: number, message: "@rules must come before the first line of keys")
                }
                header.ruleFolders.append(argument)
                header.ruleFolderLines.append(number)
                header.ruleFolderColumns.append(argumentColumn)
            case "networks":
                guard !argument.isEmpty else {
                    throw SyntaxError(
                        line: number, message: "@networks takes network ids separated by commas, like visa,mastercard")
                }
                guard !sawKeys else {
                    throw SyntaxError(line: number, message: "@networks must come before the first line of keys")
                }
                guard header.acceptedNetworks == nil else {
                    throw SyntaxError(line: number, message: "@networks is given twice (line \(header.networksLine))")
                }
                header.acceptedNetworks = (argument, number)
                header.networksColumn = argumentColumn
            case "expect":
                return Step(line: number, kind: .expect(try expectation(argument, line: number)))
            case "paste", "key", "columns":
                return try recordedInput(
                    directive, text: text, argument: argument, line: number, column: argumentColumn)
            case "name", "postal-code", "cvv-only":
                try formDirective(directive, argument, line: number, column: argumentColumn)
            case "no-default-rules", "retired":
                guard argument.isEmpty else {
                    throw SyntaxError(line: number, message: "@\(directive) takes nothing after it")
                }
                guard !sawKeys else {
                    throw SyntaxError(line: number, message: "@\(directive) must come before the first line of keys")
                }
                if directive == "retired" {
                    header.retiredNetworks = true
                } else {
                    (header.bundledRules, header.noDefaultRulesLine) = (false, number)
                }
            case "swipe":
                // A card swiped (`Key.swipe`): the track data as a reader types it, read here.
                guard !argument.isEmpty else {
                    throw SyntaxError(
                        line: number,
                        message:
                            "@swipe takes the track data as a reader types it: %B…? (track 1), ;…? (track 2), or both")
                }
                sawKeys = true
                guard keepingKeys else { return Step(line: number, kind: .keys([])) }
                var bytes = Array(argument.utf8)
                defer { bytes.overwriteAndEmpty() }
                return Step(line: number, kind: .keys([.swipe(try? TrackData.read(bytes).get())]))
            case "chip", "tap":
                // A card inserted (`@chip`) or tapped (`@tap`): its answers in hex, one a word, in
                // the order the read asks for them, run through the reader's flow (`Key.chip`).
                let answers = argument.split(separator: " ").map { Hex.bytes($0) }
                guard !answers.isEmpty, answers.allSatisfy({ $0 != nil }) else {
                    throw SyntaxError(
                        line: number,
                        message:
                            "@\(directive) takes the card's answers in hex, one a word, in the order the read asks for them, like `@\(directive) 6A82 6F1A…9000`"
                    )
                }
                sawKeys = true
                guard keepingKeys else { return Step(line: number, kind: .keys([])) }
                let card = ChipReadFlow.read(
                    answers.map { $0! }, known: knownAIDs, contactless: directive == "tap")
                return Step(line: number, kind: .keys([.chip(card)]))
            default:
                var message = "unknown directive `@\(directive)`"
                if let guess = closest(
                    to: directive,
                    in: [
                        "today", "rules", "no-default-rules", "retired", "networks", "expect", "name", "postal-code",
                        "cvv-only", "swipe", "chip", "tap", "paste", "key", "columns",
                    ])
                {
                    message += "; did you mean `@\(guess)`?"
                }
                throw SyntaxError(
                    line: number,
                    message: message
                        + " (directives: @today, @rules, @no-default-rules, @retired, @networks, @expect, @name,"
                        + " @postal-code, @cvv-only, @swipe, @chip, @tap, @paste, @key, @columns)")
            }
            return nil
        }
    }

    /// The text's lines, split on "\n" by scanning bytes (a generated script has 100,000 lines).
    static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        var start = text.utf8.startIndex
        for index in text.utf8.indices where text.utf8[index] == UInt8(ascii: "\n") {
            lines.append(text[start..<index])
            start = text.utf8.index(after: index)
        }
        lines.append(text[start...])
        return lines
    }

    /// The keys a line types: one per Unicode scalar, as a terminal delivers them, with
    /// `<Name>` tokens for named keys.
    static func keys(in line: Substring, line number: Int, keeping: Bool = true) throws(SyntaxError) -> [Key] {
        var keys: [Key] = []
        let utf8 = line.utf8
        if keeping { keys.reserveCapacity(utf8.count) }
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte < 0x80 && byte != UInt8(ascii: "<") {
                // Plain ASCII straight from the bytes: the common case, and much cheaper.
                if keeping { keys.append(.character(Character(Unicode.Scalar(byte)))) }
                index = utf8.index(after: index)
            } else if byte != UInt8(ascii: "<") {
                // Any other character: one key per Unicode scalar, as a terminal delivers them.
                if keeping { keys.append(.character(Character(line.unicodeScalars[index]))) }
                index = line.unicodeScalars.index(after: index)
            } else {
                let nameStart = utf8.index(after: index)
                let column = line.unicodeScalars[..<index].count + 1
                guard let close = utf8[nameStart...].firstIndex(of: UInt8(ascii: ">")) else {
                    throw SyntaxError(
                        line: number, column: column,
                        message: "unterminated key name after '<'; write <lt> for a literal '<'")
                }
                let name = String(line[nameStart..<close]).escapingControlCharacters
                guard let key = namedKeys[name.lowercased()] else {
                    throw SyntaxError(
                        line: number, column: column,
                        message:
                            "unknown key name <\(name)> (known: <BS> <Enter> <Tab> <Up> <Down> <C-u> <C-c> <C-d> <C-n> <Space> <lt> <Hash> <At> <Percent> <Semicolon> <Left> <Right> <Home> <End> <Del> <Esc> <C-Left> <C-Right>; any other key: @key NAME)"
                    )
                }
                if keeping { keys.append(key) }
                index = utf8.index(after: close)
            }
        }
        return keys
    }
}

extension SessionScript.LineParser {
    /// `@paste TEXT` (the rest of the line after one space, exactly: a paste's spaces count),
    /// `@key NAME` (a key that does nothing at the prompt, by the name its refusal gives it:
    /// `F5`, `Alt-digit`) and `@columns N`: what `cardline --record` writes besides key lines.
    mutating func recordedInput(
        _ directive: String, text: Substring, argument: String, line number: Int, column: Int
    ) throws(SessionScript.SyntaxError) -> SessionScript.Step {
        switch directive {
        case "paste":
            guard !text.isEmpty else {
                throw SessionScript.SyntaxError(line: number, message: "@paste takes the text pasted, after one space")
            }
            sawKeys = true
            guard keepingKeys else { return .init(line: number, kind: .paste([])) }
            return .init(line: number, kind: .paste(TerminalKey(.paste(String(text))).entryKeys))
        case "key":
            guard !argument.isEmpty else {
                throw SessionScript.SyntaxError(
                    line: number, message: "@key takes one key's name, as its refusal gives it, like `@key F5`")
            }
            sawKeys = true
            return .init(line: number, kind: .keys(keepingKeys ? [.other(argument)] : []))
        default:
            guard let columns = Int(argument), (1...10_000).contains(columns) else {
                throw SessionScript.SyntaxError(
                    line: number, column: column,
                    message:
                        "@columns takes the terminal's width, a whole number like 80; got `\(argument.escapingControlCharacters)`"
                )
            }
            return .init(line: number, kind: .columns(columns))
        }
    }

    /// `@name`, `@postal-code COUNTRY`, `@cvv-only ID`: the fields asked for (`EntryForm`), as
    /// `--name`, `--postal-code` and `--cvv-only --network` set them; before the first keys.
    mutating func formDirective(_ directive: String, _ argument: String, line number: Int, column: Int)
        throws(SessionScript.SyntaxError)
    {
        guard !sawKeys else {
            throw SessionScript.SyntaxError(
                line: number, message: "@\(directive) must come before the first line of keys")
        }
        switch directive {
        case "name":
            guard argument.isEmpty else {
                throw SessionScript.SyntaxError(line: number, message: "@name takes nothing after it")
            }
            header.asksName = true
        case "postal-code":
            guard PostalCodeFormats.bundled.format(for: argument) != nil else {
                throw SessionScript.SyntaxError(
                    line: number, column: column,
                    message: "@postal-code: " + PostalCodeFormats.bundled.unknownCountryMessage(argument))
            }
            header.postalCodeCountry = argument.uppercased()
        default:
            guard !argument.isEmpty else {
                throw SessionScript.SyntaxError(line: number, message: "@cvv-only takes the card's network, like amex")
            }
            header.securityCodeOnlyNetwork = argument
            header.securityCodeOnlyLine = number
            header.securityCodeOnlyColumn = column
        }
    }
}

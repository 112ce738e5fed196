extension EntryEngine {
    // MARK: - Commands

    mutating func handleCommandKey(_ key: Key) -> Outcome {
        guard var line = command else { return .ignored }
        switch key {
        case .character(let character):
            guard character.isPrintableASCII else {
                return refuse(.commandCharacter, ("character", .text(quoted(character))))
            }
            guard line.count < Self.maxCommandLength else {
                return refuse(.commandTooLong, ("count", .number(Self.maxCommandLength)))
            }
            line.append(character)
            command = line
            return .accepted
        case .backspace:
            line.removeLast()
            command = line.isEmpty ? nil : line
            return .accepted
        case .clearLine:
            command = nil
            return .accepted
        case .cancel:
            return cancelCard()
        case .endOfInput:
            return refuse(.keyCtrlDField)
        case .historyPrevious, .historyNext, .nextNetwork:
            return recallStep(backwards: key == .historyPrevious)
        case .other(let name):
            return refuse(.keyDoesNothing, ("key", .text(name)))
        case .swipe:
            return refuse(.swipeElsewhere)
        case .chip(var card):
            card?.wipe()
            return refuse(.chipUnreadable)
        case .enter:
            command = nil
            // A command line that holds a card number (typed in the wrong place) is neither
            // recalled later nor handed on for a history file, and is echoed masked.
            let holdsNumber = CardNumber.mayHoldCardNumber(line)
            if !holdsNumber { remember(line, in: .command) }
            var outcome = run(command: line)
            if holdsNumber { outcome.command = nil }
            return outcome
        }
    }

    private mutating func run(command line: String) -> Outcome {
        let words = line.dropFirst().split(separator: " ").map(String.init)
        let name = words.first ?? ""
        let argument = words.count > 1 ? Int(words[1]) : nil
        var outcome: Outcome
        func info(_ lines: [String]) -> Outcome { Outcome(messages: lines.map { .init(.info, $0) }) }
        switch (name, words.count) {
        case ("help", 1), ("h", 1), ("?", 1):
            outcome = Outcome(messages: Self.helpIDs(cancelEndsEntry: cancelEndsEntry).map { say(.info, $0) })
        case ("cards", 1):
            outcome = info(tray.listing(messages))
        case ("use", 2) where argument != nil:
            outcome =
                tray.select(argument!)
                ? Outcome(
                    messages: [say(.info, .commandSelected, ("number", .number(argument!)))]
                        + tray.listing(messages).map { Message(.info, $0) })
                : Outcome(messages: [noSuchCard(words[1])])
        case ("remove", 2) where argument != nil:
            if let card = tray.remove(argument!) {
                let removed = say(.info, .commandRemoved, ("card", .text("\(card.networkName) \(card.maskedNumber)")))
                outcome = Outcome(messages: [removed])
            } else {
                outcome = Outcome(messages: [noSuchCard(words[1])])
            }
        case ("clear", 1):
            resetCard()
            let cleared = say(
                .info, form.securityCodeOnly == nil ? .cardCleared : .cardClearedCode,
                ("code", .text(securityCode.name)))
            outcome = Outcome(messages: [cleared], fieldChanged: true)
        case ("rules", 1):
            let heading =
                acceptedNetworks.map {
                    [
                        messages.text(.rulesAccepted, ("networks", $0.names(in: rules, and: messages.text(.listAnd)))),
                        messages.text(.rulesOthers),
                    ]
                } ?? []
            outcome = info(
                heading
                    + Self.rulesTable(
                        rules.networks.map { network in
                            [
                                "\(network.id)", "\(network.name)",
                                messages.text(.rulesDigits, ("lengths", Self.lengthRuns(network.allLengths)))
                                    + ", \(network.securityCodeSummary)",
                            ]
                                + (acceptedNetworks.map {
                                    [messages.text($0.accepts(network) ? .rulesRowAccepted : .rulesRowNotAccepted)]
                                } ?? [])
                        }, columns: columns))
        case ("quit", 1), ("q", 1), ("exit", 1):
            outcome = quit()
        case ("reload", 1):
            outcome = Outcome(event: .reloadRules)
        case ("network", 1), ("network", 2):
            outcome = chooseNetwork(words.count == 2 ? words[1] : nil)
        case ("use", _), ("remove", _):
            outcome = Outcome(messages: [say(.error, .commandUsageCard, ("command", .text(name)))])
        case ("network", _):
            outcome = Outcome(messages: [say(.error, .commandUsageNetwork)])
        default:
            let known = ["help", "cards", "use", "remove", "clear", "rules", "reload", "network", "quit"]
            let shown = CardNumber.maskingDigits(in: line)
            let said =
                closest(to: name, in: known).map {
                    say(.error, .commandUnknownGuess, ("command", .text(shown)), ("guess", .text(":" + $0)))
                }
                ?? say(.error, .commandUnknown, ("command", .text(shown)))
            outcome = Outcome(messages: [said])
        }
        outcome.command = line  // (no field help after it: the field's line says where typing goes)
        return outcome
    }

    /// "there is no card 7", naming the argument only when it is short: a card number typed
    /// after `:use` or `:remove` is never echoed, not even masked.
    func noSuchCard(_ argument: String) -> Message {
        argument.utf8.count <= 4
            ? say(.error, .commandNoCard, ("number", .text(argument))) : say(.error, .commandNoCardLong)
    }

    /// Lengths as `:rules` lists them: runs of consecutive lengths as `12-19`, others apart
    /// (`16,18-19`), so that a line fits 80 columns.
    static func lengthRuns(_ lengths: [Int]) -> String {
        var runs: [String] = []
        var index = 0
        while index < lengths.count {
            var end = index
            while end + 1 < lengths.count && lengths[end + 1] == lengths[end] + 1 { end += 1 }
            runs.append(end > index ? "\(lengths[index])-\(lengths[end])" : "\(lengths[index])")
            index = end + 1
        }
        return runs.joined(separator: ",")
    }

    /// The lines `:help` shows: what to type, the keys (Ctrl-C and Esc as `cancelEndsEntry`
    /// says) and the commands, in `messages`' words. Each line fits 80 columns (English: ASCII).
    public static func helpText(cancelEndsEntry: Bool, messages: MessageCatalog = .english) -> [String] {
        helpIDs(cancelEndsEntry: cancelEndsEntry).map { messages.text($0) }
    }

    /// The texts of `helpText`'s lines.
    static func helpIDs(cancelEndsEntry: Bool) -> [MessageID] {
        let cancelKeys: [MessageID] =
            cancelEndsEntry ? [.helpKeysEnds1, .helpKeysEnds2] : [.helpKeysCancels1, .helpKeysCancels2]
        let ids: [MessageID] =
            [.helpIntro, .helpKeys1, .helpKeys2] + cancelKeys
            + [
                .helpKeysNetwork, .helpCommands, .helpCommands1, .helpCommands2, .helpCommands3, .helpCommands4,
                .helpCommands5,
            ]
        return ids
    }

    /// Takes the rule folders read again after `:reload`: new rules replace the old ones and
    /// the number typed so far is detected again; broken rules leave the old ones in force.
    public mutating func reload(_ result: Result<RuleSet, RuleErrors>) -> Outcome {
        switch result {
        case .success(let newRules):
            rules = newRules
            detection = rules.detect(numberDigits)
            emptyDetection = rules.detect([UInt8]())
            undecidedLogo = Self.undecidedLogo(rules, acceptedNetworks)
            let reloaded = say(.success, .rulesReloaded, ("count", .number(rules.networks.count)))
            return Outcome(messages: [reloaded] + newRules.warnings.map { Message(.info, $0.description) })
        case .failure(let errors):
            let lines = errors.errors.map { Message(.info, $0.description) }
            return Outcome(messages: [say(.error, .rulesNotReloaded)] + lines)
        }
    }
}

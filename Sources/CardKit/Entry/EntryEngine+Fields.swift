import CardChip

extension EntryEngine {
    /// How a number that was not typed came in (`cardRead`).
    enum CardRead: Equatable, Sendable {
        /// A swipe, and whether the track's service code says the card has a chip.
        case swipe(chip: Bool)
        /// A chip read, inserted or tapped, with the PAN sequence number if the card gives one.
        case chip(contactless: Bool, panSequence: Int?)

        var entry: PaymentCard.Entry {
            switch self {
            case .swipe: return .swipe
            case .chip(let contactless, _): return contactless ? .contactless : .chip
            }
        }
    }

    // MARK: - Swipe

    /// Whether a swipe is taken now: at the card number field while it is empty and no `:`
    /// command is typed. Front ends collect a swipe's bytes unechoed only then.
    public var takesSwipe: Bool { field == .number && command == nil && numberDigits.isEmpty }

    /// A swipe (`Key.swipe`): the number and expiry from the track fill their fields, checked
    /// as typed ones are (`problem(in:)`, `ExpiryPolicy`), and the card moves on to the first
    /// field still empty after them. A swipe that was not read, or whose number or expiry is
    /// refused, leaves the fields empty with one reason (`TrackData.unreadableMessage`, or
    /// that the network is not accepted here, or that the card has expired).
    mutating func takeSwipe(_ swipe: TrackData?) -> Outcome {
        guard takesSwipe else { return refuse(.swipeElsewhere) }
        guard let swipe else { return refuse(.swipeUnreadable) }
        return takeRead(
            swipe.numberDigits, month: swipe.expiryMonth, year: swipe.expiryYear, name: swipe.holderName,
            as: .swipe(chip: swipe.chip))
    }

    /// A chip read (`Key.chip`), taken as a swipe is (`takeSwipe`): the number and expiry of
    /// the card's first application (its highest priority), with the same checks and
    /// refusals; a co-badged card's network is preselected from that application's AID (the
    /// rules' `aids`), and Ctrl-N or `:network` choose another as for any co-badged card.
    /// The card's bytes are overwritten here, taken or not.
    mutating func takeChip(_ card: ChipCard?) -> Outcome {
        var card = card
        defer { card?.wipe() }
        guard let first = card?.applications.first else { return refuse(.chipUnreadable) }
        guard takesSwipe else { return refuse(.chipElsewhere) }
        return takeRead(
            first.numberDigits, month: first.expiryMonth, year: first.expiryYear, name: first.holderName,
            as: .chip(contactless: card?.contactless == true, panSequence: first.panSequence),
            preferring: rules.network(ofAID: first.aid))
    }

    /// A number and expiry read from a card (a swipe's tracks, a chip), checked and taken.
    /// `preferring`: the network a chip's application names, chosen when it is one of the card's.
    private mutating func takeRead(
        _ digits: [UInt8], month: Int, year: Int, name: String?, as read: CardRead, preferring: CardNetwork? = nil
    ) -> Outcome {
        let isChip = if case .chip = read { true } else { false }
        let unreadable: MessageID = isChip ? .chipUnreadable : .swipeUnreadable
        guard (1...12).contains(month), (0...99).contains(year) else { return refuse(unreadable) }
        numberDigits.append(contentsOf: digits)  // into the storage reserved up front
        numberEnd = 0
        chosenNetworkID = nil
        detection = rules.detect(numberDigits)
        let expiry = YearMonth(year: expiryPolicy.fullYear(year), month: month)
        var reason: Message?
        if let problem = problem(in: .number) {
            let notAccepted =
                detection.network != nil
                && acceptedNetworks.map { accepted in !detection.networks.contains(where: accepted.accepts) } == true
            reason = notAccepted ? problem : say(.error, unreadable)
        } else if expiryPolicy.check(expiry) == .past {
            reason = say(.error, isChip ? .chipExpired : .swipeExpired, ("expiry", .text(expiry.cardText)))
        } else if expiryPolicy.check(expiry) == .tooFar {
            reason = say(.error, unreadable)
        }
        if let reason {
            clearActive()
            return .refused(reason)
        }
        expiryDigits.overwriteAndEmpty()
        for value in [expiry.month / 10, expiry.month % 10, year / 10, year % 10] {
            expiryDigits.append(UInt8(value))
        }
        cardRead = read
        if let preferring, cardNetworks.contains(where: { $0 === preferring }) { chosenNetworkID = preferring.id }
        // The name from track 1 or the chip, when the form asks for one and none is typed yet:
        // taken as typed characters would be (`HolderName`), or not at all.
        if form.asksName, nameBytes.isEmpty, let name {
            for character in name where !HolderName.skips(character, after: holderName) {
                guard HolderName.refusal(of: character, after: holderName) == nil else {
                    nameBytes.overwriteAndEmpty()
                    break
                }
                nameBytes.append(contentsOf: character.utf8)
            }
            // What `HolderName.finished` drops from the end, overwritten in place.
            nameBytes.overwriteLast(nameBytes.count - HolderName.finished(holderName).utf8.count)
            nameFromSwipe = !nameBytes.isEmpty
        }
        field = .cvv  // the first field still empty: neither a track nor a chip gives the security code
        var messages: [Message] = []
        if let message = coBadgedMessage { messages.append(message) }
        if let network { messages.append(cardSummary(network, expiry: expiry)) }
        messages.append(help)
        return Outcome(messages: messages, fieldChanged: true)
    }

    /// For a swiped card, whether its service code says it has a chip; nil otherwise.
    var swipedWithChip: Bool? {
        if case .swipe(let chip) = cardRead { return chip }
        return nil
    }

    /// A chip card's PAN sequence number, when it gives one.
    var chipPANSequence: Int? {
        if case .chip(_, let sequence) = cardRead { return sequence }
        return nil
    }

    // MARK: - Field values

    var activeDigits: [UInt8] {
        switch field {
        case .number: return numberDigits
        case .expiry: return expiryDigits
        case .cvv: return cvvDigits
        case .name, .postalCode: return []  // (not digits: never recalled)
        }
    }

    /// True when the active field holds nothing and no `:` command is being typed.
    public var activeIsEmpty: Bool { command == nil && characterCount(of: field) == 0 }

    /// How many characters `field` holds (digits, or the name's or postal code's characters).
    func characterCount(of field: Field) -> Int {
        switch field {
        case .number: return numberDigits.count
        case .expiry: return expiryDigits.count
        case .cvv: return cvvDigits.count
        case .name: return nameBytes.isEmpty ? 0 : holderName.count
        case .postalCode: return postalCharacters.count
        }
    }

    /// Empties the active field, overwriting its digits in place.
    mutating func clearActive() {
        switch field {
        case .number:
            numberDigits.overwriteAndEmpty()
            numberEnd = 0
            chosenNetworkID = nil
            cardRead = nil
            detection = rules.detect(numberDigits)
        case .expiry: expiryDigits.overwriteAndEmpty()
        case .cvv: cvvDigits.overwriteAndEmpty()
        case .name:
            nameBytes.overwriteAndEmpty()
            nameFromSwipe = false
        case .postalCode: postalCharacters.overwriteAndEmpty()
        }
    }

    var expiryMonth: Int? {
        expiryDigits.count >= 2 ? Int(expiryDigits[0]) * 10 + Int(expiryDigits[1]) : nil
    }

    /// The expiry once all four digits are in (`MM/YY`), or all six (`MM/YYYY`).
    public var expiry: YearMonth? {
        guard let month = expiryMonth else { return nil }
        if expiryDigits.count == Self.longestExpiryDigits {
            return YearMonth(year: expiryDigits[2...].reduce(0) { $0 * 10 + Int($1) }, month: month)
        }
        guard expiryDigits.count == 4 else { return nil }
        return YearMonth(year: expiryPolicy.fullYear(Int(expiryDigits[2]) * 10 + Int(expiryDigits[3])), month: month)
    }

    /// The most digits an expiry has: `MM/YYYY`'s six.
    static let longestExpiryDigits = 6
    /// The widest expiry shown: `MM/YYYY`, seven characters (the slash with the digits).
    public static let widestExpiryText = longestExpiryDigits + 1

    /// `MM/YY` (`MM/YYYY`) as far as it is typed; the slash appears once the month is complete.
    var expiryText: String {
        // At most seven bytes: made in place as a small string, no allocation.
        String(unsafeUninitializedCapacity: Self.widestExpiryText) { buffer in
            var at = 0
            for (index, digit) in expiryDigits.prefix(Self.longestExpiryDigits).enumerated() {
                if index == 2 {
                    buffer[at] = UInt8(ascii: "/")
                    at += 1
                }
                buffer[at] = digit + 48
                at += 1
            }
            if expiryDigits.count == 2 {
                buffer[at] = UInt8(ascii: "/")
                at += 1
            }
            return at
        }
    }

    /// The security code asked for: the network's, or any length a rule file may give one
    /// while the network is unknown.
    public var securityCode: CardPolicy.SecurityCode { CardPolicy.securityCode(for: securityCodeNetwork) }

    /// The network whose security code is asked for: the number's, or with `--cvv-only` the
    /// card on file's.
    var securityCodeNetwork: CardNetwork? { form.securityCodeOnly ?? detection.network }

    /// A field's name in messages: "card number", "expiry", or the security code's name (`CVV`, `CID`, …).
    public func fieldName(_ field: Field) -> String {
        switch field {
        case .number: return messages.text(.fieldNumber)
        case .expiry: return messages.text(.fieldExpiry)
        case .cvv: return securityCode.name
        case .name: return messages.text(.fieldName)
        case .postalCode: return form.postalCode?.fieldName(messages) ?? messages.text(.fieldPostalCode)
        }
    }

    /// The one-line help for the active field, 80 columns at most (with many accepted
    /// networks, `:rules` names them).
    public var help: Message {
        switch field {
        case .number:
            if chipReaderAttached {
                if let acceptedNetworks {
                    let names = Message.Value.list(acceptedNetworks.nameList(in: rules), .listAnd)
                    let help = say(.help, .helpNumberChipAccepted, ("networks", names))
                    if help.text.unicodeScalars.count <= 80 { return help }
                }
                return say(.help, .helpNumberChip)
            }
            if let acceptedNetworks {
                // The longest wording that fits (made here: it must be measured).
                let names = Message.Value.list(acceptedNetworks.nameList(in: rules), .listAnd)
                for id in [MessageID.helpNumberAccepted, .helpNumberAcceptedShort] {
                    let help = say(.help, id, ("networks", names))
                    if help.text.unicodeScalars.count <= 80 { return help }
                }
                return say(.help, .helpNumberSome)
            }
            return say(.help, .helpNumber)
        case .expiry:
            return say(.help, .helpExpiry)
        case .cvv:
            guard let network = securityCodeNetwork else {
                let lengths = CardPolicy.securityCode(for: nil).lengths
                return say(
                    .help, .helpCodeUnknown, ("shortest", .number(lengths.lowerBound)),
                    ("longest", .number(lengths.upperBound)))
            }
            let code = securityCode
            let side = network.cvv.side
            // With a name or postal code after it, Enter moves on rather than submits.
            return say(
                .help, form.field(after: .cvv) == nil ? .helpCode : .helpCodeMovesOn,
                ("lengths", .list(code.lengths.map(String.init), .listOr)), ("code", .text(code.name)),
                ("side", side == "back" ? .word(.sideBack) : side == "front" ? .word(.sideFront) : .text(side)))
        case .name:
            return say(.help, .helpName)
        case .postalCode:
            guard let format = form.postalCode else { return Message(.help, "") }
            return say(
                .help, .helpPostalCode, ("label", .text(format.fieldName(messages))),
                ("example", .text(format.example(messages))))
        }
    }
}

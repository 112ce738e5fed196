extension EntryEngine {
    /// What every digit typed next would do to the number, when that is the same for all ten
    /// and is an ordinary append: the engine takes it with no message (`Outcome.accepted`), the
    /// field and the network stay, and the view changes only by the digit (after a group's
    /// space when `separated`) and its progress (`progress`). The prompt writes such a digit's
    /// echo as soon as it is read, before the engine takes it (issue 21 item 7).
    public struct NextDigit: Equatable, Sendable {
        /// A group's space comes before the digit.
        public var separated: Bool
        /// The number's progress once the digit is typed (`8/16`).
        public var progress: String
    }

    /// What any digit typed next would do, when it is the same for every digit and an
    /// ordinary append (`NextDigit`); nil when not sure: no number being typed, a network not
    /// decided or co-badged, a longer pattern that begins with the digits typed (the next digit
    /// may change the network), a length that the next digit completes or passes, a network not
    /// accepted here. Asks the same rules `handle(_:)` does (`typeNumber`). Changes nothing
    /// (mutating as `currentView()` is, so the prompt's engine is not copied first).
    public mutating func nextDigit() -> NextDigit? {
        guard field == .number, command == nil, let network = detection.network, !detection.isCoBadged else { return nil }
        let count = numberDigits.count, lengths = detection.lengths
        // `typeNumber`'s refusals (too long for any number, for the patterns, not accepted), and
        // a digit that completes the number (its verdict decides: Luhn, moving on, a message).
        guard count < CardPolicy.longestNumber, count < detection.maxLength, !lengths.completeness(of: count + 1).isComplete,
              acceptedNetworks?.accepts(network) ?? true else { return nil }
        // Past the longest pattern the detection is kept; before it, made again from the digits.
        guard count >= rules.longestPattern || rules.noLongerPattern(startingWith: numberDigits) else { return nil }
        let groups = CardPolicy.groups(for: network)
        let separated = CardPolicy.groupedLength(count + 1, groups: groups) == CardPolicy.groupedLength(count, groups: groups) + 2
        // Not complete: a progress without "(n valid)" (`numberProgress`).
        return NextDigit(separated: separated, progress: Self.progress(count + 1, of: Self.numberGoal(count: count + 1, lengths: lengths)))
    }
}

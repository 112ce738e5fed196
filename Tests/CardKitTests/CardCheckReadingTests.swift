import Testing

@testable import CardKit

/// How `check` reads a plain record (where its number ends, its digits, its expiry) and decides
/// it: whole numbers by one look-up on `WholeNumberIndex` and the deciding pattern's terms
/// (`termedPatterns`), both held to the rule set's own levels and verdict.
@Suite struct CardCheckReadingTests {
    static let checker = CardCheck(
        rules: BundledRules.set, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))

    /// Nested patterns of several lengths and networks, with per-pattern lengths: a longer
    /// pattern painted over a shorter one, and the shorter one again after it.
    static let nested: RuleSet = {
        func network(_ id: String, _ patterns: [IINPattern], lengths: [Int], patternLengths: [[Int]] = [])
            -> CardNetwork
        {
            CardNetwork(
                id: id, name: id, logo: id, patterns: patterns, lengths: lengths, groups: [4, 4, 4, 4],
                cvv: .init(name: "CVV", length: 3, side: "back"), luhn: true, file: "nested/\(id).json",
                patternLengths: patternLengths)
        }
        return try! RuleSet(networks: [
            network(
                "four", [IINPattern(prefix: "4")!, IINPattern(prefix: "4999")!], lengths: [16],
                patternLengths: [[16], [19]]),
            network(
                "forty", [IINPattern(low: "4100", high: "4199")!, IINPattern(low: "4300", high: "4301")!],
                lengths: [16, 19]),
            network(
                "long", [IINPattern(prefix: "41234567")!, IINPattern(low: "4150000", high: "4150999")!], lengths: [13]),
            network("five", [IINPattern(low: "500000", high: "599999")!, IINPattern(prefix: "3")!], lengths: [16]),
            network(
                "fifty", [IINPattern(prefix: "55")!, IINPattern(low: "5555000000", high: "5555999999")!],
                lengths: [16, 18]),
        ])
    }()

    @Test(arguments: ["bundled", "nested", "generated"])
    func wholeNumberIndexAgreesWithTheLevels(setName: String) {
        let rules =
            setName == "bundled" ? BundledRules.set : setName == "nested" ? Self.nested : RuleIndexTests.generated
        let index = rules.wholeNumberIndex()
        #expect(index.length == rules.longestPattern)
        var random = SeededRandom(seed: 17)
        // Numbers at every pattern's ends and just past them, and random ones.
        var numbers: [[UInt8]] = []
        for network in rules.networks {
            for pattern in network.patterns {
                for (end, fill) in [(pattern.low, UInt8(0)), (pattern.high, UInt8(9))] {
                    for step in [-1, 0, 1] {
                        var value = Int64(end.reduce(0) { $0 * 10 + Int64($1) }) + Int64(step)
                        guard value >= 0 else { continue }
                        var digits: [UInt8] = []
                        for _ in 0..<end.count {
                            digits.insert(UInt8(value % 10), at: 0)
                            value /= 10
                        }
                        guard value == 0 else { continue }
                        numbers.append(digits + Array(repeating: fill, count: max(0, index.length - digits.count)))
                    }
                }
            }
        }
        for _ in 0..<3_000 { numbers.append((0..<max(index.length, 1)).map { _ in UInt8(random.next() % 10) }) }
        // Prefixes at the edges of power-of-two buckets of every size (the index's first level).
        let largest = (0..<index.length).reduce(UInt64(1)) { value, _ in value * 10 } - 1
        for shift in 1..<UInt64.bitWidth where UInt64(1) << shift <= largest {
            for _ in 0..<4 {
                let edge = (random.next() % (largest >> shift + 1)) << shift
                for value in [edge &- 1, edge, edge + 1] where value <= largest {
                    var rest = value
                    var digits: [UInt8] = []
                    for _ in 0..<index.length {
                        digits.insert(UInt8(rest % 10), at: 0)
                        rest /= 10
                    }
                    numbers.append(digits)
                }
            }
        }
        for number in numbers {
            for extra in [0, 3] {
                let digits = number + Array(repeating: 7, count: min(extra, CardPolicy.longestNumber - number.count))
                guard digits.count >= index.length else { continue }
                let prefix = digits.prefix(index.length).reduce(UInt64(0)) { $0 * 10 + UInt64($1) }
                let levels = rules.match(digits.span)
                let whole = index.match(prefix: prefix)
                #expect(
                    whole.owner == levels.owner && whole.lengths == levels.lengths
                        && (whole.owner < 0 || whole.decidingLength == levels.decidingLength),
                    "\(digits.map(String.init).joined())")
            }
        }
    }

    /// A whole number's network and verdict as `check` gives them (its table of the patterns
    /// with terms of their own) against the rule set's own detection, verdict and co-badged
    /// partners: numbers of every pattern with terms (co-badged BINs, `lengthsFor` with and
    /// without Luhn) at both ends, every sampled number, each with its Luhn digit right and
    /// wrong, with all networks taken and with only some.
    @Test(arguments: [nil, "visa", "maestro,eftpos,mada,sodexo", "bancontact,dankort,cartes-bancaires,unionpay"])
    func wholeNumbersAreDecidedAsTheRulesDecideThem(accepting list: String?) throws {
        let rules = BundledRules.set
        let accepted = try list.map { try AcceptedNetworks.parse($0, in: rules) }
        let checker = CardCheck(
            rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)), accepted: accepted)
        var random = SeededRandom(seed: 29)
        var numbers: [[UInt8]] = []
        var termed = 0
        for network in rules.networks {
            numbers += rules.sampleNumbers(of: network, count: 4, seed: 31)
            for terms in network.patternTerms {
                termed += 1
                let pattern = network.patterns[terms.pattern]
                for end in [pattern.low, pattern.high] {
                    for length in Set(network.patternLengths[terms.pattern] + [16, 19])
                    where length >= rules.longestPattern && length >= end.count {
                        numbers.append(end + (end.count..<length).map { _ in UInt8(random.next() % 10) })
                    }
                }
            }
        }
        #expect(termed > 20)  // the bundled rules' co-badged and lengthsFor patterns
        var reportedOtherwise = 0
        var withoutLuhn = 0
        for base in numbers where base.count >= rules.longestPattern {
            for last in [base.last!, (base.last! + 1) % 10] {
                let digits = base.dropLast() + [last]
                let (detection, verdict) = rules.verdict(for: Array(digits))
                let result = checker.check(Array(digits.map { $0 + 48 }).span)
                let name = digits.map(String.init).joined()
                let reported =
                    detection.network.map { _ in
                        detection.networks(takenBy: { accepted?.accepts($0) ?? true }).first.flatMap { n in
                            rules.networks.firstIndex { $0 === n }
                        } ?? -1
                    } ?? -1
                #expect(Int(result.networkIndex) == reported, "\(name)")
                if let owner = detection.network, reported >= 0, rules.networks[reported] !== owner {
                    reportedOtherwise += 1
                }
                if case .valid = verdict, !CardNumber.passesLuhn(Array(digits)) { withoutLuhn += 1 }
                let expected: Set<CardCheck.Problem> =
                    switch verdict {
                    case .valid: []
                    case .undecided, .wrongLength: [.length]
                    case .noNetwork: [.unknownNetwork]
                    case .failsLuhn: [.luhn]
                    }
                #expect(Set(result.problems).subtracting([.networkNotAccepted]) == expected, "\(name)")
                #expect(
                    result.has(.networkNotAccepted)
                        == (reported >= 0 && !(accepted?.accepts(rules.networks[reported]) ?? true)), "\(name)")
            }
        }
        // The cases the table is for were met: numbers reported as a partner, valid ones without Luhn.
        #expect(reportedOtherwise > 0 && withoutLuhn > 0)
    }

    /// A plain record's number gives what its digits one by one give: the count, the first 19
    /// digits, and the verdict the rules give those digits.
    /// Numbers of 1 to 25 digits, unbroken or in groups of 1 to 6 joined by a space or dashes,
    /// the field ended by a comma, the line's end, or more fields, at every offset in the line.
    @Test func groupedNumbersAreTheDigitsTyped() {
        let rules = BundledRules.set
        let checker = Self.checker
        var random = SeededRandom(seed: 41)
        let samples = rules.networks.flatMap { rules.sampleNumbers(of: $0, count: 6, seed: 43) }
        for round in 0..<6_000 {
            var digits: [UInt8] =
                round % 2 == 0 && !samples.isEmpty
                ? samples[Int(random.next() % UInt64(samples.count))]
                : (0..<(1 + Int(random.next() % 25))).map { _ in UInt8(random.next() % 10) }
            if round % 7 == 3, let last = digits.last { digits[digits.count - 1] = (last + 1) % 10 }  // Luhn broken
            var number = ""
            let separator = ["", " ", "-", "--"][Int(random.next() % 4)]
            var group = 0
            var groupSize = 1 + Int(random.next() % 6)
            for digit in digits {
                if group == groupSize && !separator.isEmpty {
                    number += separator
                    group = 0
                    groupSize = 1 + Int(random.next() % 6)
                }
                number += String(digit)
                group += 1
            }
            let lead = String(repeating: " ", count: Int(random.next() % 3))
            let tail = ["", ",12/30", ",12/30,123", ",\r"][Int(random.next() % 4)]
            let line = lead + number + tail
            let result = checker.check(Array(line.utf8).span)
            let kept = Array(digits.prefix(CardPolicy.longestNumber))
            #expect(result.digitCount == digits.count, "\(line)")
            #expect(result.digits == kept, "\(line)")
            #expect(!result.has(.numberFormat) && !result.has(.recordFormat), "\(line)")
            let (_, verdict) = rules.verdict(for: kept)
            let expected: Set<CardCheck.Problem> =
                switch verdict {
                case .noNetwork: [.unknownNetwork]
                case _ where digits.count > CardPolicy.longestNumber: [.length]  // (too long for any network)
                case .valid: []
                case .undecided, .wrongLength: [.length]
                case .failsLuhn: [.luhn]
                }
            #expect(Set(result.problems).intersection([.length, .luhn, .unknownNetwork]) == expected, "\(line)")
        }
    }

    /// Where whitespace ends a plain record's number, found in one pass (a space that may join
    /// groups waits for what follows), is where the rule says, read looking back and ahead: at a tab, a
    /// space after more than six digits in a row, or a space before something other than
    /// digits and dashes up to the next whitespace (or the field's end). Lines of digits,
    /// spaces, tabs, dashes, carriage returns, stray letters and slashes, with and without commas.
    @Test func numbersEndWhereTheWhitespaceRuleSays() {
        let checker = Self.checker
        var random = SeededRandom(seed: 59)
        let alphabet = Array("0123456789012345678901234567890123456789     \t--\rx/")
        var ended = 0
        for round in 0..<8_000 {
            var line = (0..<Int(random.next() % 40)).map { _ in
                alphabet[Int(random.next() % UInt64(alphabet.count))].asciiValue!
            }
            if round % 3 == 0 { line += Array(",12/30".utf8) }
            let field = line.firstIndex(of: UInt8(ascii: ",")) ?? line.count
            // The plain reading: byte by byte, looking back and ahead at each whitespace.
            var digits: [UInt8] = []
            var count = 0
            var bad = false
            for (i, byte) in line[..<field].enumerated() {
                if byte >= 48 && byte < 58 {
                    if count < CardPolicy.longestNumber { digits.append(byte - 48) }
                    count += 1
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    guard count > 0 else { continue }
                    let before = line[..<i].reversed().prefix { $0 >= 48 && $0 < 58 }.count
                    let after = line[(i + 1)..<field].prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
                    let othersAfter = after.contains {
                        !($0 >= 48 && $0 < 58) && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\r")
                    }
                    if byte == UInt8(ascii: "\t") || before > 6 || othersAfter {
                        ended += 1
                        break
                    }
                } else if byte != UInt8(ascii: "-") && byte != UInt8(ascii: "\r") {
                    bad = true
                }
            }
            let result = checker.check(line.span)
            let shown = String(decoding: line, as: UTF8.self).debugDescription
            #expect(result.digitCount == count, "\(shown)")
            #expect(result.digits == digits, "\(shown)")
            #expect(count == 0 || result.has(.numberFormat) == bad, "\(shown)")
        }
        #expect(ended > 1_000)
    }

    /// Expiries are read as the plain rule says: blanks and carriage returns dropped, what is left two digits,
    /// a slash and two or four digits, the month 1–12 (two-digit years as `ExpiryPolicy` says).
    @Test func expiriesAreReadAsThePlainRuleSays() {
        let checker = Self.checker
        let policy = checker.expiryPolicy
        var random = SeededRandom(seed: 53)
        let alphabet = Array("0123456789012345678901/ \rx")
        var wellFormed = 0
        for round in 0..<6_000 {
            let text: String =
                switch round % 3 {
                case 0:
                    "\(String(format2: Int(random.next() % 14)))/\(random.next() % 2 == 0 ? String(format2: Int(random.next() % 100)) : String(1990 + random.next() % 60))"
                default:
                    String(
                        (0..<Int(random.next() % 9)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
                }
            let result = checker.check(Array("4111111111111111,\(text)".utf8).span)
            let kept = text.filter { $0 != " " && $0 != "\r" }
            let parts = kept.split(separator: "/", omittingEmptySubsequences: false)
            var expected: YearMonth?
            if parts.count == 2, parts[0].count == 2, parts[1].count == 2 || parts[1].count == 4,
                parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }), let month = Int(parts[0]),
                (1...12).contains(month)
            {
                let year = Int(parts[1])!
                expected = YearMonth(year: parts[1].count == 2 ? policy.fullYear(year) : year, month: month)
                wellFormed += 1
            }
            #expect(result.expiry == expected, "\(text.debugDescription)")
            #expect(result.has(.expiryFormat) == (expected == nil), "\(text.debugDescription)")
        }
        #expect(wellFormed > 1_000)
    }

    /// Each problem's name as the JSON line writes it (`Problem.name(bit:)`) is its raw value.
    @Test func everyProblemIsNamedByItsRawValue() {
        for problem in CardCheck.Problem.allCases {
            #expect("\(CardCheck.Problem.name(bit: problem.bit.trailingZeroBitCount))" == problem.rawValue)
        }
    }

    /// The textbook Luhn loop: from the last digit, every second one doubled, less 9 above 9.
    static func plainLuhnSum(_ digits: [UInt8], doublingLast: Bool) -> Int {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            let doubled = (offset % 2 == 0) == doublingLast
            sum += doubled ? (Int(digit) * 2 > 9 ? Int(digit) * 2 - 9 : Int(digit) * 2) : Int(digit)
        }
        return sum
    }

    @Test func luhnAgreesWithTheTextbookLoop() {
        var random = SeededRandom(seed: 23)
        for length in 0...CardPolicy.longestNumber {
            for _ in 0..<300 {
                let digits = (0..<length).map { _ in UInt8(random.next() % 10) }
                #expect(
                    CardNumber.passesLuhn(digits)
                        == (!digits.isEmpty && Self.plainLuhnSum(digits, doublingLast: false) % 10 == 0))
                let check = CardNumber.luhnCheckDigit(for: digits)
                #expect(Int(check) == (10 - Self.plainLuhnSum(digits, doublingLast: true) % 10) % 10)
                #expect(CardNumber.passesLuhn(digits + [check]))
            }
        }
    }
}

extension String {
    /// A whole number of at least two digits: `7` → `07`.
    fileprivate init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}

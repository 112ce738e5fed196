import CardKit
import Testing

/// The transcript line has one renderer (`EntryView.appendTranscriptLine`), fed two ways: from
/// a view's strings (the prompt's scrollback) and from the engine's state without making the
/// view (`EntryEngine.appendTranscriptLine(of:to:)`, replay's every line). The second chooses
/// the label, hint, text, logo and progress of each field again; this holds it to the view's
/// choice for every field after every key, over random keys on the bundled rules (co-badged
/// cards among them), with and without accepted networks, and with the name and postal-code
/// fields asked.
@Suite struct TranscriptRendererTests {
    @Test(
        arguments: [
            (UInt64(1), nil), (2, "visa"), (3, "dankort,mastercard"), (4, "eftpos"), (5, "visa,maestro,unionpay"),
        ] as [(UInt64, String?)])
    func theEnginesLineIsTheViewsLine(seed: UInt64, accepting list: String?) throws {
        let rules = BundledRules.set
        var random = SeededRandom(seed: seed)
        let accepted = try list.map { try AcceptedNetworks.parse($0, in: rules) }
        var samples: [[UInt8]] = []
        for network in rules.networks where accepted?.accepts(network) ?? true {
            samples += rules.sampleNumbers(of: network, count: 3, seed: seed)
        }
        // Co-badged numbers (a Dankort in Visa's range, say) typed as often as all the rest.
        let coBadgedSamples = rules.networks.filter(\.hasCoBadges).flatMap {
            rules.sampleNumbers(of: $0, count: 40, seed: seed)
        }
        .filter { number in
            let detection = rules.detect(number)
            return detection.isCoBadged && (accepted.map { detection.networks.contains(where: $0.accepts) } ?? true)
        }
        for _ in 0..<(samples.count / max(coBadgedSamples.count, 1)) { samples += coBadgedSamples }
        let form = EntryForm(
            asksName: seed % 2 == 0, postalCode: seed % 2 == 1 ? PostalCodeFormats.bundled.format(for: "GB") : nil)
        var engine = EntryEngine(
            rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)),
            acceptedNetworks: accepted, form: form)
        var compared = 0
        var coBadged = 0
        var fieldsSeen = Set<String>()
        var sample = samples[0]
        for _ in 0..<3_000 {
            if engine.numberDigits.isEmpty { sample = samples[Int(random.next() % UInt64(samples.count))] }
            let key: Key
            switch random.next() % 40 {
            case 0: key = .backspace
            case 1: key = .nextNetwork
            case 2: key = .clearLine
            case 3: key = .character(":")
            case 4, 5, 6: key = .enter
            case 7: key = .character(" ")
            case 8: key = .cancel
            case 9: key = .character("a")
            case 10: key = .character("/")
            default:
                // In the number, the next digit of the sample being typed (a stray digit now
                // and then); elsewhere any digit.
                let typed = engine.numberDigits
                if engine.field == .number, typed.count < sample.count, random.next() % 16 != 0 {
                    key = .character(Character(Unicode.Scalar(sample[typed.count] + 48)))
                } else {
                    key = .character(Character(Unicode.Scalar(UInt8(48 + random.next() % 10))))
                }
            }
            _ = engine.handle(key)
            if engine.detection.isCoBadged { coBadged += 1 }
            for field in [Field.number, .expiry, .cvv, .name, .postalCode] {
                var line: [UInt8] = []
                engine.appendTranscriptLine(of: field, to: &line)
                let wanted = engine.view(of: field).transcriptLine
                #expect(String(decoding: line, as: UTF8.self) == wanted, "after \(key), field \(field)")
                compared += 1
                if !engine.view(of: field).text.isEmpty { fieldsSeen.insert("\(field)") }
            }
        }
        // The comparisons saw co-badged cards and text in the card's fields (a run that typed
        // nothing would prove nothing).
        #expect(compared == 15_000)
        #expect(fieldsSeen.isSuperset(of: ["number", "expiry", "cvv"]), "\(fieldsSeen)")
        if list == nil || list == "dankort,mastercard" { #expect(coBadged > 100) }
    }
}

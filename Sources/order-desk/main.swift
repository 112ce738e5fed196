// order-desk: a small example client of the CardPrompt library. It asks the person at the
// terminal for a card to pay an order, then prints what it would charge, masked. A real desk
// would pass `card` to its payment processor where the comment says so.
//
//     order-desk ORDER AMOUNT [--today YYYY-MM]
//
// Exit status: 0 a card was taken; 1 the person gave up; 2 bad usage or no terminal;
// 65 or 66 the card-network rules are broken or unreadable.
import CardPrompt

#if canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String, status: Int32) -> Never {
    let line = "order-desk: \(message)\n"
    _ = write(2, line, line.utf8.count)
    exit(status)
}

var words = Array(CommandLine.arguments.dropFirst())
var today: YearMonth?
if let flag = words.firstIndex(of: "--today") {
    guard flag + 1 < words.count, let month = YearMonth(iso: words[flag + 1]) else {
        fail("--today takes YYYY-MM", status: 2)
    }
    today = month
    words.removeSubrange(flag...(flag + 1))
}
guard words.count == 2 else { fail("usage: order-desk ORDER AMOUNT [--today YYYY-MM]", status: 2) }
let (order, amount) = (words[0], words[1])

let prompt: CardPrompt
do {
    prompt = try CardPrompt(
        .init(
            acceptedNetworks: ["visa", "mastercard", "american-express"], today: today,
            title: "Card for order \(order), \(amount)"))
} catch {
    switch error {
    case .brokenRules: fail(error.description, status: 65)
    case .unreadableRules: fail(error.description, status: 66)
    case .unknownNetwork, .noTerminal: fail(error.description, status: 2)
    }
}

do {
    guard var card = try prompt.askForCard() else {
        print("order \(order): no card taken")
        exit(1)
    }
    // Here a real desk sends card.number, card.expiry and card.securityCode to its processor.
    print(
        "order \(order): charging \(amount) to \(card.network.name) \(card.maskedNumber), expires \(card.expiry.cardText)"
    )
    card.wipe()
} catch {
    fail(error.description, status: 2)
}

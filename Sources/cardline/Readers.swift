import ArgumentParser
import CardChip
import CardKit
import CardReader

/// `cardline readers`: the PC/SC chip readers attached, and whether each holds a card.
struct Readers: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers",
        abstract: "List the chip readers (PC/SC) and whether each holds a card.",
        discussion: """
            One line a reader: its name, a tab, then `card` (contact), `contactless card` or `empty`. The prompt reads a card inserted into or tapped on any of them (or the one --reader names). With no reader attached, pcscd not running or libpcsclite not installed, prints nothing and says why on standard error.

            Exit status: 0 with at least one reader listed; 1 with none.
            """)

    func run() throws {
        switch PCSC.readers() {
        case .success(let readers) where !readers.isEmpty:
            var text = ""
            for reader in readers {
                let state =
                    !reader.hasCard ? "empty" : ChipCard.isContactless(atr: reader.atr) ? "contactless card" : "card"
                text += reader.name.escapingControlCharacters + "\t" + state + "\n"
            }
            Terminal.writeOut(text)
        case .success:
            Terminal.writeError("cardline: no chip reader is attached\n")
            throw ExitStatus.rejected
        case .failure(let status):
            Terminal.writeError("cardline: no chip reader: \(status)\n")
            throw ExitStatus.rejected
        }
    }
}

import Foundation
import Testing

/// The small words of issue 39 item 9, at a pty against the binary: each line says what the
/// key did, once, and a pasted card leaves the lines a typed one does.
@Suite struct SmallWordsTests {
    let home = TemporaryHome()

    /// The expiry's line stays above the code after a paste, as after typing.
    @Test func aPastedCardLeavesTheExpirysLine() throws {
        let t = try PseudoTerminal.prompt(home: home)
        t.expect("Card number (#### #### #### ####): ")
        t.send("\u{1B}[200~4111 1111 1111 1111 12/30 123\u{1B}[201~")
        let screen = try #require(
            t.waitForScreen("the code pasted") { $0.lines.contains { $0.hasPrefix("CVV (###): •••") } })
        #expect(screen.lines.contains { $0.hasPrefix("Expiry (MM/YY): 12/30") }, "\(screen.lines)")
        #expect(!String(decoding: t.raw, as: UTF8.self).contains("123"))
    }

    /// The field's help is said when the field is asked, not again after each `:` command.
    @Test func theHelpIsNotRepeatedAfterACommand() throws {
        let t = try PseudoTerminal.prompt(home: home)
        t.expect("Card number (#### #### #### ####): ")
        t.send(":cards\r")
        let screen = try #require(
            t.waitForScreen("the prompt after :cards") { screen in
                guard let index = screen.lines.firstIndex(where: { $0.hasPrefix("no cards yet") }) else { return false }
                return screen.lines.dropFirst(index + 1).contains { $0.hasPrefix("Card number") }
            })
        #expect(screen.lines.filter { $0.hasPrefix("Type the card number") }.count == 1, "\(screen.lines)")
    }

    /// Tab on a number of a whole length that fails Luhn says so, as Enter does.
    @Test func tabOnANumberFailingLuhnSaysSo() throws {
        let t = try PseudoTerminal.prompt(home: home)
        t.expect("Card number (#### #### #### ####): ")
        t.send("4111111111112")
        _ = t.waitForScreen("13 digits") { $0.lines.contains { $0.hasSuffix("VISA 13/16") } }
        t.send("\t")
        t.expect("card number is not valid")
        #expect(!String(decoding: t.raw, as: UTF8.self).contains("not Tab"))
    }

    /// With `--cvv-only`, Backspace on the empty code: nothing to delete, no field before it.
    @Test func backspaceOnTheOnlyFieldSaysItIsAlreadyEmpty() throws {
        let t = try PseudoTerminal.prompt(["--cvv-only", "--network", "amex"], home: home)
        t.expect("CID (####): ")
        t.send("\u{7F}")
        t.expect("the CID is already empty")
    }
}

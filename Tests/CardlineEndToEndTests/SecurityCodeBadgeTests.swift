import Foundation
import Testing

/// The badge in the security-code field names the code as its label does (issue 26 item 7):
/// `CID` beside `CID (####)` for American Express, `CVC` for Mastercard, not `CVV` for all.
@Suite struct SecurityCodeBadgeTests {
    let home = TemporaryHome()

    @Test(arguments: [("378282246310005", "CID", 4), ("5555555555554444", "CVC", 3), ("4111111111111111", "CVV", 3)])
    func theBadgeSaysTheLabelsName(number: String, name: String, length: Int) throws {
        let t = try PseudoTerminal(
            arguments: ["--today", "2026-11", "--no-history"], environment: home.environment, columns: 100)
        t.waitForRawMode()
        t.expect("Card number")
        t.send(number + "1230")
        // The badge is drawn after the line (its own write): waited for, whatever name it says.
        let screen = t.waitForScreen("the \(name) field") {
            $0.cursorLine.hasPrefix("\(name) (") && $0.cursorLine.hasSuffix(" 0/\(length)")
        }
        #expect(screen?.cursorLine.hasSuffix("\(name) 0/\(length)") == true, "\(screen?.cursorLine ?? "")")
        // Ctrl-C cancels the card, then Ctrl-D at the empty number quits.
        t.send("\u{03}")
        t.expect("Card number")
        t.send("\u{04}")
        #expect(t.waitForExit() == 0)
    }
}

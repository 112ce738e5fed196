import Foundation
import Testing

/// The session at the top of README.md is a real screen: the binary on an 80-column
/// pseudo-terminal (with the tests' usual `--today 2026-11 --no-color --no-history`, which
/// change no text), sent the keys the README describes, must leave exactly the lines it shows
/// under its `$ cardline` (the README's other command outputs are checked by
/// Tests/check_readme.py, which cannot give cardline a terminal).
@Suite struct ReadmeSessionTests {
    let home = TemporaryHome()

    /// The lines of the README's ```text block that starts with `$ cardline`, without that line.
    static func readmeScreen() throws -> [String] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let readme = try String(contentsOf: url.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```text\n$ cardline\n").dropFirst()
        try #require(blocks.count == 1, "README.md should show one ```text block starting with `$ cardline`")
        let block = try #require(blocks.first?.components(separatedBy: "```").first)
        return block.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            var line = String($0)
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// At 80 columns (the README's width): a refused first digit, then an American Express
    /// card typed in full, each field moving on by itself, and Enter; the screen once the
    /// prompt asks for the next card.
    @Test func theReadmeSessionIsTheScreenCardlineDraws() throws {
        let expected = try Self.readmeScreen()
        #expect(expected.count >= 8, "the README's session shows a whole card")
        let t = try PseudoTerminal.prompt(home: home, columns: 80)
        t.expect("Card number (#### #### #### ####): ")
        t.send("0")
        t.expect("no card network starts with 0")
        t.send("378282246310005")
        t.expect("Type the expiry date as MM/YY")
        t.send("1230")
        t.expect("Type the 4-digit CID")
        t.send("1234\r")
        t.expect("Success! American Express")
        let screen = t.waitForScreen("the prompt for the next card") { screen in
            screen.lines.last?.hasPrefix("Card number (#### #### #### ####):") == true
                && screen.lines.last?.hasSuffix("CARD 0") == true
        }
        #expect(
            screen?.lines == expected,
            "README.md's session differs from the screen: \(screen?.lines.joined(separator: "\n") ?? "none")")
        t.send(":quit\r")
        #expect(t.waitForExit() == 0)
    }
}

import Foundation
import Testing

/// Issue 39 item 6: a number is grouped, and its hint drawn, as its network groups a number of
/// its length (`groups` per length in the rule data): a 16-digit Diners Club card 4-4-4-4, not
/// 4-6-4 and a leftover; a 19-digit Maestro 4-4-4-4-3 with its own hint.
@Suite struct GroupingTests {
    let home = TemporaryHome()

    @Test(arguments: [
        ("30117115353175", "Card number (#### ###### ####): 3011 711535 3175"),
        ("3011711535317500", "Card number (#### #### #### ####): 3011 7115 3531 7500"),
        ("6759649826438453003", "Card number (#### #### #### #### ###): 6759 64•• •••• •••3 003"),
    ])
    func theGroupsAndHintFollowTheLength(number: String, line: String) throws {
        let t = try PseudoTerminal.prompt(home: home)
        t.expect("Card number (#### #### #### ####): ")
        t.send(number)
        let screen = t.waitForScreen("the number typed") { $0.lines.contains { $0.hasPrefix(line) } }
        #expect(screen != nil, "\(t.screen.lines)")
    }

    /// `rules show` lists each grouping with its hint.
    @Test func rulesShowListsEachGrouping() throws {
        let run = try runPiped(["rules", "show", "diners-club"], input: "", environment: home.environment)
        #expect(run.output.contains("groups:       4 6 4  (#### ###### ####); 4 4 4 4  (#### #### #### ####)"))
    }
}

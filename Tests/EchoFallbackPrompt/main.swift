// echo-fallback-prompt: cardline's prompt (the real `InteractiveEditor`, bundled rules, no
// colour) whose early echoes are all wrong, for `EchoFallbackTests`. Its key reader stands in
// for the prompt's own: before each wait, an armed early echo (`EarlyEcho`, what an ordinary
// digit would write before the engine takes it) is replaced by the digit followed by "XX", a
// prediction that cannot match what the key does. The editor must find that out and draw the
// line again (`InteractiveEditor.echoWentWrong`). A test program only: never installed, and
// only a debug build (testable imports) has the prompt in it.
#if canImport(Glibc)
import Glibc
#endif

/// Says why on stderr and ends with `status`.
func fail(_ reason: String, _ status: Int32) -> Never {
    let line = "echo-fallback-prompt: " + reason + "\n"
    _ = write(2, line, line.utf8.count)
    exit(status)
}

#if DEBUG
@testable import CardPrompt
import CardKit

/// The prompt's reader, but every echo it arms is spoiled before it waits for the key.
final class SpoilingReader: KeyReader {
    override func wait(on fd: Int32) -> Int32 {
        if earlyEcho.isArmed {
            var wrong = ShortBytes()
            wrong.append(0)  // where the digit goes
            wrong.append(UInt8(ascii: "X"))
            wrong.append(UInt8(ascii: "X"))
            earlyEcho.arm(wrong, digitAt: 0)
        }
        return super.wait(on: fd)
    }
}

let rules: RuleSet
do {
    rules = try RuleSources.load(folders: [RuleSources.compiledIn])
} catch {
    fail("the bundled rules did not load", 70)
}
let engine = EntryEngine(rules: rules, expiryPolicy: ExpiryPolicy(today: YearMonth(year: 2026, month: 11)))
let device: TerminalDevice
do {
    device = try TerminalDevice.open()
} catch {
    fail("no terminal", 69)
}
let editor = InteractiveEditor(engine: engine, style: Style(colour: false), device: device, reader: SpoilingReader(timeout: nil))
let ending = editor.run()
exit(ending == .quit || ending == .endOfInput ? 0 : 1)
#else
fail("a test program of debug builds only", 70)
#endif

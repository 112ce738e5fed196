import Foundation
import Testing

/// `Tests/tools/unsafe-uses.py` (issue 21, item 5): its wide mode also sees the pointers that
/// do not name `Unsafe…` (a pointer handed to a closure, `Unmanaged`, `.pointee`,
/// `storeBytes`, …), and where every such use has its one-line reason, the tool holds it so.
@Suite struct UnsafePointerUsesTests {
    static let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/unsafe-uses.py").path
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func tool(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let run = try runPiped(
            ["python3", Self.tool] + arguments, input: "", environment: ProcessInfo.processInfo.environment,
            executable: "/usr/bin/env")
        return (run.status, run.output, run.errors)
    }

    @Test func theWideModeCountsPointersThatNameNoUnsafeType() throws {
        let home = TemporaryHome()
        try FileManager.default.createDirectory(atPath: home.path + "/Sources/A", withIntermediateDirectories: true)
        try """
        let a = text.withUTF8 { $0.count }
        let b = editor.pointee  // reason
        let c = Unmanaged.passUnretained(self)
        let d = UnsafePointer(p)  // reason
        let e = words.storeBytes(of: 0, as: UInt64.self)

        """.write(toFile: home.path + "/Sources/A/x.swift", atomically: true, encoding: .utf8)
        let narrow = try tool(["--root", home.path, "--check", "70"])
        #expect(
            narrow.status == 0
                && narrow.output.hasSuffix("   1  unsafe-pointer uses in Sources (0 without a reason comment)\n"),
            "\(narrow)")
        let wide = try tool(["--root", home.path, "--wide"])
        #expect(wide.status == 0, "reported, not enforced: \(wide.errors)")
        #expect(
            wide.output.contains("   5  pointer uses in Sources, wide count (3 without a reason comment"),
            "\(wide.output)")
        #expect(
            wide.output.contains("no reason: Sources/A/x.swift:1: ")
                && wide.output.contains("no reason: Sources/A/x.swift:3: ")
                && wide.output.contains("no reason: Sources/A/x.swift:5: ") && !wide.output.contains("x.swift:2:"),
            "\(wide.output)")
        let held = try tool(["--root", home.path, "--wide", "--reasons-in", "Sources/A"])
        #expect(held.status == 1 && held.errors.contains("Sources/A/x.swift:3:"), "\(held)")
    }

    /// The prompt (CardPrompt but where rule files come from), the sealer, the pty driver and
    /// the bench: every wide use has its reason. (The others are listed by `--wide`.)
    @Test func everyPointerOfThePromptSealerAndTestSupportHasItsReason() throws {
        let prompt = try #require(
            FileManager.default.subpathsOfDirectory(atPath: Self.root + "/Sources/CardPrompt") as [String]?
        )
        .filter {
            $0.hasSuffix(".swift")
                && !["Paths.swift", "RuleSources.swift", "BundledRuleFiles.swift"].contains(
                    ($0 as NSString).lastPathComponent)
        }
        .map { "Sources/CardPrompt/" + $0 }
        try #require(prompt.count > 10)
        let run = try tool(
            ["--wide", "--reasons-in", "Sources/CardSeal", "Sources/PTYSupport", "Sources/cardline-bench"] + prompt)
        #expect(run.status == 0, "\(run.errors)")
        #expect(
            run.output.contains("Sources/CardPrompt/Editor/InteractiveEditor.swift"),
            "the editor's Unmanaged and .pointee are counted")
    }
}

import CardPrompt
import Foundation
import Testing

/// What `ProcessProtection` does to a process, checked on the test process itself (the
/// end-to-end tests read the core limit and locked memory of the running binary).
@Suite struct ProcessProtectionTests {
    @Test func coreDumpsOffAndNotDumpable() throws {
        let report = ProcessProtection.apply(lockingMemory: false)
        #expect(report.coreDumpsOff)
        #expect(!ProcessProtection.isDumpable)
        #expect(!report.memoryLocked)
        let limits = try String(contentsOfFile: "/proc/self/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(core.split(separator: " ").dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
    }
}

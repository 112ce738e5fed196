import Foundation
import Testing

/// Issue 36, item 10: under a small address-space limit (`ulimit -v`) cardline either works or
/// ends at once with one clear message and exit 71, never an abort (134), a crash (139) or a
/// hang; from 64 MiB on every command works.
@Suite struct AddressSpaceLimitTests {
    let home = TemporaryHome()

    /// `arguments` under `ulimit -v kib`, a card on stdin (from a file: a child that ends
    /// before it reads must not make the writer's end take SIGPIPE): the exit status as the
    /// shell says it (128+N for signal N) and stderr without the shell's line.
    func run(_ arguments: [String], kib: Int) throws -> (status: Int32, errors: String) {
        let card = home.path + "/card.txt"
        try "4111111111111111 12/30 987\n".write(toFile: card, atomically: true, encoding: .utf8)
        let run = try runPiped(
            ["-c", "ulimit -v \(kib); \"$0\" \"$@\" < \"$CARD\"; echo \"exit $?\" >&2", cardlineBinary] + arguments,
            input: "", environment: home.environment.merging(["CARD": card]) { $1 }, timeout: 30,
            executable: "/bin/sh")
        var lines = run.errors.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let status = lines.popLast().flatMap { $0.hasPrefix("exit ") ? Int32($0.dropFirst(5)) : nil } ?? -1
        return (status, lines.map { $0 + "\n" }.joined())
    }

    static let commands = [
        ["--today", "2026-11", "--no-history", "--print", "--once"], ["check", "--today", "2026-11"],
        ["rules", "list"],
    ]

    @Test(
        .disabled(if: testingUnderASan, "ASan's shadow memory needs terabytes of address space"),
        arguments: [32, 34, 36, 38, 40, 48, 56])
    func aSmallLimitEndsWithAMessage(mebibytes: Int) throws {
        for arguments in Self.commands {
            let run = try run(arguments, kib: mebibytes << 10)
            switch run.status {
            case 0: break
            case 71:
                // (Near the loader's own floor the Swift runtime may first say, before cardline
                // runs, that it could not set up its crash reporter: no card data, and no reporter.)
                let runtimeNotice = "swift runtime: crash handler installation failed; disabling backtracing.\n"
                let errors =
                    run.errors.hasPrefix(runtimeNotice) ? String(run.errors.dropFirst(runtimeNotice.count)) : run.errors
                #expect(
                    errors == """
                        cardline: error: the address-space limit (ulimit -v) is \(mebibytes) MiB; cardline needs 64 MiB or more
                        cardline: hint: raise it, as with `ulimit -v 65536`

                        """, "\(arguments)")
            case 128 + SIGILL where run.errors.split(separator: "\n").allSatisfy({ $0.contains("Illegal instruction") }):
                // Within a mebibyte above the loader's floor the Swift runtime's own start-up
                // (the static initializers of libswiftCore, shared in a debug build) traps before
                // cardline's first line runs: only the shell's word for the signal, nothing of cardline's.
                break
            case 127:
                // The dynamic loader could not map the libraries: cardline never ran.
                #expect(run.errors.contains("error while loading shared libraries"), "\(arguments): \(run.errors)")
            default:
                Issue.record("\(arguments) under \(mebibytes) MiB: exit \(run.status): \(run.errors)")
            }
        }
    }

    @Test(
        .disabled(if: testingUnderASan, "ASan's shadow memory needs terabytes of address space"), arguments: [64, 96])
    func fromSixtyFourMebibytesEveryCommandWorks(mebibytes: Int) throws {
        for arguments in Self.commands {
            let run = try run(arguments, kib: mebibytes << 10)
            #expect(run.status == 0, "\(arguments) under \(mebibytes) MiB: \(run.errors)")
        }
    }
}

import ArgumentParser
import CEditLine
import CProcessWide
import CardPrompt

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Cardline: ParsableCommand {
    /// `cardline --version` alone is answered before argument-parser builds its command tree
    /// (most of the start-up time, measured with callgrind); anything else goes through it.
    static func main() {
        // Too little address space to run: said at once, before an allocation fails (an abort).
        refuseTooSmallAddressSpace()
        // Before anything reads card data: no core dumps. Memory is locked by the commands
        // that handle card data (`enter`, `check`, `replay`), so `--version`, `--help` and
        // `rules` do not pay for it.
        ProcessProtection.apply(lockingMemory: false)
        // Every command checks its writes to stdout; a closed pipe must show up as EPIPE. (The
        // interactive prompt puts SIGPIPE back when it writes only to the terminal.)
        Terminal.reportBrokenPipes()
        Terminal.reportOversizedWrites()
        if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "--version" {
            Terminal.writeOut(configuration.version + "\n")
            Glibc.exit(Terminal.finishOutput(status: 0))
        }
        // argument-parser's own `main`, with its messages (help on stdout, errors on stderr)
        // written through `Terminal`, so a failed write of the help is reported too; and
        // whatever the command's status, a failed write to stdout makes it 74.
        var status: Int32 = 0
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            var command: ParsableCommand
            do {
                command = try parseAsRoot(arguments)
            } catch  where exitCode(for: error).rawValue != 0 {
                // `cardline --rules DIR rules list`: the options go after the subcommand. When
                // no candidate parses either, the last one's error is reported: it names the
                // subcommand the options were meant for.
                var lastError = error
                var parsed: ParsableCommand?
                for candidate in placingOptionsAfterSubcommand(arguments) {
                    do {
                        parsed = try parseAsRoot(candidate)
                        break
                    } catch {
                        lastError = error
                    }
                }
                guard let parsed else { throw lastError }
                command = parsed
            }
            try command.run()
        } catch {
            status = exitCode(for: error).rawValue
            writeMessage(for: error, status: status)
        }
        Glibc.exit(Terminal.finishOutput(status: status))
    }

    /// The least address space (`ulimit -v`, or data segment, `ulimit -d`) cardline runs in:
    /// its libraries take about 36 MiB before it does anything, and a thread (`check`, a big
    /// rule folder) 2 MiB more (`cl_small_thread_stacks`).
    static let smallestAddressSpace = 64 << 20

    /// Under a smaller limit than `smallestAddressSpace`, ends at once with a message and exit
    /// 71: the Swift runtime would otherwise abort on a failed allocation (134), or Dispatch
    /// wait for ever for a thread it cannot make.
    static func refuseTooSmallAddressSpace() {
        var isData: Int32 = 0
        let limit = cl_address_space_limit(&isData)
        // Held to under 1 GiB: threads (`check`'s, Dispatch's) made with 2 MiB stacks, not 8.
        if limit >= 0 && limit < 1 << 30 { cl_small_thread_stacks() }
        guard limit >= 0 && limit < smallestAddressSpace else { return }
        // Written without the heap (near the loader's floor even the message's strings may not
        // find room): `Complaint`'s two lines, put together in a buffer on the stack.
        var line = InlineArray<256, UInt8>(repeating: 0)
        var count = 0
        func add(_ text: StaticString) {
            text.withUTF8Buffer {
                for byte in $0 where count < 256 {
                    line[count] = byte
                    count += 1
                }
            }
        }
        func add(_ number: Int64) {
            var digits = InlineArray<20, UInt8>(repeating: 0)
            var value = number
            var used = 0
            repeat {
                digits[used] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
                used += 1
            } while value > 0 && used < 20
            while used > 0 && count < 256 {
                used -= 1
                line[count] = digits[used]
                count += 1
            }
        }
        add(
            isData != 0
                ? "cardline: error: the data-segment limit (ulimit -d) is "
                : "cardline: error: the address-space limit (ulimit -v) is ")
        if limit % (1 << 20) == 0 {
            add(Int64(limit >> 20))
            add(" MiB")
        } else {
            add(Int64(limit >> 10))
            add(" KiB")
        }
        add("; cardline needs ")
        add(Int64(smallestAddressSpace >> 20))
        add(" MiB or more\ncardline: hint: raise it, as with `ulimit ")
        add(isData != 0 ? "-d " : "-v ")
        add(Int64(smallestAddressSpace >> 10))
        add("`\n")
        var written = 0
        while written < count {
            // unsafe: write(2) of the stack buffer
            let result = line.span.extracting(written..<count).withUnsafeBufferPointer {
                Glibc.write(2, $0.baseAddress, $0.count)
            }
            guard result > 0 else { break }
            written += result
        }
        Glibc.exit(ExitStatus.tooLittleMemory.rawValue)
    }

    /// argument-parser's message for `error`: help and version on stdout as they are; an error
    /// on stderr in cardline's one style (`Complaint`: `cardline: error: …` and a hint, not
    /// argument-parser's `Error:` and usage), through the one function for outside text, since
    /// argument-parser quotes the values given (`--title`, `--timeout 4111…`): any card number
    /// in them masked, control and bidi characters escaped.
    static func writeMessage(for error: Error, status: Int32) {
        let text = fullMessage(for: error)
        guard !text.isEmpty else { return }
        guard status != 0 else { return Terminal.write(text + "\n", to: 1) }
        let (problem, hint) = Complaint.argumentProblem(
            message(for: error), help: Complaint.helpCommand(inFullMessage: text),
            first: CommandLine.arguments.dropFirst().first)
        Terminal.writeError(Complaint.text(problem, hint: hint))  // (masked and escaped there, before wrapping)
    }

    /// For arguments argument-parser refused, the same with the options typed before the
    /// subcommand moved after it: `--rules DIR rules list` becomes `rules list --rules DIR`,
    /// where argument-parser looks for a subcommand's options. One candidate for each word
    /// that names a subcommand (`--rules rules rules list` has two: the folder could be
    /// called `rules`), in order; none when the first word is not an option. Only tried when
    /// the arguments as typed do not parse, so an option's value that names a subcommand
    /// (`--title check`) keeps its meaning.
    static func placingOptionsAfterSubcommand(_ arguments: [String]) -> [[String]] {
        guard let first = arguments.first, first.hasPrefix("-"), first != "--" else { return [] }
        let end = arguments.firstIndex(of: "--") ?? arguments.count
        return arguments[..<end].indices.compactMap { start in
            var command: ParsableCommand.Type = Cardline.self
            var pathEnd = start
            while pathEnd < end,
                let subcommand = command.configuration.subcommands.first(where: {
                    $0._commandName == arguments[pathEnd]
                })
            {
                command = subcommand
                pathEnd += 1
            }
            guard pathEnd > start else { return nil }
            return Array(arguments[start..<pathEnd] + arguments[..<start] + arguments[pathEnd...])
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "cardline",
        abstract: "Enter payment cards at a terminal, every keystroke checked against card-network rules.",
        usage: """
            cardline [enter] [<options>]
            cardline replay|rules|check [<options>] ...
            """,
        discussion: """
            With no subcommand, opens the card-entry prompt. Its main options:

              --print              write each accepted card as one line of JSON to stdout
              --once               end after the first accepted card
              --networks LIST      accept only these networks, like visa,mastercard,amex
              --timeout SECONDS    end the prompt when no key comes for SECONDS (exit 124)
              --encrypt-to FILE    encrypt each card for this public key (with --print)

            From a script: card=$(cardline --print --once). When stdin is not a terminal, each input line is typed into the same prompt.

            All the prompt's options and exit statuses: cardline enter --help. Each command's: cardline help COMMAND. The keys, the file formats, the environment: man cardline.
            """,
        version: "0.1.0",
        subcommands: [Enter.self, Replay.self, Rules.self, Check.self, Messages.self, Readers.self],
        defaultSubcommand: Enter.self
    )
}

/// The exit codes cardline uses, as documented in the README.
enum ExitStatus {
    static let rejected = ExitCode(1)
    static let usage = ExitCode(64)
    static let badRules = ExitCode(65)
    static let unreadable = ExitCode(66)
    /// A card or other output could not be written (stdout, a golden), or there is no
    /// terminal to ask on.
    static let ioError = ExitCode(74)
    /// The address-space limit is too small to run in (`ulimit -v`; sysexits' EX_OSERR).
    static let tooLittleMemory = ExitCode(71)
    /// `--timeout` ran out (as `timeout(1)` and gum).
    static let timedOut = ExitCode(124)
    /// Ctrl-C or Esc ended a one-shot prompt (128 + SIGINT, as fzf).
    static let cancelled = ExitCode(130)
}

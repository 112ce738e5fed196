import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `cardline check` leaves no copy of a record's number behind once it has checked it: not in
/// the blocks it reads records into (handed back to be read into again), not in what it
/// carried from one block to the next, not in a JSON record's strings, not on the stacks that
/// checked them. The records come through a named pipe, so that `check` is still running,
/// waiting for more, when its memory is read (as `CardMemoryTests` reads the prompt's).
extension CardMemoryTests {
    /// The records of `chunks` chunks of 64 KiB (the one-core path's block; the two-core
    /// path's is two of them), the number in every form `check` reads: plain, grouped by
    /// spaces and by dashes, and a JSON record; each chunk's last record the plain number (so
    /// its digits are the last `check` took apart), then a comment that fills the chunk to its
    /// last byte, so that every block `check` reads ends at a line break and every record sent
    /// is checked before `check` waits for more. But the second chunk (128 KiB in: a block's
    /// end on both paths) ends inside a record, after its number, so that the number is
    /// carried from one block to the next (the carry must be wiped once moved).
    static func checkRecords(chunks: Int) -> [UInt8] {
        let chunk = 64 * 1024
        let forms = [
            "4973 6825 1940 3570 12/30 123", "4973-6825-1940-3570,12/2030,123",
            #"{"number":"4973682519403570","expiry":"12/30","cvv":"123"}"#, "\(number),12/30,123",
        ]
        let straddling = Array("\(number),12/3".utf8)
        let rest = Array("0,123\n".utf8)
        var records: [UInt8] = []
        for index in 0..<chunks {
            if index == 2 { records += rest }
            let end = (index + 1) * chunk
            var formIndex = 0
            while end - records.count > 200 {
                records += Array(forms[formIndex % forms.count].utf8) + [UInt8(ascii: "\n")]
                formIndex += 1
            }
            records += Array("\(number),12/30,123\n".utf8)
            let tail = index == 1 ? straddling : []
            records +=
                [UInt8(ascii: "#")] + [UInt8](repeating: UInt8(ascii: "x"), count: end - records.count - 2 - tail.count)
                + [UInt8(ascii: "\n")]
            records += tail
        }
        precondition(chunks >= 3 && records.count == chunks * chunk)
        return records
    }

    /// Whether `pid` is waiting for more input with nothing else to do: every thread asleep
    /// (none running or runnable), one of them in read(2).
    static func waitsForInput(_ pid: pid_t) -> Bool {
        #if arch(x86_64)
            let read = "0 "
        #else
            let read = "63 "
        #endif
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !threads.isEmpty
        else { return false }
        var reading = false
        for thread in threads {
            let folder = "/proc/\(pid)/task/\(thread)"
            guard let stat = try? String(contentsOfFile: folder + "/stat", encoding: .utf8),
                let syscall = try? String(contentsOfFile: folder + "/syscall", encoding: .utf8),
                let closing = stat.lastIndex(of: ")")
            else { return false }
            // The state is the field after the command's closing parenthesis.
            guard stat[stat.index(closing, offsetBy: 2)] == "S", !syscall.hasPrefix("running") else { return false }
            if syscall.hasPrefix(read) { reading = true }
        }
        return reading
    }

    /// Checked records (on two cores, and on one: `taskset -c 0`) leave no copy of the number;
    /// a record not yet complete, still being read, is seen (so the scan is not blind).
    @Test(arguments: [false, true])
    func checkLeavesNoCopyOfTheRecordsItChecked(oneCore: Bool) throws {
        let fifo = home.path + "/records"
        #expect(mkfifo(fifo, 0o600) == 0)
        let arguments = ["check", "--today", "2026-11", fifo]
        let t =
            oneCore
            ? try PseudoTerminal(
                arguments: ["-c", "0", cardlineBinary] + arguments, environment: home.environment,
                binary: "/usr/bin/taskset", pipes: [1])
            : try PseudoTerminal(arguments: arguments, environment: home.environment, pipes: [1])
        // Read and write: the open does not wait for cardline's, and the writes below do not
        // block (cardline's output is read between them).
        var writer = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        #expect(writer >= 0)
        defer { if writer >= 0 { close(writer) } }
        let records = Self.checkRecords(chunks: 4)
        var sent = 0
        func send(_ bytes: [UInt8]) -> Bool {
            t.until("\(bytes.count) bytes of records written") {
                let written = bytes[sent...].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                if written > 0 { sent += written }
                return sent == bytes.count
            }
        }
        #expect(send(records))
        // Once it waits for more input with every thread asleep, what it checked is wiped. (A
        // look can come before a block handed on is checked: a copy left behind stays for
        // good while nothing runs, one being checked goes, so it looks until none is left.)
        var found: [String] = []
        t.until("check waiting for more records, with no copy of those it checked") {
            guard Self.waitsForInput(t.pid) else { return false }
            found = copies(in: t.pid)
            return found.isEmpty
        }
        #expect(found.isEmpty, "\(found.count) copies:\n\(found.joined(separator: "\n"))")

        // A record half sent is in the block being read: the scan finds it there.
        sent = 0
        #expect(send(Array("\(Self.number),12/3".utf8)))
        #expect(
            t.until("check waiting for the rest of a record") {
                Self.waitsForInput(t.pid) && copies(in: t.pid).contains { $0.hasPrefix("digits at") }
            }, "the record being read is seen")
        close(writer)
        writer = -1
        let status = t.waitForExit()
        #expect(status == 1)  // (the last record's expiry, cut short)
        let lines = t.pipedText(1).split(separator: "\n")
        // every record but the 4 comments, and the last
        #expect(lines.count == records.count(where: { $0 == UInt8(ascii: "\n") }) - 4 + 1)
        #expect(
            lines.dropLast().allSatisfy {
                $0.contains(#""masked":"497368******3570""#) && $0.hasSuffix(#""errors":[]}"#)
            })
    }
}

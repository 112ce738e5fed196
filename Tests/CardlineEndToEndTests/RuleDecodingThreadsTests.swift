@testable import CardKit
@testable import CardPrompt
import Foundation
import Synchronization
import Testing

/// With many rule files, `RuleSources.decode(folders:)` reads and decodes them on two threads
/// (`decodingOnTwoThreads`): the rule set, its warnings and its errors are those of reading
/// them on one, file by file in order, and the first folder or file that cannot be read is the
/// one named.
extension RuleFolderReadingTests {
    /// The outcome of loading what `decode(folders:onTwoThreads:)` gives, in words: every
    /// network (id, file, patterns), every warning, or the errors or the unreadable path.
    func outcome(_ folders: [String], onTwoThreads: Bool) -> String {
        do {
            let decoded = try RuleSources.decode(folders: folders, onTwoThreads: onTwoThreads)
            do {
                let set = try RuleSet.load(decoded: decoded)
                return "loaded \(set.networks.count): " + set.networks.map { "\($0.id) \($0.file) \($0.patterns)" }.joined(separator: "; ")
                    + " warnings: " + set.warnings.description
            } catch {
                return "rule errors: " + error.description
            }
        } catch {
            return "unreadable: " + error.description
        }
    }

    @Test func twoThreadsDecodeWhatOneDoes() throws {
        let count = 193
        let bank = try makeBankFolder(count)
        defer { try? FileManager.default.removeItem(atPath: bank) }
        // A later folder that replaces some of the bank's networks and disables one: which
        // file wins depends on the order the results are put back in.
        let later = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: later) }
        for n in 0..<40 {
            let name = "/bank-" + String(1000 + n).dropFirst() + ".json"
            let text = try String(contentsOfFile: bank + name, encoding: .utf8).replacingOccurrences(of: "\"Bank ", with: "\"Later bank ")
            try Data(text.utf8).write(to: URL(fileURLWithPath: later + name))
        }
        try Data("{\"id\": \"bank-7\", \"disabled\": true}\n".utf8).write(to: URL(fileURLWithPath: later + "/bank-007.json"))
        let wrong = try makeBankFolder(count, broken: [3, count - 2], tied: [count / 2])
        defer { try? FileManager.default.removeItem(atPath: wrong) }

        for folders in [[RuleSources.compiledIn, bank], [bank, later], [RuleSources.compiledIn, bank, later], [wrong], [bank, wrong, later]] {
            let total = try folders.reduce(0) { $0 + (try RuleSources.read(folder: $1)).count }
            #expect(total >= RuleSources.decodingOnTwoThreads)  // what `load` decodes on two threads
            let one = outcome(folders, onTwoThreads: false), two = outcome(folders, onTwoThreads: true)
            #expect(one == two)
            #expect(one.hasPrefix(folders.contains(wrong) ? "rule errors: " : "loaded "))
        }
        // `load` (two threads, by the number of files) gives the same set as the files read first.
        let loaded = try RuleSources.load(folders: [RuleSources.compiledIn, bank, later])
        let read = try RuleSet.load(folders: [RuleSources.read(folder: RuleSources.compiledIn), RuleSources.read(folder: bank),
                                              RuleSources.read(folder: later)])
        #expect(loaded.networks == read.networks)
        #expect(loaded.warnings == read.warnings)
        #expect(!loaded.networks.contains { $0.id == "bank-7" })
        #expect(loaded.networks.first { $0.id == "bank-8" }?.file == later + "/bank-008.json")
        #expect(loaded.networks.first { $0.id == "bank-8" }?.name == "Later bank 8")
        #expect(loaded.networks.first { $0.id == "bank-80" }?.file == bank + "/bank-080.json")
    }

    /// With as many ranges as a bank keeps (20,000 in 200 files), `load` also makes the index
    /// on two threads (`RuleSet.init(networks:splitting:)`, `onAnotherThread`): the same
    /// levels and warnings as the files read and loaded on one.
    @Test func aBankFolderIsIndexedOnTwoThreads() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var random = SeededRandom(seed: 5)
        let slots = (0..<20_000).shuffled(using: &random)
        for n in 0..<200 {
            let ranges = slots[(n * 100)..<((n + 1) * 100)].map { slot in
                let low = 30_000_000 + 100 * slot
                return "[\"\(low)\", \"\(low + Int(random.next() % 100))\"]"
            }
            let text = "{\"id\": \"bank-\(n)\", \"name\": \"Bank \(n)\", \"ranges\": [\(ranges.joined(separator: ", "))], \"lengths\": [16], \"cvv\": {\"name\": \"CVV\", \"length\": 3}}\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/bank-\(n).json"))
        }
        let loaded = try RuleSources.load(folders: [RuleSources.compiledIn, folder])
        #expect(loaded.indexParts == 2)
        #expect(loaded.levelsMadeInHalves == 1)
        let read = try RuleSet.load(folders: [RuleSources.read(folder: RuleSources.compiledIn), RuleSources.read(folder: folder)])
        #expect(read.indexParts == 1 && read.levelsMadeInHalves == 0)
        #expect(loaded.networks == read.networks)
        #expect(loaded.warnings == read.warnings)
        #expect(loaded.levelsDescription == read.levelsDescription)
        #expect(loaded.levelsDescription.contains("8: "))
    }

    /// A job handed to another thread (`onAnotherThread`, the index's `RuleSet.Splitting`) is
    /// done exactly once: by the caller when it joins before any thread has started the job
    /// (the other's later start does nothing), or by the other thread, waited for.
    @Test func aJobIsDoneOnceByWhicheverThreadTakesIt() {
        let runs = Mutex(0)
        let late = Mutex<(@Sendable () -> Void)?>(nil)
        let notStarted = RuleSources.onAnotherThread({ runs.withLock { $0 += 1 } }, starting: { block in late.withLock { $0 = block } })
        #expect(runs.withLock { $0 } == 0)
        notStarted()
        #expect(runs.withLock { $0 } == 1)
        late.withLock { $0 }?()
        #expect(runs.withLock { $0 } == 1)

        let startedFirst = RuleSources.onAnotherThread({ runs.withLock { $0 += 1 } }, starting: { $0() })
        #expect(runs.withLock { $0 } == 2)
        startedFirst()
        #expect(runs.withLock { $0 } == 2)
    }

    /// The first thing that cannot be read, in folder and name order, is named, on two
    /// threads as on one: a file before a missing folder, a missing folder before a file.
    @Test func twoThreadsNameTheFirstUnreadableFolderOrFile() throws {
        let count = 193
        let bank = try makeBankFolder(count)
        defer { try? FileManager.default.removeItem(atPath: bank) }
        let broken = try makeBankFolder(count)
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let names = try FileManager.default.contentsOfDirectory(atPath: broken).sorted()
        for index in [count - 1, 100] {
            try FileManager.default.removeItem(atPath: broken + "/" + names[index])
            try FileManager.default.createDirectory(atPath: broken + "/" + names[index], withIntermediateDirectories: false)
        }
        let missing = bank + "-missing"
        let cases: [([String], String)] = [
            ([bank, broken, missing], "/\(names[100]): it is a folder"),
            ([bank, missing, broken], "-missing: no such folder"),
            ([broken, bank], "/\(names[100]): it is a folder"),
        ]
        for (folders, ending) in cases {
            let one = outcome(folders, onTwoThreads: false), two = outcome(folders, onTwoThreads: true)
            #expect(one == two)
            #expect(one.hasPrefix("unreadable: cannot read rule \(ending.contains(".json") ? "file" : "folder") "))
            #expect(one.hasSuffix(ending))
        }
    }

    /// A file read by its name in an open folder is the file read by its whole path; a name
    /// that is not there, or a folder in its place, is nil.
    @Test func aFileIsReadByItsNameInAnOpenFolder() throws {
        let folder = try makeBankFolder(3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/d.json", withIntermediateDirectories: false)
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let whole = try Paths.contents(of: folder + "/bank-001.json", limit: 1 << 20)
        #expect(String(decoding: whole, as: UTF8.self).contains("\"bank-1\""))
        #expect(try Paths.contents(of: "bank-001.json", in: fd, limit: 1 << 20) == whole)
        #expect(try Paths.contents(of: folder + "/bank-001.json", in: fd, limit: 1 << 20) == whole)  // (a whole path: the folder is not used)
        #expect(throws: Paths.Unreadable.self) { try Paths.contents(of: "no-such.json", in: fd, limit: 1 << 20) }
        #expect(throws: Paths.Unreadable(reason: "it is a folder")) { try Paths.contents(of: "d.json", in: fd, limit: 1 << 20) }
    }

    /// One array read into again and again (`Paths.read(_:in:into:)`, each decoding thread's):
    /// each time it holds exactly the file just read, shorter or longer than the one before,
    /// and a file that cannot be read says so.
    @Test func oneArrayReadIntoAgainHoldsEachFileExactly() throws {
        let folder = try makeBankFolder(3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/small.json"))
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        var buffer: [UInt8] = []
        for name in ["bank-001.json", "small.json", "bank-002.json", "no-such.json", "small.json"] {
            let read = (try? Paths.read(name, in: fd, into: &buffer, limit: 1 << 20)) != nil
            let whole = try? Paths.contents(of: folder + "/" + name, limit: 1 << 20)
            #expect(read == (whole != nil), "\(name)")
            if let whole { #expect(buffer == whole, "\(name)") }
        }
        try Paths.read("/proc/self/status", into: &buffer, limit: 1 << 20)
        #expect(String(decoding: buffer, as: UTF8.self).hasPrefix("Name:"))
    }

    /// The thread that asked never waits for the other: when the other has not started by
    /// the end (no processor on a busy machine), it has decoded every file itself; when the
    /// other took every file before it began, their results are the ones given. Both as
    /// one thread gives them, in file order.
    @Test func theAskingThreadNeverWaitsForTheOther() throws {
        let bank = try makeBankFolder(193)
        defer { try? FileManager.default.removeItem(atPath: bank) }
        let folders = [RuleSources.compiledIn, bank]
        let expected = outcome(folders, onTwoThreads: false)
        func loaded(_ decoded: [[RuleSet.DecodedFile]]) -> String {
            guard let set = try? RuleSet.load(decoded: decoded) else { return "rule errors" }
            return "loaded \(set.networks.count): " + set.networks.map { "\($0.id) \($0.file) \($0.patterns)" }.joined(separator: "; ")
                + " warnings: " + set.warnings.description
        }
        // The other thread's work, held and never run until the results are in.
        let held = Mutex<[@Sendable () -> Void]>([])
        let alone = try RuleSources.decode(folders: folders, onTwoThreads: true, startingOther: { work in held.withLock { $0.append(work) } })
        #expect(loaded(alone) == expected)
        #expect(held.withLock { $0.count } == 1)
        held.withLock { $0.removeAll() }  // (closes the folders)
        // The other thread's work run to its end first: it took every file.
        let other = try RuleSources.decode(folders: folders, onTwoThreads: true, startingOther: { work in work() })
        #expect(loaded(other) == expected)
    }
}

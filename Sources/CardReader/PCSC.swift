import CPCSC
import CardChip

#if canImport(Glibc)
    import Glibc
#endif

/// PC/SC through pcsc-lite, loaded at run time (`CPCSC`): the readers attached, and a card
/// read in one of them. Nothing here writes a command, an answer or track data anywhere;
/// answers are overwritten once the flow has taken them.
public enum PCSC {
    /// A status pcsc-lite returned (`SCARD_E_…`), or that the library could not be loaded.
    public struct Status: Error, Equatable, Sendable, CustomStringConvertible {
        public let code: Int

        /// libpcsclite.so.1 is not on this machine.
        public static let notLoaded = Status(code: Int(CL_PCSC_NOT_LOADED))
        public static let noService = Status(code: Int(CL_SCARD_E_NO_SERVICE))
        public static let noReaders = Status(code: Int(CL_SCARD_E_NO_READERS_AVAILABLE))
        public static let cancelled = Status(code: Int(CL_SCARD_E_CANCELLED))
        public static let timeout = Status(code: Int(CL_SCARD_E_TIMEOUT))
        static let commError = Status(code: Int(CL_SCARD_F_COMM_ERROR))

        /// Whether the status means "no PC/SC here" (no library, no pcscd, no reader): cardline
        /// then behaves as if readers did not exist, without a word.
        public var meansNoReaders: Bool { [.notLoaded, .noService, .noReaders, .commError].contains(self) }

        public var description: String {
            switch self {
            case .notLoaded: return "libpcsclite.so.1 could not be loaded"
            case .noService: return "pcscd is not running"
            case .noReaders: return "no reader is attached"
            default: return "PC/SC error 0x\(String(code, radix: 16, uppercase: true))"
            }
        }

        static func check(_ value: Int) throws(Status) {
            if value != 0 { throw Status(code: value) }
        }
    }

    /// A reader, and whether a card is in it (or on it).
    public struct Reader: Equatable, Sendable {
        public let name: String
        public let hasCard: Bool
        /// The card's ATR, when there is one (for `isContactless`).
        public let atr: [UInt8]
    }

    /// Whether libpcsclite.so.1 could be loaded.
    public static var isLoaded: Bool { cl_pcsc_available() != 0 }

    /// A PC/SC context: one a thread (pcsc-lite's rule), released when dropped.
    final class Context {
        let handle: Int

        init() throws(Status) {
            var handle = 0
            try Status.check(cl_pcsc_establish(&handle))
            self.handle = handle
        }

        deinit { _ = cl_pcsc_release(handle) }

        /// The readers' names (SCardListReaders, asked twice: the size, then the names).
        func readerNames() throws(Status) -> [String] {
            var length: UInt = 0
            try Status.check(cl_pcsc_list_readers(handle, nil, &length))
            guard length > 1 else { return [] }
            var buffer = [CChar](repeating: 0, count: Int(length))
            try Status.check(cl_pcsc_list_readers(handle, &buffer, &length))
            return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }

        /// SCardGetStatusChange over `names`, `current` the states known (updated to the new
        /// ones); the ATRs of the readers' cards.
        func wait(_ names: [String], current: inout [UInt], timeout: UInt) throws(Status) -> [[UInt8]] {
            let count = names.count
            var events = [UInt](repeating: 0, count: count)
            var atrs = [UInt8](repeating: 0, count: count * Int(CL_PCSC_ATR_SIZE))
            var lengths = [UInt](repeating: 0, count: count)
            var joined: [CChar] = []
            for name in names {
                joined += name.utf8.map { CChar(bitPattern: $0) }
                joined.append(0)
            }
            let status = cl_pcsc_wait(handle, timeout, joined, count, current, &events, &atrs, &lengths)
            try Status.check(status)
            current = events
            return (0..<count).map { index in
                Array(atrs[(index * Int(CL_PCSC_ATR_SIZE))..<(index * Int(CL_PCSC_ATR_SIZE) + Int(lengths[index]))])
            }
        }

        /// SCardCancel: a `wait` on this context (on another thread) returns `.cancelled`.
        func cancel() { _ = cl_pcsc_cancel(handle) }
    }

    /// The readers attached and whether each holds a card; `.noService`, `.noReaders` or
    /// `.notLoaded` when there are none to list.
    public static func readers() -> Result<[Reader], Status> {
        do throws(Status) {
            let context = try Context()
            let names = try context.readerNames()
            var states = [UInt](repeating: UInt(CL_SCARD_STATE_UNAWARE), count: names.count)
            let atrs = try context.wait(names, current: &states, timeout: 0)
            return .success(
                names.indices.map { index in
                    let present = states[index] & UInt(CL_SCARD_STATE_PRESENT) != 0
                    return Reader(name: names[index], hasCard: present, atr: present ? atrs[index] : [])
                })
        } catch {
            return .failure(error)
        }
    }

    /// Reads the card in `reader` through `ChipReadFlow`: connect, the flow's commands one by
    /// one, disconnect (the card reset). `known` are the rules' AIDs. Blocks for as long as
    /// the card and reader take: callers put a time limit around it (`ReaderWatcher`).
    public static func readCard(in reader: String, atr: [UInt8], known: [ChipReadFlow.KnownAID]) -> ChipCard? {
        guard let context = try? Context() else { return nil }
        var card = 0
        var protocolInUse: UInt = 0
        guard cl_pcsc_connect(context.handle, reader, &card, &protocolInUse) == 0 else { return nil }
        defer { _ = cl_pcsc_disconnect(card) }
        var flow = ChipReadFlow(known: known, terminal: TerminalValues.now())
        var answer = [UInt8](repeating: 0, count: 258)
        defer { answer.withWiping() }
        var step = flow.start()
        while case .send(var command) = step {
            var length = UInt(answer.count)
            let status = cl_pcsc_transmit(card, protocolInUse, command, command.count, &answer, &length)
            command.withWiping()
            // A card pulled out answers once with no bytes (pcsc-lite 1.9.9): a short answer fails the flow.
            let received = status == 0 ? Array(answer.prefix(Int(min(length, UInt(answer.count))))) : []
            step = flow.take(received)
            var taken = received
            taken.withWiping()
            for index in answer.indices { answer[index] = 0 }
        }
        guard case .read(var read) = step else { return nil }
        read.contactless = ChipCard.isContactless(atr: atr)
        return read
    }
}

extension TerminalValues {
    /// Today in local time, and four random bytes for `9F37`.
    static func now() -> TerminalValues {
        var clock = time(nil)
        var parts = tm()
        localtime_r(&clock, &parts)
        return TerminalValues(
            year: Int(parts.tm_year) % 100, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            unpredictableNumber: (0..<4).map { _ in UInt8.random(in: 0...255) })
    }
}

extension Array where Element == UInt8 {
    /// Overwrites every byte, then empties the array.
    mutating func withWiping() {
        for index in indices { self[index] = 0 }
        removeAll()
    }
}

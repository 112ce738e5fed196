import CardKit

/// A swipe from a keyboard-wedge reader, collected for `KeyReader` from the terminal's bytes.
/// A reader types the stripe's tracks (`%B…?;…?`) then Enter, faster than a person types. A
/// read that starts with `%` or `;` starts a swipe; its bytes are kept here, never decoded into
/// keys and never echoed, up to the Enter, then read by `TrackData.read(_:)` and wiped. A
/// pause longer than `gapTimeout` ends it: a lone `%` or `;` was a key typed by hand (handed
/// back, as the key it is), anything longer a swipe cut short (unreadable).
struct SwipeCollector {
    /// How long the bytes of a swipe may pause (milliseconds). Readers type a track in well
    /// under a second, a character every few milliseconds; a `;` typed by hand is refused
    /// this much later.
    static let gapTimeout: Int32 = 500

    /// The swipe's bytes so far, in storage sized once (growing would leave a copy behind).
    private var bytes: [UInt8]
    /// More bytes came than any swipe has (`TrackData.longestSwipe`): the swipe is unreadable.
    private var tooLong = false
    /// A swipe is being collected.
    private(set) var isCollecting = false
    /// The swipe read and not yet taken: `.some(nil)` for one that could not be read.
    private var read: TrackData??

    init() {
        bytes = []
        bytes.reserveCapacity(TrackData.longestSwipe)
    }

    /// A swipe is read and waits to be taken (`take()`).
    var isRead: Bool { read != nil }

    /// Takes the bytes of a read from its first, up to and including the Enter that ends the
    /// swipe (and a line feed straight after a carriage return): how many it took. The caller
    /// wipes the read buffer.
    mutating func collect(_ buffer: [UInt8], count: Int) -> Int {
        isCollecting = true
        var index = 0
        while index < count {
            let byte = buffer[index]
            index += 1
            if byte == 0x0D || byte == 0x0A {
                if byte == 0x0D && index < count && buffer[index] == 0x0A { index += 1 }
                finish(readable: true)
                return index
            }
            if bytes.count < TrackData.longestSwipe { bytes.append(byte) } else { tooLong = true }
        }
        return index
    }

    /// Ends a swipe that paused or met the end of input before its Enter: the sentinel byte
    /// when it was all that came (a key typed by hand), else nil (the swipe is unreadable).
    mutating func endWithoutEnter() -> UInt8? {
        if bytes.count == 1 && !tooLong {
            let byte = bytes[0]
            bytes.overwriteAndEmpty()
            isCollecting = false
            return byte
        }
        finish(readable: false)
        return nil
    }

    /// The swipe read, taken (nil when none waits).
    mutating func take() -> TrackData?? {
        defer { read = nil }
        return read
    }

    private mutating func finish(readable: Bool) {
        read = .some(readable && !tooLong ? try? TrackData.read(bytes).get() : nil)
        bytes.overwriteAndEmpty()
        tooLong = false
        isCollecting = false
    }
}

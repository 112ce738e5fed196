import ArgumentParser
import CardPrompt
import CardSeal

extension CardSealer.Format: ExpressibleByArgument {}

/// `--encrypt-to` and `--encrypt-format`, for `enter` and `check`.
enum Sealing {
    /// The sealer for `keyFile` (nil without one), its key read and checked before anything
    /// else is done: a file that cannot be read is 66 (not a regular file: a FIFO is never
    /// waited on; over `RecipientKey.largestFile`: `Paths.read`), one that holds no usable key
    /// 64, each with a message naming the file (escaped) and nothing on standard output.
    static func sealer(keyFile: String?, format: CardSealer.Format?) throws -> CardSealer? {
        guard let keyFile else { return nil }
        do throws(RecipientKey.Problem) {
            let text: [UInt8]
            do throws(Paths.Unreadable) {
                text = try Paths.contents(of: keyFile, limit: RecipientKey.largestFile)
            } catch {
                throw RecipientKey.Problem(unreadable: true, reason: "cannot read it: " + error.reason)
            }
            let key = try RecipientKey(text: text)
            if let problem = CardSealer.problem(sealing: format ?? .jwe, for: key) {
                throw RecipientKey.Problem(unreadable: false, reason: problem)
            }
            return CardSealer(key: key, format: format ?? .jwe)
        } catch {
            Terminal.writeError("cardline: error: --encrypt-to \(keyFile.escapingControlCharacters): \(error.reason)\n")
            throw error.unreadable ? ExitStatus.unreadable : ExitStatus.usage
        }
    }

    /// The usage error for `--encrypt-format` given without `--encrypt-to`.
    static let formatWithoutKey = "--encrypt-format needs --encrypt-to FILE, the key to encrypt for"
}

import CardKit

#if canImport(Glibc)
    import Glibc
#endif

/// Encrypts accepted cards for a payment processor's public key, so that whoever receives
/// them (the calling script, its pipes and logs) holds only ciphertext:
///
/// - `.jwe`: `{"network":"visa","network_name":"Visa","family":"visa","also_networks":[],"last4":"1111","expiry":{"month":12,"year":2030},"entry":"keyed","jwe":"eyJ…"}`
///   (a swiped card: `"entry":"swipe","chip":true` or `false`),
///   the JWE (RSA-OAEP-256 or, for a P-256 key, ECDH-ES+A256KW; A256GCM; the key's `kid`)
///   holding exactly the JSON `--print`
///   writes (`PaymentCard.appendJSON`); the other members are clear, never more of the card, and
///   written by the same writer in the same order (`PaymentCard.appendJSONMembers(.clear, to:)`);
/// - `.adyen`: `{"type":"scheme","encryptedCardNumber":"eyJ…","encryptedExpiryMonth":"eyJ…","encryptedExpiryYear":"eyJ…","encryptedSecurityCode":"eyJ…"}`,
///   Adyen's card fields, each its own JWE (RSA-OAEP-256, A256CBC-HS512, `"version":"1"`)
///   of `{"number":"…","generationtime":"2026-11-25T10:42:07.123Z"}` (`expiryMonth` as two
///   digits, `expiryYear` as four, `cvc`), ready for `paymentMethod` in Adyen's `/payments`,
///   followed by the same clear members as the `.jwe` form's (Adyen's own names untouched).
///
/// Every JWE has a content key and IV of its own. The buffers that hold a clear card on the way
/// are wiped before `appendSealed` returns.
public struct CardSealer: CardSealing {
    /// What the sealed card looks like.
    public enum Format: String, CaseIterable, Sendable {
        /// One JWE of the whole card, with clear bookkeeping fields.
        case jwe
        /// Adyen's encrypted card fields.
        case adyen
    }

    /// The recipient's key.
    public let key: RecipientKey
    /// The shape of each sealed card.
    public let format: Format

    /// Why a key cannot seal in a format: Adyen's fields need an RSA key (Adyen's are RSA).
    public static func problem(sealing format: Format, for key: RecipientKey) -> String? {
        format == .adyen && !key.isRSA
            ? "Adyen's encrypted fields need an RSA key (Adyen's client encryption keys are RSA); this is a P-256 key"
            : nil
    }
    /// The time of encryption, for Adyen's `generationtime`; the system clock's unless a test pins it.
    let clock: @Sendable () -> timespec

    /// A sealer for `key` writing `format`.
    public init(key: RecipientKey, format: Format = .jwe) {
        self.init(
            key: key, format: format,
            clock: {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                return now
            })
    }

    init(key: RecipientKey, format: Format, clock: @escaping @Sendable () -> timespec) {
        self.key = key
        self.format = format
        self.clock = clock
    }

    /// Appends the sealed card (see the type's description) as one JSON object, no line break.
    public func appendSealed(_ card: PaymentCard, to out: inout [UInt8]) throws {
        switch format {
        case .jwe: try appendJWE(card, to: &out)
        case .adyen: try appendAdyen(card, to: &out)
        }
    }

    private func appendJWE(_ card: PaymentCard, to out: inout [UInt8]) throws {
        var plaintext: [UInt8] = []
        // One allocation, sized for this card: growing would leave a copy of it in freed memory.
        plaintext.reserveCapacity(card.jsonLength)
        card.appendJSON(to: &plaintext)
        defer { plaintext.overwriteAndEmpty() }
        let jwe = try JWE.compact(
            plaintext, encryption: .a256gcm, for: key,
            moreHeader: key.keyID.map { #","kid":"# + $0.jsonQuoted } ?? "")
        // The clear members, written by the card record's writer in its order
        // (`PaymentCard.JSONMembers.clear`).
        out.append(UInt8(ascii: "{"))
        card.appendJSONMembers(.clear, to: &out)
        out += #","jwe":""#.utf8
        out += jwe.utf8
        out += #""}"#.utf8
    }

    /// What follows `alg` and `enc` in Adyen's protected header, as its client-side encryption
    /// writes it: `{"alg":"RSA-OAEP-256","enc":"A256CBC-HS512","version":"1"}`.
    static let adyenHeader = #","version":"1""#

    private func appendAdyen(_ card: PaymentCard, to out: inout [UInt8]) throws {
        let time = Self.generationTime(clock())
        let month = [UInt8(card.expiry.month / 10 % 10), UInt8(card.expiry.month % 10)]
        let year = String(card.expiry.year).utf8.map { $0 - 48 }
        // A card on file's code (`--cvv-only`) is its `encryptedSecurityCode` alone, as Adyen
        // takes it with a stored payment method.
        var fields: [(name: String, key: String, digits: [UInt8])] =
            card.isSecurityCodeOnly
            ? []
            : [
                ("encryptedCardNumber", "number", card.numberDigits),
                ("encryptedExpiryMonth", "expiryMonth", month),
                ("encryptedExpiryYear", "expiryYear", year),
            ]
        if !card.securityCodeDigits.isEmpty { fields.append(("encryptedSecurityCode", "cvc", card.securityCodeDigits)) }
        out += #"{"type":"scheme""#.utf8
        // Adyen's `holderName` goes in clear beside the encrypted fields (`--name`); a postal
        // code belongs to Adyen's `billingAddress`, which the caller composes, so it is left out.
        if let holderName = card.holderName {
            out += #","holderName":"#.utf8
            out += holderName.jsonQuoted.utf8
        }
        for field in fields {
            var plaintext: [UInt8] = []
            plaintext.reserveCapacity(field.key.utf8.count + field.digits.count + time.utf8.count + 40)
            plaintext += #"{""#.utf8
            plaintext += field.key.utf8
            plaintext += #"":""#.utf8
            for digit in field.digits { plaintext.append(digit + 48) }
            plaintext += #"","generationtime":""#.utf8
            plaintext += time.utf8
            plaintext += #""}"#.utf8
            defer { plaintext.overwriteAndEmpty() }
            let jwe = try JWE.compact(plaintext, encryption: .a256cbcHS512, for: key, moreHeader: Self.adyenHeader)
            out += #",""#.utf8
            out += field.name.utf8
            out += #"":""#.utf8
            out += jwe.utf8
            out += #"""#.utf8
        }
        // The clear members beside Adyen's fields, as beside a JWE: a receipt without decrypting.
        card.appendJSONMembers(.clear, to: &out, comma: true)
        out += "}".utf8
    }

    /// `2026-11-25T10:42:07.123Z`: UTC to the millisecond, as Adyen's Android SDK writes
    /// `generationtime`.
    static func generationTime(_ time: timespec) -> String {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2)
            + "T" + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2)
            + "." + padded(Int32(time.tv_nsec / 1_000_000), 3) + "Z"
    }
}

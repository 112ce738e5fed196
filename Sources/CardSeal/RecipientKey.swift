import CardKit
import Crypto
import CryptoExtras
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The public key cards are sealed for: an RSA key of 2048 bits or more (RSA-OAEP-256), or an
/// elliptic-curve P-256 key (ECDH-ES+A256KW), read from one of the three forms payment
/// processors hand out:
///
/// - PEM: `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo, as `openssl rsa -pubout` writes
///   it) or `-----BEGIN RSA PUBLIC KEY-----` (PKCS #1);
/// - a JWK (RFC 7517): `{"kty":"RSA","n":"…","e":"AQAB","kid":"…"}` or
///   `{"kty":"EC","crv":"P-256","x":"…","y":"…"}`, whose `kid` goes into every JWE header;
/// - Adyen's client-side-encryption key text: `10001|<hex modulus>` (exponent, bar, modulus).
///
/// The key is checked when it is read, so a caller can refuse it before asking for a card.
///
/// Sendable though swift-crypto's RSA key type is not marked so: it is never changed after it
/// is read, and BoringSSL's public-key operations on one key are safe from several threads, so
/// a `CardSealer` may be shared by tasks.
public struct RecipientKey: @unchecked Sendable {
    /// The form the key was read from.
    public enum Form: String, Sendable {
        case pem, jwk, adyen
    }

    /// The smallest RSA modulus taken, in bits (RFC 7518 3.3 and NIST SP 800-131A: 2048).
    public static let minimumBits = 2048

    /// The key itself.
    enum Material {
        /// An RSA key, for RSA-OAEP-256.
        case rsa(_RSA.Encryption.PublicKey)
        /// A P-256 key, for ECDH-ES+A256KW.
        case p256(P256.KeyAgreement.PublicKey)
    }
    let material: Material
    /// The form it came in.
    public let form: Form
    /// The JWK's `kid`, when it has one.
    public let keyID: String?
    /// The key's size in bits: the RSA modulus's, or 256 for P-256.
    public var bits: Int {
        switch material {
        case .rsa(let key): return key.keySizeInBits
        case .p256: return 256
        }
    }
    /// Whether it is an RSA key (Adyen's fields need one).
    public var isRSA: Bool {
        if case .rsa = material { return true }
        return false
    }

    /// Why a key cannot be used, in words that never quote the key's text.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// Whether the file could not be read at all (exit 66) or holds no usable key (64).
        public var unreadable: Bool
        /// The reason, like "an RSA key of 1024 bits; 2048 or more are needed".
        public var reason: String
        public var description: String { reason }

        public init(unreadable: Bool, reason: String) {
            self.unreadable = unreadable
            self.reason = reason
        }

        static func unusable(_ reason: String) -> Problem { Problem(unreadable: false, reason: reason) }
    }

    /// The key in a file's text (`bytes`), in any of the three forms.
    public init(text bytes: [UInt8]) throws(Problem) {
        var start = 0
        var end = bytes.count
        while start < end && Self.isSpace(bytes[start]) { start += 1 }
        while end > start && Self.isSpace(bytes[end - 1]) { end -= 1 }
        let text = Array(bytes[start..<end])
        guard !text.isEmpty else { throw .unusable("the file is empty; give the recipient's public key") }
        if text.starts(with: Array("-----BEGIN ".utf8)) {
            (material, keyID, form) = (try Self.pem(text), nil, .pem)
        } else if text.first == UInt8(ascii: "{") {
            let (key, id) = try Self.jwk(text)
            (material, keyID, form) = (key, id, .jwk)
        } else if let bar = text.firstIndex(of: UInt8(ascii: "|")), bar > 0, text[..<bar].allSatisfy(Self.isHexDigit) {
            // (Only text that starts like `10001|`: random bytes holding a `|` get the general message.)
            (material, keyID, form) = (.rsa(try Self.adyen(text)), nil, .adyen)
        } else {
            throw .unusable(
                "not a public key: expected a PEM public key (-----BEGIN PUBLIC KEY-----), a JWK ({\"kty\":\"RSA\",...} or {\"kty\":\"EC\",...}) or Adyen's key text (10001|<hex modulus>)"
            )
        }
    }

    /// The largest key file read, 64 KiB: a public key is a few kilobytes at most. (A key file
    /// is read by the caller, `Paths.contents(of:limit:)` in CardPrompt for cardline, which
    /// refuses a FIFO, a device or a folder; its bytes are then `init(text:)`.)
    public static let largestFile = 64 << 10

    // MARK: - The three forms

    private static func pem(_ text: [UInt8]) throws(Problem) -> Material {
        let pem = String(decoding: text, as: UTF8.self)
        if pem.contains("PRIVATE KEY-----") {
            throw .unusable("holds a private key; give the recipient's public key (openssl pkey -pubout)")
        }
        guard pem.contains("-----END ") else { throw .unusable("a PEM block with no END line (cut short?)") }
        // An exponent BoringSSL refuses is named here, not by its error code.
        if let exponent = rsaExponent(pem: text), let problem = exponentProblem(exponent) { throw problem }
        let key: _RSA.Encryption.PublicKey
        do {
            // The 1024-bit floor of the "unsafe" reader, so that a short key is named as such below.
            key = try _RSA.Encryption.PublicKey(unsafePEMRepresentation: pem)
        } catch CryptoKitError.incorrectParameterSize {
            throw .unusable("an RSA key shorter than 1024 bits; \(minimumBits) bits or more are needed")
        } catch {
            if let p256 = try? P256.KeyAgreement.PublicKey(pemRepresentation: pem) { return .p256(p256) }
            if (try? P384.KeyAgreement.PublicKey(pemRepresentation: pem)) != nil
                || (try? P521.KeyAgreement.PublicKey(pemRepresentation: pem)) != nil
            {
                throw .unusable(
                    "an elliptic-curve key on a curve other than P-256; cardline encrypts for RSA (2048 bits or more) or P-256 keys"
                )
            }
            throw .unusable("not a readable PEM public key (a damaged or cut-short block?)")
        }
        try checkSize(key.keySizeInBits)
        return .rsa(key)
    }

    private static func jwk(_ text: [UInt8]) throws(Problem) -> (Material, String?) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw .unusable(
                "not valid JSON (line \(error.location.line), column \(error.location.column)): \(error.message)")
        }
        guard case .object(let members, _) = value else {
            throw .unusable("a JSON \(value.kindName), not a JWK object")
        }
        func string(_ key: String) throws(Problem) -> String? {
            guard let member = members.last(where: { $0.key == key }) else { return nil }
            guard case .string(let text, _) = member.value else {
                throw .unusable("the JWK's \"\(key)\" is \(member.value.kindName), not a string")
            }
            return text
        }
        if members.contains(where: { $0.key == "keys" }) {
            throw .unusable("a JWK Set; give the one key to encrypt for, as its own JWK")
        }
        guard let type = try string("kty") else { throw .unusable("a JSON object with no \"kty\": not a JWK") }
        guard type == "RSA" || type == "EC" else {
            throw .unusable(
                "a JWK of type \(type.jsonQuoted); cardline encrypts for RSA (\"kty\": \"RSA\") or P-256 (\"kty\": \"EC\") keys"
            )
        }
        if members.contains(where: { ["d", "p", "q"].contains($0.key) }) {
            throw .unusable("holds a private key (\"d\"); give the recipient's public JWK")
        }
        if let use = try string("use"), use != "enc" {
            throw .unusable("a JWK for \"use\": \(use.jsonQuoted), not \"enc\"")
        }
        let wrapping = type == "RSA" ? "RSA-OAEP-256" : "ECDH-ES+A256KW"
        if let algorithm = try string("alg"), algorithm != wrapping {
            throw .unusable("a JWK for \"alg\": \(algorithm.jsonQuoted); cardline wraps keys for it with \(wrapping)")
        }
        if type == "EC" {
            guard let curve = try string("crv"), curve == "P-256" else {
                throw .unusable("an EC JWK on a curve other than P-256 (\"crv\"); cardline encrypts for P-256 keys")
            }
            guard let x = try string("x").flatMap(base64URLDecoded), let y = try string("y").flatMap(base64URLDecoded),
                x.count == 32, y.count == 32, let key = try? P256.KeyAgreement.PublicKey(rawRepresentation: x + y)
            else {
                throw .unusable("a P-256 JWK whose \"x\" and \"y\" are not a point on the curve")
            }
            return (.p256(key), try string("kid"))
        }
        guard let n = try string("n"), let e = try string("e") else {
            throw .unusable("an RSA JWK needs \"n\" and \"e\"")
        }
        guard let modulus = base64URLDecoded(n) else { throw .unusable("the JWK's \"n\" is not base64url") }
        guard let exponent = base64URLDecoded(e) else { throw .unusable("the JWK's \"e\" is not base64url") }
        return (.rsa(try rsaKey(modulus: modulus, exponent: exponent)), try string("kid"))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func adyen(_ text: [UInt8]) throws(Problem) -> _RSA.Encryption.PublicKey {
        let parts = text.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
        guard parts.count == 2, let exponent = hexDecoded(parts[0]), let modulus = hexDecoded(parts[1]) else {
            throw .unusable("not Adyen's key text: expected <hex exponent>|<hex modulus>, like 10001|A2370...")
        }
        return try rsaKey(modulus: modulus, exponent: exponent)
    }

    /// An RSA key from its modulus and exponent (big-endian bytes), its size checked first so
    /// that a short key is named as such.
    private static func rsaKey(modulus: [UInt8], exponent: [UInt8]) throws(Problem) -> _RSA.Encryption.PublicKey {
        let significant = modulus.drop { $0 == 0 }
        try checkSize(significant.isEmpty ? 0 : significant.count * 8 - significant.first!.leadingZeroBitCount)
        if let problem = exponentProblem(exponent) { throw problem }
        do {
            return try _RSA.Encryption.PublicKey(n: Array(significant), e: exponent)
        } catch {
            // (BoringSSL's reasons are error codes; the size and exponent are checked above.)
            throw .unusable("not a usable RSA public key: its modulus and exponent are refused")
        }
    }

    /// What is wrong with an RSA public exponent (big-endian bytes), as BoringSSL checks it:
    /// odd, 3 or more, at most 33 bits; nil when it is fine.
    static func exponentProblem(_ exponent: some Collection<UInt8>) -> Problem? {
        let significant = exponent.drop { $0 == 0 }
        let rule = "it must be odd, from 3 to 33 bits long, like 65537"
        guard significant.count <= 8 else {
            return .unusable("an RSA key whose public exponent is over 64 bits; \(rule)")
        }
        let value = significant.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value >= 3, value & 1 == 1, value >> 33 == 0 else {
            return .unusable("an RSA key whose public exponent is \(value); \(rule)")
        }
        return nil
    }

    /// The public exponent of a PEM RSA public key (SubjectPublicKeyInfo or PKCS #1), read from
    /// its DER; nil for anything else (another kind of key, a damaged block: swift-crypto says).
    static func rsaExponent(pem text: [UInt8]) -> [UInt8]? {
        let body = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("-----") && !$0.contains(":") }.joined()
        guard let der = Data(base64Encoded: body).map([UInt8].init) else { return nil }
        var reader = DERReader(der[...])
        guard var outer = reader.element(0x30) else { return nil }
        if var algorithm = outer.element(0x30) {
            // SubjectPublicKeyInfo: the algorithm (rsaEncryption, 1.2.840.113549.1.1.1), then a
            // BIT STRING holding the PKCS #1 key after its unused-bits byte.
            guard
                algorithm.element(0x06)?.bytes.elementsEqual([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01])
                    == true,
                let bits = outer.element(0x03), bits.bytes.first == 0
            else { return nil }
            var inner = DERReader(bits.bytes.dropFirst())
            guard let key = inner.element(0x30) else { return nil }
            outer = key
        }
        // RSAPublicKey: the modulus, then the exponent.
        guard outer.element(0x02) != nil, let exponent = outer.element(0x02) else { return nil }
        return Array(exponent.bytes)
    }

    /// Reads DER elements one after another (definite lengths only).
    struct DERReader {
        var bytes: ArraySlice<UInt8>
        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        /// The next element's contents when its tag is `tag`, as a reader; nil otherwise.
        mutating func element(_ tag: UInt8) -> DERReader? {
            var at = bytes.startIndex
            guard at < bytes.endIndex, bytes[at] == tag else { return nil }
            at += 1
            guard at < bytes.endIndex else { return nil }
            var length = Int(bytes[at])
            at += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count >= 1, count <= 4, bytes.endIndex - at >= count else { return nil }
                length = bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
                at += count
            }
            guard bytes.endIndex - at >= length else { return nil }
            defer { bytes = bytes[(at + length)...] }
            return DERReader(bytes[at..<at + length])
        }
    }

    private static func checkSize(_ bits: Int) throws(Problem) {
        guard bits >= minimumBits else {
            throw .unusable("an RSA key of \(bits) bits; \(minimumBits) bits or more are needed")
        }
    }

    // MARK: - Text

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\t")
    }

    /// Hex digits (either case) as bytes, an odd count read as with a leading zero; nil for
    /// anything else.
    static func hexDecoded(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard !text.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2 + 1)
        var high: UInt8? = text.count % 2 == 1 ? 0 : nil
        for character in text {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    /// base64url (RFC 4648 section 5), with or without `=` padding; nil for anything else.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}

extension Sequence<UInt8> {
    /// base64url (RFC 4648 section 5) without padding, as JOSE writes every part of a JWE.
    var base64URL: String {
        // Base64's own alphabet changed over its bytes (mapping its Characters was most of a
        // record's sealing time).
        var bytes = Array(Data(self).base64EncodedString().utf8)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            if bytes[index] == UInt8(ascii: "+") {
                bytes[index] = UInt8(ascii: "-")
            } else if bytes[index] == UInt8(ascii: "/") {
                bytes[index] = UInt8(ascii: "_")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

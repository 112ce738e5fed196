import Crypto
import CryptoExtras
import FoundationEssentials

/// One JWE in compact serialization (RFC 7516 section 7.1) for a recipient's key: a fresh
/// content key wrapped with RSA-OAEP-256 (RFC 7518 section 4.3) for an RSA key, or with
/// ECDH-ES+A256KW (section 4.6) for a P-256 key; the plaintext encrypted under it with a fresh
/// IV. Only the composition is here; every primitive is swift-crypto's.
enum JWE {
    /// The content encryption (`enc`).
    enum ContentEncryption: String, Sendable {
        /// AES-256 in GCM (RFC 7518 section 5.3): a 256-bit key, a 96-bit IV, a 128-bit tag.
        case a256gcm = "A256GCM"
        /// AES-256 in CBC with HMAC-SHA-512 (RFC 7518 section 5.2.5), as Adyen's card
        /// encryption writes it: a 512-bit key, a 128-bit IV, a 256-bit tag.
        case a256cbcHS512 = "A256CBC-HS512"
    }

    /// `BASE64URL(header) . BASE64URL(wrapped key) . BASE64URL(IV) . BASE64URL(ciphertext) .
    /// BASE64URL(tag)`. The protected header is `{"alg":…,"enc":…` (with `"epk"` for an EC key)
    /// followed by `moreHeader` (members, each after a comma) and `}`; its base64url form is the
    /// additional authenticated data (RFC 7516 section 5.1, step 14).
    static func compact(
        _ plaintext: [UInt8], encryption: ContentEncryption, for key: RecipientKey, moreHeader: String = ""
    ) throws -> String {
        let contentKey: SymmetricKey
        switch encryption {
        case .a256gcm: contentKey = SymmetricKey(size: .bits256)
        case .a256cbcHS512: contentKey = SymmetricKey(size: SymmetricKeySize(bitCount: 512))
        }
        // The content key leaves this process only wrapped; swift-crypto's key storage is wiped
        // when it is freed.
        var header = ""
        let wrappedKey: Data
        switch key.material {
        case .rsa(let rsa):
            header = #"{"alg":"RSA-OAEP-256","enc":""# + encryption.rawValue + #"""#
            // unsafe: the key's bytes are read in place, never copied into an array of ours.
            wrappedKey = try contentKey.withUnsafeBytes { try rsa.encrypt($0, padding: .PKCS1_OAEP_SHA256) }
        case .p256(let recipient):
            let ephemeral = P256.KeyAgreement.PrivateKey()
            let point = Array(ephemeral.publicKey.rawRepresentation)
            header =
                #"{"alg":"ECDH-ES+A256KW","enc":""# + encryption.rawValue + #"","epk":{"kty":"EC","crv":"P-256","x":""#
                + point[..<32].base64URL + #"","y":""# + point[32...].base64URL + #""}"#
            let secret = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
            wrappedKey = try AES.KeyWrap.wrap(contentKey, using: keyEncryptionKey(secret))
        }
        header += moreHeader + "}"
        let protectedHeader = Array(header.utf8).base64URL
        let additionalData = Array(protectedHeader.utf8)
        let iv: [UInt8]
        let ciphertext: [UInt8]
        let tag: [UInt8]
        switch encryption {
        case .a256gcm:
            let nonce = AES.GCM.Nonce()
            let box = try AES.GCM.seal(plaintext, using: contentKey, nonce: nonce, authenticating: additionalData)
            (iv, ciphertext, tag) = (Array(nonce), Array(box.ciphertext), Array(box.tag))
        case .a256cbcHS512:
            // RFC 7518 section 5.2.2.1: MAC_KEY is the key's first half, ENC_KEY its second.
            // unsafe: the halves are handed to swift-crypto's key storage straight from the key's.
            let (macKey, encryptionKey) = contentKey.withUnsafeBytes { bytes in
                (
                    SymmetricKey(data: UnsafeRawBufferPointer(rebasing: bytes[..<32])),
                    SymmetricKey(data: UnsafeRawBufferPointer(rebasing: bytes[32...]))
                )
            }
            let vector = AES._CBC.IV()
            iv = Array(vector)
            // PKCS #7 padding, as the section asks, is the CBC encryption's own.
            ciphertext = Array(try AES._CBC.encrypt(plaintext, using: encryptionKey, iv: vector))
            // The tag: the first half of HMAC-SHA-512 over AAD || IV || ciphertext || AL, AL
            // being the AAD's length in bits as a 64-bit big-endian number.
            var mac = HMAC<SHA512>(key: macKey)
            mac.update(data: additionalData)
            mac.update(data: iv)
            mac.update(data: ciphertext)
            let bits = UInt64(additionalData.count) * 8
            mac.update(data: (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * $0)) })
            tag = Array(Array(mac.finalize()).prefix(32))
        }
        return [protectedHeader, Array(wrappedKey).base64URL, iv.base64URL, ciphertext.base64URL, tag.base64URL]
            .joined(separator: ".")
    }

    /// ECDH-ES+A256KW's key-encryption key (RFC 7518 section 4.6.2): the Concat KDF of NIST SP
    /// 800-56A section 5.8.1 with SHA-256 over the shared secret Z, in its one round for 256
    /// bits: SHA-256(round 1 || Z || AlgorithmID || PartyUInfo || PartyVInfo || SuppPubInfo),
    /// each datum after its length as a 32-bit big-endian number, with no PartyUInfo or
    /// PartyVInfo (no "apu", "apv") and the key's length in bits as SuppPubInfo.
    private static func keyEncryptionKey(_ secret: SharedSecret) -> SymmetricKey {
        func bigEndian32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let algorithm = Array("ECDH-ES+A256KW".utf8)
        var hash = SHA256()
        hash.update(data: bigEndian32(1))
        // unsafe: the shared secret is hashed in place, never copied into an array of ours.
        secret.withUnsafeBytes { hash.update(bufferPointer: $0) }
        hash.update(data: bigEndian32(algorithm.count) + algorithm)
        hash.update(data: bigEndian32(0) + bigEndian32(0) + bigEndian32(256))
        return SymmetricKey(data: hash.finalize())
    }
}

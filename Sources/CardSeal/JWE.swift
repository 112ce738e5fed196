import Crypto
import CryptoExtras
import FoundationEssentials

/// One JWE in compact serialization (RFC 7516 section 7.1) for a recipient's RSA key: a fresh
/// content key wrapped with RSA-OAEP-256 (RFC 7518 section 4.3), the plaintext encrypted under
/// it with a fresh IV. Only the composition is here; every primitive is swift-crypto's.
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
    /// BASE64URL(tag)`. `header` is the protected header's JSON; its base64url form is the
    /// additional authenticated data (RFC 7516 section 5.1, step 14).
    static func compact(_ plaintext: [UInt8], header: String, encryption: ContentEncryption, for key: RecipientKey) throws -> String {
        let protectedHeader = Array(header.utf8).base64URL
        let additionalData = Array(protectedHeader.utf8)
        let contentKey: SymmetricKey
        switch encryption {
        case .a256gcm: contentKey = SymmetricKey(size: .bits256)
        case .a256cbcHS512: contentKey = SymmetricKey(size: SymmetricKeySize(bitCount: 512))
        }
        // The content key leaves this process only wrapped; swift-crypto's key storage is wiped
        // when it is freed.
        // unsafe: the key's bytes are read in place, never copied into an array of ours.
        let wrappedKey = try contentKey.withUnsafeBytes { try key.rsa.encrypt($0, padding: .PKCS1_OAEP_SHA256) }
        let iv: [UInt8], ciphertext: [UInt8], tag: [UInt8]
        switch encryption {
        case .a256gcm:
            let nonce = AES.GCM.Nonce()
            let box = try AES.GCM.seal(plaintext, using: contentKey, nonce: nonce, authenticating: additionalData)
            (iv, ciphertext, tag) = (Array(nonce), Array(box.ciphertext), Array(box.tag))
        case .a256cbcHS512:
            // RFC 7518 section 5.2.2.1: MAC_KEY is the key's first half, ENC_KEY its second.
            // unsafe: the halves are handed to swift-crypto's key storage straight from the key's.
            let (macKey, encryptionKey) = contentKey.withUnsafeBytes { bytes in
                (SymmetricKey(data: UnsafeRawBufferPointer(rebasing: bytes[..<32])),
                 SymmetricKey(data: UnsafeRawBufferPointer(rebasing: bytes[32...])))
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
}

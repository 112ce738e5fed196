#!/usr/bin/env python3
"""The encryption tests' independent side: keys made at test time, and a JWE decrypter that
is not cardline's code (joserfc, on Python's cryptography).

  jwe-check.py keys DIR       writes test keys into DIR (made now, never committed):
                              private.pem (RSA 2048, the decrypting side), public.pem (its
                              SubjectPublicKeyInfo), public.jwk (its JWK, with a kid),
                              adyen.txt (its Adyen key text, 10001|<hex modulus>),
                              weak.pem (RSA 1024, public), ec-private.pem (P-256, the
                              decrypting side of ec.jwk and ec.pem, its public JWK with a
                              kid and SubjectPublicKeyInfo), p384.jwk (P-384, public),
                              oct.jwk (a symmetric JWK), truncated.pem (public.pem cut
                              short), garbage.txt, garbage-bar.txt, and public.pem's
                              modulus with an exponent of 1 and of 2^40+1 in each form
                              (exponent-1.jwk/.txt/.pem, exponent-large.jwk/.txt/.pem)
  jwe-check.py decrypt KEY    reads JSON Lines on stdin; writes each object back with every
                              member that holds a compact JWE replaced by
                              {"header": <protected header>, "plaintext": <its JSON>,
                              "text": <the plaintext as it is>},
                              decrypted with the private key (RSA or P-256) in KEY. Exit 1
                              when any fails.
"""
import base64
import json
import os
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from joserfc import jwe
from joserfc.jwk import ECKey, RSAKey
from joserfc.registry import HeaderParameter

# RSA-OAEP-256 and the two content encryptions cardline writes; Adyen's header carries
# "version": "1", a member joserfc checks only when it is registered.
REGISTRY = jwe.JWERegistry(
    header_registry={"version": HeaderParameter("Adyen's encryption version", "str")},
    algorithms=["RSA-OAEP-256", "ECDH-ES+A256KW", "A256GCM", "A256CBC-HS512"],
)


def b64url(number_bytes):
    return base64.urlsafe_b64encode(number_bytes).rstrip(b"=").decode()


def make_keys(folder):
    os.makedirs(folder, exist_ok=True)

    def write(name, data):
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data if isinstance(data, bytes) else data.encode())

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = private.public_key()
    write("private.pem", private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    public_pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    write("public.pem", public_pem)
    numbers = public.public_numbers()
    modulus = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
    exponent = numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big")
    write("public.jwk", json.dumps({"kty": "RSA", "use": "enc", "alg": "RSA-OAEP-256", "kid": "test-key-1",
                                    "n": b64url(modulus), "e": b64url(exponent)}))
    write("adyen.txt", "%X|%s\n" % (numbers.e, modulus.hex().upper()))
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    write("weak.pem", weak.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    curve_key = ec.generate_private_key(ec.SECP256R1())
    write("ec-private.pem", curve_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    write("ec.pem", curve_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                        serialization.PublicFormat.SubjectPublicKeyInfo))
    point = curve_key.public_key().public_numbers()
    write("ec.jwk", json.dumps({"kty": "EC", "crv": "P-256", "kid": "test-ec-1", "x": b64url(point.x.to_bytes(32, "big")),
                                "y": b64url(point.y.to_bytes(32, "big"))}))
    point = ec.generate_private_key(ec.SECP384R1()).public_key().public_numbers()
    write("p384.jwk", json.dumps({"kty": "EC", "crv": "P-384", "x": b64url(point.x.to_bytes(48, "big")),
                                  "y": b64url(point.y.to_bytes(48, "big"))}))
    write("oct.jwk", json.dumps({"kty": "oct", "k": b64url(os.urandom(32))}))
    write("truncated.pem", public_pem[: len(public_pem) // 2])
    write("garbage.txt", "this is not a key\n")
    write("garbage-bar.txt", "not | a key either\n")  # a `|` alone does not make Adyen's key text
    # The good key's modulus with a public exponent BoringSSL refuses (1, or over 33 bits), in
    # each form; the PEM as PKCS #1 (SEQUENCE of two INTEGERs), written here since no library
    # makes such a key.
    for name, e in (("exponent-1", 1), ("exponent-large", (1 << 40) + 1)):
        e_bytes = e.to_bytes((e.bit_length() + 7) // 8, "big")
        write(name + ".jwk", json.dumps({"kty": "RSA", "n": b64url(modulus), "e": b64url(e_bytes)}))
        write(name + ".txt", "%X|%s\n" % (e, modulus.hex().upper()))
        der = der_sequence(der_integer(numbers.n) + der_integer(e))
        write(name + ".pem", "-----BEGIN RSA PUBLIC KEY-----\n" + base64.encodebytes(der).decode() + "-----END RSA PUBLIC KEY-----\n")


def der_length(count):
    if count < 0x80:
        return bytes([count])
    body = count.to_bytes((count.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def der_integer(value):
    body = value.to_bytes(value.bit_length() // 8 + 1, "big")  # a leading zero byte keeps it positive
    return b"\x02" + der_length(len(body)) + body


def der_sequence(body):
    return b"\x30" + der_length(len(body)) + body


def is_compact_jwe(value):
    if not isinstance(value, str) or value.count(".") != 4:
        return False
    try:
        header = json.loads(base64.urlsafe_b64decode(value.split(".")[0] + "=="))
    except ValueError:
        return False
    return isinstance(header, dict) and "alg" in header


def decrypt(key_file):
    with open(key_file, "rb") as source:
        pem = source.read()
    private = serialization.load_pem_private_key(pem, password=None)
    key = (ECKey if isinstance(private, ec.EllipticCurvePrivateKey) else RSAKey).import_key(pem)
    failed = False
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            for name, value in list(record.items()):
                if is_compact_jwe(value):
                    message = jwe.decrypt_compact(value, key, registry=REGISTRY)
                    text = message.plaintext.decode("utf-8")
                    record[name] = {"header": message.protected, "plaintext": json.loads(text), "text": text}
            print(json.dumps(record, sort_keys=True))
        except Exception as error:  # noqa: BLE001 -- every failure is reported, then exit 1
            print("jwe-check: %s: %s" % (type(error).__name__, error), file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "keys":
        make_keys(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "decrypt":
        sys.exit(decrypt(sys.argv[2]))
    else:
        sys.exit(__doc__)

/// The few DER structures libcrypto needs from a JSON Web Key: public keys as SubjectPublicKeyInfo (which
/// `d2i_PUBKEY` reads) and ECDSA signatures, which a JWT carries as raw r||s.
enum DER {
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    static func sequence(_ items: [UInt8]...) -> [UInt8] { element(0x30, items.flatMap { $0 }) }

    /// A non-negative INTEGER from big-endian bytes: leading zeros dropped, a zero added when the top bit is set.
    static func unsignedInteger(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return element(0x02, value)
    }

    static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(0x03, [0] + bytes) }

    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 { bytes.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    // 1.2.840.113549.1.1.1 rsaEncryption, with its NULL parameters.
    private static let rsaAlgorithm: [UInt8] = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]
    // 1.2.840.10045.2.1 ecPublicKey, curve 1.2.840.10045.3.1.7 (P-256).
    private static let p256Algorithm: [UInt8] = [0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
                                                 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]

    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        sequence(rsaAlgorithm, bitString(sequence(unsignedInteger(modulus), unsignedInteger(exponent))))
    }

    static func p256PublicKey(x: [UInt8], y: [UInt8]) -> [UInt8]? {
        guard x.count == 32, y.count == 32 else { return nil }
        return sequence(p256Algorithm, bitString([0x04] + x + y))
    }

    /// JWS's ES256 signature (32 bytes of r, 32 of s) as the ECDSA-Sig-Value libcrypto verifies.
    static func ecdsaSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        return sequence(unsignedInteger(Array(raw[0..<32])), unsignedInteger(Array(raw[32...])))
    }
}

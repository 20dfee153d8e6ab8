import CLibCrypto

/// RFC 6238 time-based one-time passwords (HOTP, RFC 4226, over the period's counter), the HMAC from libcrypto.
struct TOTP: Sendable {
    /// The digests an authenticator app offers, by the names parse-server's `algorithm` option takes.
    static let algorithms = ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"]

    let secret: [UInt8]
    let digits: Int
    let period: Int
    let algorithm: String

    /// The code for the period holding `seconds` (since 1970).
    func code(at seconds: Int64) -> String {
        code(counter: UInt64(max(0, seconds) / Int64(period)))
    }

    func code(counter: UInt64) -> String {
        var message = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { message[index] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * index)) }
        var mac = [UInt8](repeating: 0, count: 64)
        var written = 0
        let done = secret.withUnsafeBytes { key in
            EVP_Q_mac(nil, "HMAC", nil, algorithm, nil, key.baseAddress, key.count, message, message.count,
                      &mac, mac.count, &written)
        }
        precondition(done != nil && written >= 20, "HMAC-\(algorithm) failed")
        let offset = Int(mac[written - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt64 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(UInt64(binary) % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// Whether `token` is the code of the period holding `seconds` or of the one just before or after, as
    /// `otpauth`'s `validate` accepts by default (a clock a little off, a code typed as its period ends).
    func accepts(_ token: String, at seconds: Int64) -> Bool {
        let counter = max(0, seconds) / Int64(period)
        var matched = false
        for step in max(0, counter - 1)...(counter + 1) {
            // Every candidate compared in full: the time taken says nothing about which came close.
            matched = SessionTokenDigest.constantTimeEqual(Array(code(counter: UInt64(step)).utf8), Array(token.utf8)) || matched
        }
        return matched
    }
}

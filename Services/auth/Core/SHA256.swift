import CLibCrypto

/// SHA-256 from libcrypto. Session tokens are stored as their digest so that someone who reads the database
/// cannot use them.
enum SHA256 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        message.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                // One-shot: it cannot fail for an in-memory message.
                _ = CLibCrypto.SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }
}

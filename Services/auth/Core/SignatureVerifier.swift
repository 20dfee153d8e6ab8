import CLibCrypto

/// RS256 and ES256 signature checks with libcrypto (`EVP_DigestVerify` over SHA-256), keys given as DER
/// SubjectPublicKeyInfo.
enum SignatureVerifier {
    static func verify(publicKey der: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        guard !der.isEmpty, !signature.isEmpty else { return false }
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { ERR_clear_error(); return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { ERR_clear_error(); return false }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count)
            }
        }
        if result != 1 { ERR_clear_error() }
        return result == 1
    }
}

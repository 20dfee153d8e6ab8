import Runtime

/// New objectIds: 10 characters of `[A-Za-z0-9]`, as parse-server makes them.
public enum ObjectId {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// The bytes come from the kernel's cryptographic source (`RandomPool`, which reads it 4 KB at a time: drawn a
    /// byte at a time, each byte cost a system call), so ids cannot be guessed from earlier ones. Rejection
    /// sampling keeps every character equally likely.
    public static func make(length: Int = 10) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        while bytes.count < length {
            // A few more than needed: about one byte in thirty is rejected.
            for byte in RandomPool.bytes(length - bytes.count + 2) where bytes.count < length {
                // 248 = 4 * 62: values at or above it would favour the first characters.
                if byte < 248 { bytes.append(alphabet[Int(byte) % alphabet.count]) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a client may name an object so (`allowCustomObjectId`, or an import): parse-server takes any
    /// string; here 1 to 120 printable ASCII characters without `/`, so the id still fits one path segment.
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 120
            && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "/") }
    }
}

/// Lowercase hexadecimal text of bytes, and random hex from the system's cryptographic source (`getrandom(2)`
/// behind `SystemRandomNumberGenerator` on Linux), for identifiers that can be neither guessed nor predicted.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `byteCount` random bytes as `2 * byteCount` hex digits.
    public static func random(byteCount: Int) -> String {
        encode(randomBytes(byteCount))
    }

    /// Eight bytes per draw: each draw is one `getrandom` system call, and drawing byte by byte made 16 bytes cost
    /// 16 of them. Ids drawn on every request take theirs from `RandomPool` instead.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}

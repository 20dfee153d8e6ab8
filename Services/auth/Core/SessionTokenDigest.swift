import Contracts
/// How a session token is kept: only its SHA-256 digest is stored, so a database dump holds no usable token.
/// A token has 128 random bits, so an unsalted fast digest is enough (there is nothing to brute-force).
enum SessionTokenDigest {
    static func digest(of token: String) -> [UInt8] {
        SHA256.hash(Array(token.utf8))
    }

    /// Compares in time that depends only on the length, not on where the bytes first differ.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

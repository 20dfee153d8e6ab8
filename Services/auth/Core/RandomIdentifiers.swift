import Contracts
/// Identifiers and secrets drawn from the system's cryptographic random source (`getrandom(2)` behind
/// `SystemRandomNumberGenerator` on Linux), so they can be neither guessed nor predicted from earlier ones.
enum RandomIdentifiers {
    private static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A Parse objectId: 10 alphanumeric characters, as parse-server's default `objectIdSize`.
    static func objectId(length: Int = 10) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphanumerics[Int.random(in: 0..<alphanumerics.count, using: &generator)] })
    }

    /// A revocable session token as parse-server writes it: `r:` and 32 lowercase hex digits (128 random bits).
    static func sessionToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "r:" + Hex.encode(bytes)
    }
}

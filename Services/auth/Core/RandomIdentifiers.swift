import Runtime

/// Identifiers and secrets drawn from the system's cryptographic random source (`getrandom(2)` behind
/// `SystemRandomNumberGenerator` on Linux), so they can be neither guessed nor predicted from earlier ones.
enum RandomIdentifiers {
    /// A revocable session token as parse-server writes it: `r:` and 32 lowercase hex digits (128 random bits).
    static func sessionToken() -> String {
        "r:" + Hex.random(byteCount: 16)
    }
}

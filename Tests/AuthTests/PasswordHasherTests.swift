@testable import AuthCore
import Testing

struct PasswordHasherTests {
    static let password = "correct horse battery staple"

    /// Made by another bcrypt implementation (Python's `bcrypt` 5.0.0); the `$2y$` one is the `$2a$` form
    /// relabelled as PHP writes it, which is the same hash for ASCII passwords.
    static let foreignHashes = [
        "$2a$10$i.KhL6KMFZwL2SXyV6vXA.aZKxYsM0PmdcSTI3SlKv6SqEqGkE/Ae",
        "$2y$10$VrT9wR4WQtqEDcWA/n3oIeiFS1.XF6tMYdVovjpCDbZPzpKfQ0Da6",
        "$2b$10$JNUaa0mk9piqim6pEHigHedbI1egkSTLEA1HpPc4g9R7w/EmgPdy6",
    ]

    @Test(arguments: foreignHashes) func verifiesHashesFromAnotherImplementation(_ hash: String) {
        #expect(PasswordHasher.verifyNow(Self.password, against: hash))
        #expect(!PasswordHasher.verifyNow(Self.password + "!", against: hash))
    }

    @Test func knownVectorFromTheOpenwallSuite() {
        #expect(PasswordHasher.verifyNow("U*U", against: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
    }

    @Test func newHashesAreBcrypt2bAtCost10AndSalted() throws {
        let first = try PasswordHasher.hashNow("s3cret")
        let second = try PasswordHasher.hashNow("s3cret")
        #expect(first.hasPrefix("$2b$10$"))
        #expect(first.count == 60)
        #expect(first != second)
        #expect(PasswordHasher.verifyNow("s3cret", against: first))
        #expect(!PasswordHasher.verifyNow("s3creT", against: first))
    }

    @Test func refusesWhatIsNotABcryptHash() {
        #expect(!PasswordHasher.verifyNow("x", against: ""))
        #expect(!PasswordHasher.verifyNow("x", against: "x"))
        #expect(!PasswordHasher.verifyNow("x", against: "$1$abc$def"))
    }
}

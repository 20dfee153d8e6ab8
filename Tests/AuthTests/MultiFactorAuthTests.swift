@testable import AuthCore
import Foundation
import ParseWire
import Runtime
import Testing

/// TOTP against RFC 6238's own test vectors (Appendix B), base32 against RFC 4648's (section 10), and the `mfa`
/// adapter's steps as parse-server's `spec/AuthenticationAdapters.spec.js` takes them.
struct MultiFactorAuthTests {
    static let seeds = [
        "SHA1": Array("12345678901234567890".utf8),
        "SHA256": Array("12345678901234567890123456789012".utf8),
        "SHA512": Array("1234567890123456789012345678901234567890123456789012345678901234".utf8),
    ]

    @Test(arguments: [
        (Int64(59), "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ])
    func rfc6238Vectors(_ vector: (Int64, String, String, String)) {
        let (time, sha1, sha256, sha512) = vector
        for (algorithm, expected) in [("SHA1", sha1), ("SHA256", sha256), ("SHA512", sha512)] {
            let totp = TOTP(secret: Self.seeds[algorithm]!, digits: 8, period: 30, algorithm: algorithm)
            #expect(totp.code(at: time) == expected, "\(algorithm) at \(time)")
        }
    }

    @Test func acceptsTheNeighbouringPeriodsOnly() {
        let totp = TOTP(secret: Self.seeds["SHA1"]!, digits: 8, period: 30, algorithm: "SHA1")
        #expect(totp.accepts("07081804", at: 1_111_111_109))
        #expect(totp.accepts("07081804", at: 1_111_111_109 + 30))
        #expect(totp.accepts("07081804", at: 1_111_111_109 - 30))
        #expect(!totp.accepts("07081804", at: 1_111_111_109 + 60))
        #expect(!totp.accepts("7081804", at: 1_111_111_109))
    }

    @Test func base32ByRFC4648() {
        let vectors = ["": "", "f": "MY", "fo": "MZXQ", "foo": "MZXW6", "foob": "MZXW6YQ", "fooba": "MZXW6YTB",
                       "foobar": "MZXW6YTBOI"]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
    }

    static let options: [String: JSONValue] = ["options": .array([.string("TOTP")]), "digits": .number(6),
                                               "period": .number(30), "algorithm": .string("SHA1")]
    static let secret = Base32.encode(Array("a secret of twenty bytes".utf8))

    @Test func optionsAreCheckedAsParseServerChecksThem() throws {
        #expect(try MultiFactorAuth(options: Self.options) == MultiFactorAuth())
        let refused: [[String: JSONValue]] = [
            [:], ["options": .array([])], ["options": .array([.string("SMS")])],
            ["options": .array([.string("TOTP")]), "digits": .number(3)],
            ["options": .array([.string("TOTP")]), "digits": .string("6")],
            ["options": .array([.string("TOTP")]), "period": .number(5)],
            ["options": .array([.string("TOTP")]), "algorithm": .string("MD5")],
        ]
        for options in refused {
            #expect(throws: ConfigurationError.self) { try MultiFactorAuth(options: options) }
        }
    }

    private func code(at date: Date) -> String {
        TOTP(secret: Base32.decode(Self.secret)!, digits: 6, period: 30, algorithm: "SHA1")
            .code(at: Int64(date.timeIntervalSince1970))
    }

    @Test func setUpStoresTheSecretAndTwoRecoveryCodes() throws {
        let mfa = MultiFactorAuth()
        let now = Date()
        let step = try mfa.setUp(.object(["secret": .string(Self.secret), "token": .string(code(at: now))]), now: now)
        #expect(step.save["secret"]?.stringValue == Self.secret)
        let recovery = step.save["recovery"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        #expect(recovery.count == 2 && recovery.allSatisfy { $0.count == 30 } && recovery[0] != recovery[1])
        #expect(step.response == .object(["recovery": .string(recovery.joined(separator: ", "))]))
        #expect(MultiFactorAuth.clientView(step.save) == .object(["status": .string("enabled")]))
        #expect(throws: MultiFactorAuth.invalidToken) {
            try mfa.setUp(.object(["secret": .string(Self.secret), "token": .string("000000")]), now: Date(timeIntervalSince1970: 0))
        }
        #expect(throws: MultiFactorAuth.invalidData) {
            try mfa.setUp(.object(["secret": .string("SHORT"), "token": .string(code(at: now))]), now: now)
        }
    }

    @Test func loginTakesTheCodeOrARecoveryCode() throws {
        let mfa = MultiFactorAuth()
        let now = Date()
        let stored: JSONValue = .object(["secret": .string(Self.secret), "recovery": .array([.string("first"), .string("second")])])
        try mfa.checkLogin(.string(code(at: now)), stored: stored, now: now)
        try mfa.checkLogin(.string("second"), stored: stored, now: now)
        #expect(throws: MultiFactorAuth.invalidToken) { try mfa.checkLogin(.string("abcd"), stored: stored, now: now) }
        #expect(throws: MultiFactorAuth.invalidToken) { try mfa.checkLogin(nil, stored: stored, now: now) }
    }

    @Test func anUpdateNeedsTheOldCodeUnlessMaster() throws {
        let mfa = MultiFactorAuth()
        let now = Date()
        let stored: JSONValue = .object(["secret": .string(Self.secret), "recovery": .array([.string("r1"), .string("r2")])])
        let newSecret = Base32.encode(Array("another secret, twenty+".utf8))
        let newCode = TOTP(secret: Base32.decode(newSecret)!, digits: 6, period: 30, algorithm: "SHA1")
            .code(at: Int64(now.timeIntervalSince1970))
        let change: JSONValue = .object(["secret": .string(newSecret), "token": .string(newCode), "old": .string(code(at: now))])
        #expect(try mfa.update(change, stored: stored, isMaster: false, now: now).save["secret"]?.stringValue == newSecret)
        var wrongOld = change
        wrongOld = .object((change.objectValue ?? [:]).merging(["old": .string("123")]) { $1 })
        #expect(throws: MultiFactorAuth.invalidToken) { try mfa.update(wrongOld, stored: stored, isMaster: false, now: now) }
        #expect(try mfa.update(wrongOld, stored: stored, isMaster: true, now: now).save == wrongOld)
    }

    @Test func aUserWithMFAMustSendItsTokenAtLogin() throws {
        var providers = AuthProviders()
        providers.multiFactor = MultiFactorAuth()
        let stored: [String: JSONValue] = ["mfa": .object(["secret": .string(Self.secret), "recovery": .array([])])]
        #expect(throws: MultiFactorAuth.missing) { try providers.loginFactor(nil, stored: stored) }
        let sent = AuthData(entries: ["mfa": .object(["token": .string(code(at: Date()))])])
        #expect(try providers.loginFactor(sent, stored: stored) == nil)
        #expect(try providers.loginFactor(nil, stored: [:]) == nil)
        #expect(throws: AuthProviders.unsupported) { try AuthProviders().loginFactor(sent, stored: [:]) }
    }
}

import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's `mfa` adapter with TOTP, as its `spec/AuthenticationAdapters.spec.js` ("OTP TOTP auth
    /// adapter") takes it; the test stack configures it as that spec does. Codes are made by Python's `hmac`, apart
    /// from the server's own implementation.
    @Suite struct AuthMultiFactor {
        /// A random base32 secret of 32 characters (20 bytes), as `new OTPAuth.Secret()` makes.
        static func newSecret() -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
            return String((0..<32).map { _ in alphabet[Int.random(in: 0..<32)] })
        }

        static let script = """
            import base64, hashlib, hmac, struct, sys, time
            key = base64.b32decode(sys.argv[1])
            mac = hmac.new(key, struct.pack('>Q', int(time.time()) // 30), hashlib.sha1).digest()
            offset = mac[-1] & 15
            open(sys.argv[2], 'w').write('%06d' % ((struct.unpack('>I', mac[offset:offset + 4])[0] & 0x7fffffff) % 1000000))
            """

        /// The secret's current six-digit code (through a file: `Spawned`, not Foundation's `Process`, as
        /// `TestStack.control` says why).
        static func code(_ secret: String) throws -> String {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("totp-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try Spawned.run(["/usr/bin/python3", "-c", script, secret, file.path]) == 0)
            return try String(contentsOf: file, encoding: .utf8)
        }

        /// A user who enrolled with `secret`; the recovery codes the enrolment answered.
        static func enrolled(_ secret: String) async throws -> (AuthAPI.User, [String]) {
            let user = try await AuthAPI.signUp("mfa")
            let reply = try await AuthAPI.send("PUT", "/users/\(user.id)",
                                               ["authData": ["mfa": ["secret": secret, "token": try code(secret)]]],
                                               token: user.token)
            #expect(reply.status == 200, "\(reply.text)")
            let response = try #require((reply.json?["authDataResponse"] as? [String: Any])?["mfa"] as? [String: Any])
            let recovery = try #require(response["recovery"] as? String).components(separatedBy: ", ")
            return (user, recovery)
        }

        static func logIn(_ user: AuthAPI.User, mfa: [String: Any]?) async throws -> Reply {
            var body: [String: Any] = ["username": user.username, "password": user.password]
            if let mfa { body["authData"] = ["mfa": mfa] }
            return try await AuthAPI.send("POST", "/login", body)
        }

        @Test func canEnroll() async throws {
            let secret = Self.newSecret()
            let (user, recovery) = try await Self.enrolled(secret)
            #expect(recovery.count == 2 && recovery.allSatisfy { $0.count == 30 })
            let me = try await AuthAPI.send("GET", "/users/me", token: user.token)
            #expect((me.json?["authData"] as? [String: Any])?["mfa"] as? [String: String] == ["status": "enabled"])
            let master = try await AuthAPI.send("GET", "/users/\(user.id)", master: true)
            #expect(((master.json?["authData"] as? [String: Any])?["mfa"] as? [String: Any])?["secret"] as? String == secret)
        }

        /// Enrolment at signup, as parse-server's `validateSetUp` runs there too.
        @Test func canEnrollAtSignup() async throws {
            let secret = Self.newSecret()
            let username = AuthAPI.uniqueName("mfasignup")
            let password = "pw-\(UUID().uuidString)"
            let reply = try await AuthAPI.send("POST", "/users", [
                "username": username, "password": password,
                "authData": ["mfa": ["secret": secret, "token": try Self.code(secret)]],
            ])
            #expect(reply.status == 201, "\(reply.text)")
            let response = (reply.json?["authDataResponse"] as? [String: Any])?["mfa"] as? [String: Any]
            #expect((response?["recovery"] as? String)?.components(separatedBy: ", ").count == 2, "\(reply.text)")
            let bare = try await AuthAPI.send("POST", "/login", ["username": username, "password": password])
            #expect(AuthAPI.error(bare) == (-1, "Missing additional authData mfa"))
            let withCode = try await AuthAPI.send("POST", "/login", ["username": username, "password": password,
                                                                     "authData": ["mfa": ["token": try Self.code(secret)]]])
            #expect(withCode.status == 200, "\(withCode.text)")
            let wrong = try await AuthAPI.send("POST", "/users", [
                "username": AuthAPI.uniqueName("mfasignup"), "password": password,
                "authData": ["mfa": ["secret": Self.newSecret(), "token": "000000"]],
            ])
            #expect(wrong.status == 400, "\(wrong.text)")
        }

        @Test func futureLoginsRequireTheToken() async throws {
            let secret = Self.newSecret()
            let (user, recovery) = try await Self.enrolled(secret)
            let bare = try await Self.logIn(user, mfa: nil)
            #expect(bare.status == 400)
            #expect(AuthAPI.error(bare) == (-1, "Missing additional authData mfa"))
            #expect(AuthAPI.error(try await Self.logIn(user, mfa: ["token": "abcd"])) == (141, "Invalid MFA token"))

            let reply = try await Self.logIn(user, mfa: ["token": try Self.code(secret)])
            #expect(reply.status == 200, "\(reply.text)")
            let body = try #require(reply.json)
            #expect(body["objectId"] as? String == user.id)
            #expect(body["sessionToken"] is String)
            #expect((body["authData"] as? [String: Any])?["mfa"] as? [String: String] == ["status": "enabled"])
            #expect(Set(body.keys) == ["objectId", "username", "createdAt", "updatedAt", "authData", "ACL", "sessionToken",
                                       "authDataResponse"])
            // A recovery code stands for the code.
            #expect(try await Self.logIn(user, mfa: ["token": recovery[1]]).status == 200)
        }

        /// Beyond parse-server: a wrong code counts as a failed login, so the account lockout bounds guessing.
        @Test func wrongCodesCountTowardTheLockout() async throws {
            let secret = Self.newSecret()
            let (user, _) = try await Self.enrolled(secret)
            for _ in 0..<5 {
                #expect(AuthAPI.error(try await Self.logIn(user, mfa: ["token": "abcdef"])) == (141, "Invalid MFA token"))
            }
            let locked = try await Self.logIn(user, mfa: ["token": try Self.code(secret)])
            #expect(AuthAPI.error(locked).0 == 101, "\(locked.text)")
            #expect(AuthAPI.error(locked).1?.hasPrefix("Your account is locked") == true)
        }

        @Test func changingTheSecretNeedsTheOldCode() async throws {
            let secret = Self.newSecret()
            let (user, _) = try await Self.enrolled(secret)
            let newSecret = Self.newSecret()
            let refused = try await AuthAPI.send("PUT", "/users/\(user.id)", ["authData": ["mfa": [
                "secret": newSecret, "token": try Self.code(newSecret), "old": "123"]]], token: user.token)
            #expect(AuthAPI.error(refused) == (141, "Invalid MFA token"))
            let unchanged = try await AuthAPI.send("GET", "/users/\(user.id)", master: true)
            #expect(((unchanged.json?["authData"] as? [String: Any])?["mfa"] as? [String: Any])?["secret"] as? String == secret)

            let changed = try await AuthAPI.send("PUT", "/users/\(user.id)", ["authData": ["mfa": [
                "secret": newSecret, "token": try Self.code(newSecret), "old": try Self.code(secret)]]], token: user.token)
            #expect(changed.status == 200, "\(changed.text)")
            let stored = try await AuthAPI.send("GET", "/users/\(user.id)", master: true)
            #expect(((stored.json?["authData"] as? [String: Any])?["mfa"] as? [String: Any])?["secret"] as? String == newSecret)
            #expect(try await Self.logIn(user, mfa: ["token": try Self.code(newSecret)]).status == 200)
        }

        @Test func aWrongCodeOrAShortSecretDoesNotEnroll() async throws {
            let user = try await AuthAPI.signUp("mfa")
            let secret = Self.newSecret()
            let wrong = try await AuthAPI.send("PUT", "/users/\(user.id)",
                                               ["authData": ["mfa": ["secret": secret, "token": "000000x"]]], token: user.token)
            #expect(AuthAPI.error(wrong) == (141, "Invalid MFA token"))
            let short = try await AuthAPI.send("PUT", "/users/\(user.id)",
                                               ["authData": ["mfa": ["secret": "ABCDEFGH", "token": "123456"]]], token: user.token)
            #expect(AuthAPI.error(short) == (141, "Invalid MFA data"))
            // Not enrolled: the password alone still logs in.
            #expect(try await Self.logIn(user, mfa: nil).status == 200)
        }

        /// `POST /challenge` checks and identifies as parse-server's `handleChallenge`; no provider here has a
        /// challenge, so an identified request gets an empty `challengeData`.
        @Test func challengeChecksItsRequest() async throws {
            let user = try await AuthAPI.signUp("challenge")
            let cases: [([String: Any], Int, String)] = [
                ([:], -1, "Nothing to challenge."),
                (["username": user.username], -1, "You provided username or email, you need to also provide password."),
                (["username": user.username, "password": "wrong", "challengeData": ["mfa": [:]]], 101, "Invalid username/password."),
                (["challengeData": "mfa"], -1, "challengeData should be an object."),
                (["challengeData": ["mfa": [:]], "authData": "x"], -1, "authData should be an object."),
                (["username": user.username, "password": user.password, "challengeData": ["mfa": [:]],
                  "authData": ["anonymous": ["id": "a"]]], -1,
                 "You cannot provide username/email and authData, only use one identification method."),
                (["challengeData": ["mfa": [:]], "authData": ["anonymous": ["id": "a"], "facebook": ["id": "b"]]], -1,
                 "You cannot provide more than one authData provider with an id."),
                (["challengeData": ["mfa": [:]], "authData": ["anonymous": ["id": "nobody-\(UUID().uuidString)"]]], 101,
                 "User not found."),
            ]
            for (body, code, message) in cases {
                let reply = try await AuthAPI.send("POST", "/challenge", body)
                #expect(AuthAPI.error(reply) == (code, message), "\(body): \(reply.text)")
            }
            let answered = try await AuthAPI.send("POST", "/challenge", ["username": user.username, "password": user.password,
                                                                         "challengeData": ["mfa": ["x": 1]]])
            #expect(answered.status == 200 && answered.text == #"{"challengeData":{}}"#, "\(answered.text)")
            // A provider's data identifies the user as well.
            let anonymousId = "anon-\(UUID().uuidString)"
            let anonymous = try await AuthAPI.send("POST", "/users", ["authData": ["anonymous": ["id": anonymousId]]])
            #expect(anonymous.status == 201, "\(anonymous.text)")
            let byAuthData = try await AuthAPI.send("POST", "/challenge", ["challengeData": ["mfa": [:]],
                                                                           "authData": ["anonymous": ["id": anonymousId]]])
            #expect(byAuthData.status == 200 && byAuthData.text == #"{"challengeData":{}}"#, "\(byAuthData.text)")
        }
    }
}

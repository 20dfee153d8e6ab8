import Foundation
import Testing

extension IntegrationSuite {
    /// `/settings`: the settings that change while the stack runs, each applied by the next request after the
    /// answer, through whichever service owns it, and back to the start-up value with `null`.
    @Suite struct RuntimeSettings {
        static func put(_ changes: [String: Any], master: Bool = true, headers: [String: String] = [:]) async throws -> Reply {
            try await PostsHTTP.send("PUT", "/settings", changes, master: master, headers: headers)
        }

        static func current() async throws -> (settings: [String: Any], changed: [String]) {
            let reply = try await PostsHTTP.send("GET", "/settings", master: true)
            let settings = try #require(reply.json?["settings"] as? [String: Any], "\(reply.status) \(reply.text)")
            return (settings, reply.json?["changed"] as? [String] ?? [])
        }

        /// Runs `body`, then returns every setting to its start-up value, even when `body` failed.
        static func changing(_ body: () async throws -> Void) async throws {
            try await TestStack.run(body, thenAlways: {
                let names = ["allowClientClassCreation", "sessionLength", "passwordPolicy", "verifyUserEmails",
                             "preventLoginWithUnverifiedEmail", "emailVerifyTokenValidityDuration", "fileUpload"]
                let reset = try await put(Dictionary(uniqueKeysWithValues: names.map { ($0, NSNull() as Any) }))
                #expect(reset.status == 200, "\(reset.text)")
            })
        }

        @Test func everySettingIsListedWithTheMasterKeyOnly() async throws {
            let (settings, changed) = try await Self.current()
            #expect(Set(settings.keys) == ["allowClientClassCreation", "sessionLength", "passwordPolicy", "verifyUserEmails",
                                           "preventLoginWithUnverifiedEmail", "emailVerifyTokenValidityDuration", "fileUpload"])
            #expect(settings["allowClientClassCreation"] as? Bool == true)
            #expect(settings["sessionLength"] as? Int == 31_536_000)
            #expect((settings["fileUpload"] as? [String: Any])?["enableForAuthenticatedUser"] as? Bool == true)
            #expect(changed.isEmpty)
            let anonymous = try await PostsHTTP.send("GET", "/settings")
            #expect(anonymous.status == 403)
            let readOnly = try await Self.put(["sessionLength": 60], master: false,
                                              headers: ["X-Parse-Master-Key": TestStack.readOnlyMasterKey])
            #expect(readOnly.code == 119, "\(readOnly.text)")
            #expect(try await Self.current().changed.isEmpty)
        }

        @Test func aChangeWithOneBadValueChangesNothing() async throws {
            try await Self.changing {
                let unknown = try await Self.put(["sessionLength": 60, "colour": "blue"])
                #expect(unknown.status == 400 && unknown.code == 107)
                #expect(unknown.error == "colour is not a setting that can change at run time.")
                // auth would take its part; posts refuses its own, and neither is stored.
                let bad = try await Self.put(["sessionLength": 60, "allowClientClassCreation": "yes"])
                #expect(bad.status == 400 && bad.error == "allowClientClassCreation must be a boolean.", "\(bad.text)")
                for value in [["sessionLength": 0], ["sessionLength": 1.5], ["passwordPolicy": ["maxPasswordHistory": 99]],
                              ["fileUpload": ["fileExtensions": ["("]]], ["fileUpload": ["enableForRobots": true]],
                              ["emailVerifyTokenValidityDuration": -1]] as [[String: Any]] {
                    let refused = try await Self.put(value)
                    #expect(refused.status == 400 && refused.code == 107, "\(value): \(refused.text)")
                }
                // Verification mails need an adapter, which this stack does not start with.
                let mails = try await Self.put(["verifyUserEmails": true])
                #expect(mails.status == 400 && mails.error?.hasPrefix("verifyUserEmails needs") == true, "\(mails.text)")
                #expect(try await Self.current().changed.isEmpty)
            }
        }

        @Test func clientClassCreationIsRefusedFromTheNextRequestAndAllowedAgainAfterAReset() async throws {
            try await Self.changing {
                let changed = try await Self.put(["allowClientClassCreation": false])
                #expect(changed.status == 200)
                #expect((changed.json?["settings"] as? [String: Any])?["allowClientClassCreation"] as? Bool == false)
                #expect(changed.json?["changed"] as? [String] == ["allowClientClassCreation"])
                let className = PostsHTTP.uniqueClass("Closed")
                let refused = try await PostsHTTP.send("POST", "/classes/\(className)", ["name": "x"])
                #expect(refused.code == 119, "\(refused.text)")
                let master = try await PostsHTTP.send("POST", "/classes/\(PostsHTTP.uniqueClass("Closed"))", ["name": "x"], master: true)
                #expect(master.status == 201)
                _ = try await Self.put(["allowClientClassCreation": NSNull()])
                let allowed = try await PostsHTTP.send("POST", "/classes/\(className)", ["name": "x"])
                #expect(allowed.status == 201, "\(allowed.text)")
            }
        }

        @Test func aShorterSessionLengthAppliesToTheNextSignUp() async throws {
            try await Self.changing {
                _ = try await Self.put(["sessionLength": 3600])
                let user = try await AuthAPI.signUp("short")
                let session = try await AuthAPI.send("GET", "/sessions/me", token: user.token)
                let expires = try #require((session.json?["expiresAt"] as? [String: Any])?["iso"] as? String)
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                let at = try #require(formatter.date(from: expires))
                #expect(abs(at.timeIntervalSinceNow - 3600) < 120, "expires at \(expires)")
            }
        }

        @Test func aPasswordPolicyAppliesToTheNextSignUpAndAnEmptyOneRemovesIt() async throws {
            try await Self.changing {
                let policy = try await Self.put(["passwordPolicy": ["validatorPattern": "^.{20,}$", "validationError": "20 characters at least"]])
                #expect(policy.status == 200, "\(policy.text)")
                #expect(((policy.json?["settings"] as? [String: Any])?["passwordPolicy"] as? [String: Any])?["validatorPattern"] as? String == "^.{20,}$")
                let short = try await AuthAPI.send("POST", "/users", ["username": AuthAPI.uniqueName("pp"), "password": "short"])
                #expect(short.status == 400 && AuthAPI.error(short) == (142, "20 characters at least"), "\(short.text)")
                _ = try await Self.put(["passwordPolicy": [String: Any]()])
                let allowed = try await AuthAPI.send("POST", "/users", ["username": AuthAPI.uniqueName("pp"), "password": "short"])
                #expect(allowed.status == 201, "\(allowed.text)")
            }
        }

        @Test func fileUploadsFollowTheChangedRules() async throws {
            try await Self.changing {
                let user = try await AuthAPI.signUp("uploader")
                _ = try await Self.put(["fileUpload": ["enableForAuthenticatedUser": false]])
                let refused = try await FilesAPI.upload("a.txt", Data("hello".utf8), contentType: "text/plain", token: user.token)
                #expect(refused.status == 400 && refused.code == 130, "\(refused.text)")
                #expect(refused.error == "File upload by authenticated user is disabled.")
                _ = try await Self.put(["fileUpload": ["enableForAuthenticatedUser": true, "fileExtensions": ["^txt$"]]])
                let text = try await FilesAPI.upload("b.txt", Data("hello".utf8), contentType: "text/plain", token: user.token)
                #expect(text.status == 201, "\(text.text)")
                let png = try await FilesAPI.upload("c.png", Data("hello".utf8), contentType: "image/png", token: user.token)
                #expect(png.code == 130 && png.error == "File upload of extension png is disabled.", "\(png.text)")
            }
        }
    }
}

import Foundation
import Testing

extension IntegrationSuite {
    /// E-mail verification and password reset: real mails over SMTP to a server the test starts, whose links are
    /// followed as a browser follows them.
    @Suite struct AuthEmail {
        static let appName = "Cats & Co"

        /// Restarts auth with an SMTP adapter pointing at `mail`, runs `body`, then restarts auth as it was.
        static func withMail(_ extra: [String: String] = [:], _ body: (TestMailServer) async throws -> Void) async throws {
            let mail = try TestMailServer.start()
            let settings = [
                "PARSE_SERVER_APP_NAME": Self.appName,
                "PARSE_PUBLIC_SERVER_URL": TestStack.serverURL,
                "PARSE_SERVER_EMAIL_ADAPTER": #"{"module":"smtp","options":{"host":"127.0.0.1","port":\#(mail.port),"fromAddress":"noreply@example.com"}}"#,
                "PARSE_SERVER_VERIFY_USER_EMAILS": "true",
                "PARSE_SERVER_PREVENT_LOGIN_WITH_UNVERIFIED_EMAIL": "true",
                "PARSE_SERVER_EMAIL_VERIFY_TOKEN_VALIDITY_DURATION": "3600",
                "PARSE_SERVER_PASSWORD_POLICY": #"{"resetTokenValidityDuration":3600,"validatorPattern":"[0-9]"}"#,
            ].merging(extra) { $1 }
            try TestStack.control(["stop-service", "auth"])
            try TestStack.control(["start-service", "auth"], settings: settings)
            try await TestStack.run({ try await body(mail) }, thenAlways: {
                mail.stop()
                try TestStack.control(["stop-service", "auth"])
                try TestStack.control(["start-service", "auth"])
            })
        }

        private func signUp(_ prefix: String) async throws -> (id: String, username: String, email: String, password: String) {
            let username = AuthAPI.uniqueName(prefix)
            let email = "\(username)@example.com"
            let password = "pw-\(UUID().uuidString)-1"
            let reply = try await AuthAPI.send("POST", "/users", ["username": username, "password": password, "email": email])
            #expect(reply.status == 201, "\(reply.text)")
            // preventLoginWithUnverifiedEmail: no session until the address is verified.
            #expect(reply.json?["sessionToken"] == nil)
            return (try #require(reply.json?["objectId"] as? String), username, email, password)
        }

        @Test func verificationMailLinkVerifiesTheAddress() async throws {
            try await Self.withMail { mail in
                let user = try await signUp("verify")
                #expect(AuthAPI.error(try await AuthAPI.login(user.username, user.password)) == (205, "User email is not verified."))
                let message = try await mail.waitForMessage(to: user.email, containing: "Please verify your e-mail for")
                #expect(message.contains("Subject: Please verify your e-mail for \(Self.appName)"))
                #expect(message.contains("You are being asked to confirm the e-mail address \(user.email) with \(Self.appName)"))
                let link = try #require(TestMailServer.link(in: message))
                #expect(link.hasPrefix("\(TestStack.serverURL)/apps/\(TestStack.applicationId)/verify_email?token="))

                let verified = try Browser.get(link)
                #expect(verified.status == 302)
                #expect(verified.location == "\(TestStack.serverURL)/apps/verify_email_success.html?username=\(user.username)")
                let page = try Browser.get(try #require(verified.location))
                #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)
                #expect(page.body.contains("Successfully verified your email!"))

                let login = try await AuthAPI.login(user.username, user.password)
                #expect(login.status == 200)
                #expect(login.json?["emailVerified"] as? Bool == true)
                let again = try await AuthAPI.send("POST", "/verificationEmailRequest", ["email": user.email])
                #expect(AuthAPI.error(again) == (-1, "Email \(user.email) is already verified."))
            }
        }

        /// parse-server's `customPages`: the redirects lead to the app's own pages, with their query; the pages
        /// not named stay the built-in ones.
        @Test func customPagesTakeTheRedirects() async throws {
            let pages = #"{"verifyEmailSuccess":"https://example.com/verified","invalidLink":"https://example.com/oops?from=parse"}"#
            try await Self.withMail(["PARSE_SERVER_CUSTOM_PAGES": pages]) { mail in
                let user = try await signUp("custompage")
                let message = try await mail.waitForMessage(to: user.email, containing: "Please verify your e-mail for")
                let link = try #require(TestMailServer.link(in: message))
                #expect(try Browser.get(link).location == "https://example.com/verified?username=\(user.username)")
                let bad = "\(TestStack.serverURL)/apps/\(TestStack.applicationId)/request_password_reset?username=x&token=y"
                #expect(try Browser.get(bad).location == "https://example.com/oops?from=parse")
                let unverified = try await signUp("custompage")
                let resend = "\(TestStack.serverURL)/apps/\(TestStack.applicationId)/verify_email?username=\(unverified.username)&token=nope"
                #expect(try Browser.get(resend).location?.hasPrefix("\(TestStack.serverURL)/apps/invalid_verification_link.html?") == true)
            }
        }

        @Test func resentVerificationReplacesTheOldLinkAndExpiredLinksFail() async throws {
            try await Self.withMail { mail in
                let user = try await signUp("resend")
                let first = try await mail.waitForMessage(to: user.email, containing: "verify_email")
                let unknown = try await AuthAPI.send("POST", "/verificationEmailRequest", ["email": "nobody-\(UUID())@example.com"])
                #expect(AuthAPI.error(unknown).0 == 205)
                #expect(AuthAPI.error(try await AuthAPI.send("POST", "/verificationEmailRequest", [:])) == (204, "you must provide an email"))
                let resend = try await AuthAPI.send("POST", "/verificationEmailRequest", ["email": user.email])
                #expect(resend.status == 200 && resend.text == "{}")
                let second = try await mail.waitForMessage(to: user.email, containing: "verify_email", excluding: [first])

                let stale = try Browser.get(try #require(TestMailServer.link(in: first)))
                #expect(stale.location == "\(TestStack.serverURL)/apps/invalid_verification_link.html?username=\(user.username)&appId=\(TestStack.applicationId)")
                let invalidPage = try Browser.get(try #require(stale.location))
                #expect(invalidPage.body.contains("resend_verification_email"))

                try AuthAPI.authDatabase("UPDATE users SET email_verify_token_expires_at = now() - interval '1 minute' WHERE id = '\(user.id)'")
                let expired = try Browser.get(try #require(TestMailServer.link(in: second)))
                #expect(expired.location?.contains("invalid_verification_link.html") == true)
                #expect(AuthAPI.error(try await AuthAPI.login(user.username, user.password)).0 == 205)
                // Wrong application id in the link: parse-server's 403.
                let otherApp = try Browser.get("\(TestStack.serverURL)/apps/otherApp/verify_email?token=x&username=\(user.username)")
                #expect(otherApp.status == 403)
            }
        }

        /// parse-server 8's beforePasswordResetRequest: sees the user and may refuse to send the mail.
        @Test func beforePasswordResetRequestMayRefuse() async throws {
            let receiver = try TriggerWebhookReceiver()
            try await Self.withMail { mail in
                let refused = try await signUp("noreset")
                let allowed = try await signUp("reset")
                receiver.handle("/reset") { body in
                    body["object"]?["email"] == .string(refused.email)
                        ? TriggerHooks.refusal(141, "No reset for you.") : TriggerHooks.success(.object([:]))
                }
                try await TriggerHooks.register("_User", "beforePasswordResetRequest", url: receiver.url("/reset"))
                let refusal = try await TriggerHooks.retry({
                    try await AuthAPI.send("POST", "/requestPasswordReset", ["email": refused.email])
                }, until: { $0.status != 200 })
                #expect(AuthAPI.error(refusal) == (141, "No reset for you."))
                let request = try await AuthAPI.send("POST", "/requestPasswordReset", ["email": allowed.email])
                #expect(request.status == 200, "\(request.text)")
                _ = try await mail.waitForMessage(to: allowed.email, containing: "Password Reset for")
                let seen = try #require(receiver.calls("/reset").last?.body)
                #expect(seen["object"]?["username"] == .string(allowed.username) && seen["object"]?["password"] == nil)
                #expect(seen["triggerName"] == .string("beforePasswordResetRequest"))
                try await TriggerHooks.remove("_User", "beforePasswordResetRequest")
            }
            await receiver.stop()
        }

        @Test func passwordResetMailSetsANewPasswordOnce() async throws {
            try await Self.withMail { mail in
                let user = try await signUp("reset")
                let verify = try await mail.waitForMessage(to: user.email, containing: "verify_email")
                _ = try Browser.get(try #require(TestMailServer.link(in: verify)))
                let login = try await AuthAPI.login(user.username, user.password)
                let oldToken = try #require(login.json?["sessionToken"] as? String)

                // The same answer whether or not the address exists.
                let nobody = try await AuthAPI.send("POST", "/requestPasswordReset", ["email": "nobody-\(UUID())@example.com"])
                #expect(nobody.status == 200 && nobody.text == "{}")
                let request = try await AuthAPI.send("POST", "/requestPasswordReset", ["email": user.email])
                #expect(request.status == 200 && request.text == "{}")
                let message = try await mail.waitForMessage(to: user.email, containing: "Password Reset for")
                #expect(message.contains("You requested to reset your password for \(Self.appName) (your username is '\(user.username)')."))
                let link = try #require(TestMailServer.link(in: message))

                let opened = try Browser.get(link)
                #expect(opened.status == 302)
                let chooser = try #require(opened.location)
                #expect(chooser.hasPrefix("\(TestStack.serverURL)/apps/choose_password?token="))
                let form = try Browser.get(chooser)
                #expect(form.status == 200)
                #expect(form.body.contains("<form method=\"POST\" action=\"\(TestStack.serverURL)/apps/\(TestStack.applicationId)/request_password_reset\">"))
                #expect(form.body.contains("Cats &amp; Co"))
                let token = try #require(URLComponents(string: chooser)?.queryItems?.first { $0.name == "token" }?.value)
                let action = "\(TestStack.serverURL)/apps/\(TestStack.applicationId)/request_password_reset"

                // The password policy applies; the token stays usable after a refused password.
                let weak = try Browser.postForm(action, [("username", user.username), ("token", token), ("new_password", "no-digits")])
                #expect(weak.status == 302)
                #expect(weak.location?.contains("error=Password%20does%20not%20meet%20the%20Password%20Policy%20requirements.") == true)

                let newPassword = "new-pass-\(UUID().uuidString.prefix(6))-7"
                let done = try Browser.postForm(action, [("username", user.username), ("token", token), ("new_password", newPassword)])
                #expect(done.status == 302)
                #expect(done.location == "\(TestStack.serverURL)/apps/password_reset_success.html?username=\(user.username)")
                #expect(try Browser.get(try #require(done.location)).body.contains("Successfully updated your password!"))

                #expect(AuthAPI.error(try await AuthAPI.login(user.username, user.password)) == (101, "Invalid username/password."))
                #expect(try await AuthAPI.login(user.username, newPassword).status == 200)
                // A reset ends every session the user had.
                #expect(AuthAPI.error(try await AuthAPI.send("GET", "/users/me", token: oldToken)).0 == 209)

                // Used once, the link is dead.
                let reused = try Browser.postForm(action, [("username", user.username), ("token", token), ("new_password", "again-9")])
                #expect(reused.location?.contains("choose_password") == true)
                #expect(reused.location?.contains("token%20is%20invalid") == true)
                #expect(try Browser.get(link).location == "\(TestStack.serverURL)/apps/invalid_link.html")
                #expect(try await AuthAPI.login(user.username, newPassword).status == 200)

                // An expired link is refused too.
                _ = try await AuthAPI.send("POST", "/requestPasswordReset", ["email": user.email])
                let later = try await mail.waitForMessage(to: user.email, containing: "Password Reset for", excluding: [message])
                try AuthAPI.authDatabase("UPDATE users SET reset_token_expires_at = now() - interval '1 minute' WHERE id = '\(user.id)'")
                let expiredLink = try #require(TestMailServer.link(in: later))
                #expect(try Browser.get(expiredLink).location == "\(TestStack.serverURL)/apps/invalid_link.html")
                let expiredToken = try #require(URLComponents(string: expiredLink)?.queryItems?.first { $0.name == "token" }?.value)
                let lateTry = try Browser.postForm(action, [("username", user.username), ("token", expiredToken), ("new_password", "late-1")])
                #expect(lateTry.location?.contains("The%20password%20reset%20link%20has%20expired") == true)

                // Neither the tokens nor the new password reach the logs.
                let logs = try authLog()
                for secret in [token, expiredToken, newPassword] { #expect(!logs.contains(secret)) }
                #expect(logs.contains("mail sent"))
            }
        }

        /// parse-server's `pages` router: the app's templates from `pagesPath`, localized by `locale` from its
        /// subfolders and the translations file, pages answered to a GET and redirected to after a POST, and the
        /// page parameters in `x-parse-page-param-*` headers.
        @Test func thePagesRouterServesTheAppsLocalizedTemplates() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID())")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("de"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let files = [
                "email_verification_success.html": "<p>{{greeting}} {{username}}, {{brand}} knows you.</p>",
                "password_reset.html": "<form data-token=\"{{token}}\">{{error}}</form>",
                "de/password_reset.html": "<form lang=\"{{locale}}\" data-token=\"{{token}}\">Neues Passwort {{error}}</form>",
                "password_reset_success.html": "<p>{{appName}}: done for {{username}}</p>",
                "password_reset_link_invalid.html": "<p>bad link</p>",
            ]
            for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
            let translations = folder.appendingPathComponent("translations.json")
            try Data(#"{"en":{"translation":{"greeting":"Hello"}},"de":{"translation":{"greeting":"Hallo"}}}"#.utf8).write(to: translations)
            let pages = #"{"enableRouter":true,"enableLocalization":true,"pagesPath":"\#(folder.path)","#
                + #""localizationJsonPath":"\#(translations.path)","placeholders":{"brand":"Paws"}}"#
            try await Self.withMail(["PARSE_SERVER_PAGES": pages]) { mail in
                let user = try await signUp("pages")
                let verify = try await mail.waitForMessage(to: user.email, containing: "verify_email")
                let link = try #require(TestMailServer.link(in: verify))
                let verified = try Browser.get(link + "&locale=de-AT")
                #expect(verified.status == 200, "\(verified.body)")
                #expect(verified.body == "<p>Hallo \(user.username), Paws knows you.</p>")
                #expect(verified.headers["x-parse-page-param-username"] == user.username)
                #expect(verified.headers["x-parse-page-param-locale"] == "de-AT")

                _ = try await AuthAPI.send("POST", "/requestPasswordReset", ["email": user.email])
                let message = try await mail.waitForMessage(to: user.email, containing: "Password Reset for")
                let resetLink = try #require(TestMailServer.link(in: message))
                let token = try #require(URLComponents(string: resetLink)?.queryItems?.first { $0.name == "token" }?.value)
                let form = try Browser.get(resetLink, headers: ["X-Parse-Page-Param-Locale": "de-CH"])
                #expect(form.status == 200 && form.body == #"<form lang="de-CH" data-token="\#(token)">Neues Passwort </form>"#,
                        "\(form.body)")
                #expect(try Browser.get(resetLink.replacingOccurrences(of: "token=", with: "token=x")).body == "<p>bad link</p>")

                let action = "\(TestStack.serverURL)/apps/\(TestStack.applicationId)/request_password_reset"
                let weak = try Browser.postForm(action, [("username", user.username), ("token", token), ("new_password", "no-digits")])
                #expect(weak.status == 200 && weak.body.contains("Password does not meet the Password Policy requirements."),
                        "\(weak.body)")
                let script = try Browser.postForm(action, [("username", user.username), ("token", "wrong"), ("new_password", "a-1")],
                                                  headers: ["X-Requested-With": "XMLHttpRequest"])
                #expect(script.status == 400 && script.body.contains(#""code":-1"#), "\(script.body)")
                let done = try Browser.postForm(action, [("username", user.username), ("token", token), ("new_password", "new-pass-42")])
                #expect(done.status == 200 && done.body == "<p>Cats &amp; Co: done for \(user.username)</p>", "\(done.body)")
                #expect(try await AuthAPI.login(user.username, "new-pass-42").status == 200)

                // A POST without its fields is redirected (303) to the invalid link page; the folder is served as it is.
                let empty = try Browser.postForm(action, [])
                #expect(empty.status == 303)
                #expect(empty.location?.hasPrefix("\(TestStack.serverURL)/apps/password_reset_link_invalid.html?") == true)
                let served = try Browser.get("\(TestStack.serverURL)/apps/de/password_reset.html?locale=de")
                #expect(served.status == 200 && served.body.contains(#"lang="de""#))
                #expect(try Browser.get("\(TestStack.serverURL)/apps/translations.json").status == 200)
                #expect(try Browser.get("\(TestStack.serverURL)/apps/missing.html").status == 404)
            }
        }

        private func authLog() throws -> String {
            let dir = TestStack.environment["PARSE_STACK_DIR"] ?? FileManager.default.currentDirectoryPath + "/.stack/test"
            return try String(contentsOfFile: "\(dir)/logs/auth.log", encoding: .utf8)
        }
    }
}

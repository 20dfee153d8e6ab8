import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IntegrationSuite {
    /// The dashboard's login and what it refuses: no login, a wrong master key, requests from another origin,
    /// a forged or missing CSRF token; and the headers that keep its pages out of frames.
    @Suite struct DashboardSecurity {
        @Test func aPageWithoutALoginGetsNoSessionAndTheTokenHeaderAloneIsRefused() async throws {
            let session = try await DashboardHTTP.send("GET", "session")
            #expect(session.status == 401)
            #expect(session.json?["code"] as? Int == 209)
            #expect(session.json?["login"] as? String == "masterKey")
            let api = try await DashboardHTTP.api("GET", "/schemas", cookie: nil, token: "0123abcd")
            #expect(api.status == 403 && api.json?["code"] as? Int == 119, "\(api.text)")
        }

        @Test func aWrongMasterKeyLogsNobodyIn() async throws {
            let reply = try await DashboardHTTP.send("POST", "login", body: ["masterKey": "not-" + TestStack.masterKey],
                                                     origin: DashboardHTTP.origin)
            #expect(reply.status == 401)
            #expect(reply.json?["code"] as? Int == 101)
            #expect(reply.header("Set-Cookie") == nil)
            let missing = try await DashboardHTTP.send("POST", "login", body: [:], origin: DashboardHTTP.origin)
            #expect(missing.status == 401 && missing.header("Set-Cookie") == nil)
        }

        @Test func aLoginFromAnotherOriginOrWithoutOneIsRefused() async throws {
            for origin in ["http://evil.example", nil] {
                let reply = try await DashboardHTTP.send("POST", "login", body: ["masterKey": TestStack.masterKey], origin: origin)
                #expect(reply.status == 403, "origin \(origin ?? "none")")
                #expect(reply.header("Set-Cookie") == nil)
            }
        }

        @Test func theCookieIsHttpOnlyAndStrictAndTheAnswerHoldsNoKey() async throws {
            let reply = try await DashboardHTTP.send("POST", "login", body: ["masterKey": TestStack.masterKey],
                                                     origin: DashboardHTTP.origin)
            #expect(reply.status == 200)
            let cookie = try #require(reply.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            #expect(!reply.text.contains(TestStack.masterKey) && !cookie.contains(TestStack.masterKey))
            #expect(reply.json?["csrfToken"] as? String != nil)
        }

        @Test func aForgedRequestIsRefusedAndOnlyTheWholeLoginActsAsMaster() async throws {
            let login = try await DashboardHTTP.logIn()
            let allowed = try await DashboardHTTP.api("GET", "/schemas", cookie: login.cookie, token: login.token)
            #expect(allowed.status == 200, "\(allowed.text)")
            #expect(((allowed.json?["results"] as? [[String: Any]]) ?? []).contains { $0["className"] as? String == "_User" })

            let otherOrigin = try await DashboardHTTP.api("POST", "/schemas/ForgedByOrigin", body: ["className": "ForgedByOrigin"],
                                                          cookie: login.cookie, token: login.token, origin: "http://evil.example")
            #expect(otherOrigin.status == 403 && otherOrigin.json?["code"] as? Int == 119)
            let crossSite = try await DashboardHTTP.api("GET", "/schemas", cookie: login.cookie, token: login.token,
                                                        extra: ["Sec-Fetch-Site": "cross-site"])
            #expect(crossSite.status == 403)
            let wrongToken = try await DashboardHTTP.api("POST", "/schemas/ForgedByToken", body: ["className": "ForgedByToken"],
                                                         cookie: login.cookie, token: String(login.token.reversed()))
            #expect(wrongToken.status == 403 && wrongToken.json?["code"] as? Int == 119)
            // The cookie without the token is a plain client's request: no master key.
            let cookieOnly = try await DashboardHTTP.api("POST", "/schemas/ForgedByCookie", body: ["className": "ForgedByCookie"],
                                                         cookie: login.cookie, token: nil,
                                                         extra: ["X-Parse-Application-Id": TestStack.applicationId])
            #expect(cookieOnly.status == 403, "\(cookieOnly.text)")
            let forgedCookie = try await DashboardHTTP.api("GET", "/schemas", cookie: login.cookie.replacingOccurrences(of: ".w", with: ".r"),
                                                           token: login.token)
            #expect(forgedCookie.status == 403)
            for name in ["ForgedByOrigin", "ForgedByToken", "ForgedByCookie"] {
                let schema = try await HTTP.send("GET", "/schemas/" + name, headers: DashboardHTTP.masterHeaders)
                #expect(schema.json?["code"] as? Int == 103, "\(name) must not exist: \(schema.text)")
            }
        }

        /// Settings' keys: the whole login (cookie, CSRF token, own origin) or nothing; the master key only when asked.
        @Test func theKeysNeedTheWholeLoginAndTheMasterKeyIsShownOnlyWhenAsked() async throws {
            let login = try await DashboardHTTP.logIn()
            let keys = try await DashboardHTTP.send("GET", "keys", cookie: login.cookie, token: login.token)
            #expect(keys.status == 200)
            #expect(keys.json?["applicationId"] as? String == TestStack.applicationId)
            #expect(keys.json?["masterKey"] == nil && !keys.text.contains(TestStack.masterKey))
            #expect(keys.json?["canSeeMasterKey"] as? Bool == true)
            let master = try await DashboardHTTP.send("GET", "keys?masterKey=1", cookie: login.cookie, token: login.token)
            #expect(master.json?["masterKey"] as? String == TestStack.masterKey)
            let refusals = [
                try await DashboardHTTP.send("GET", "keys?masterKey=1", cookie: login.cookie),
                try await DashboardHTTP.send("GET", "keys?masterKey=1", token: login.token),
                try await DashboardHTTP.send("GET", "keys?masterKey=1", cookie: login.cookie, token: String(login.token.reversed())),
                try await DashboardHTTP.send("GET", "keys?masterKey=1", cookie: login.cookie, token: login.token,
                                             origin: "http://evil.example"),
            ]
            for refused in refusals {
                #expect(refused.status == 403 && !refused.text.contains(TestStack.masterKey), "\(refused.text)")
            }
        }

        @Test func aLogoutEndsTheLogin() async throws {
            let login = try await DashboardHTTP.logIn()
            let refused = try await DashboardHTTP.send("POST", "logout", cookie: login.cookie, origin: DashboardHTTP.origin)
            #expect(refused.status == 403, "a logout needs the CSRF token too")
            let out = try await DashboardHTTP.send("POST", "logout", cookie: login.cookie, token: login.token, origin: DashboardHTTP.origin)
            #expect(out.status == 200)
            #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
            let after = try await DashboardHTTP.api("GET", "/schemas", cookie: login.cookie, token: login.token)
            #expect(after.status == 403)
            let session = try await DashboardHTTP.send("GET", "session", cookie: login.cookie)
            #expect(session.status == 401)
        }

        /// parse-dashboard's `users` option: names and bcrypt passwords replace the master key at the login.
        @Test func aUserListReplacesTheMasterKeyLogin() async throws {
            // bcrypt of "paws-admin-1" (cost 4, so the test is quick).
            let users = #"[{"user":"ann","pass":"$2b$04$vkOjYIconCsjRFByxfMeV.Kd83J0MJkp3n2a7a7USzBF3TM9wvwwm"},"#
                + #"{"user":"rita","pass":"$2b$04$vkOjYIconCsjRFByxfMeV.Kd83J0MJkp3n2a7a7USzBF3TM9wvwwm","readOnly":true}]"#
            try TestStack.control(["stop-service", "gateway"])
            try TestStack.control(["start-service", "gateway"], settings: ["PARSE_DASHBOARD_USERS": users])
            try await TestStack.run({
                let mode = try await DashboardHTTP.send("GET", "session")
                #expect(mode.json?["login"] as? String == "users")
                let byKey = try await DashboardHTTP.send("POST", "login", body: ["masterKey": TestStack.masterKey],
                                                         origin: DashboardHTTP.origin)
                #expect(byKey.status == 401, "the master key is no login when users are configured")
                let wrong = try await DashboardHTTP.send("POST", "login", body: ["username": "ann", "password": "paws-admin-2"],
                                                         origin: DashboardHTTP.origin)
                #expect(wrong.status == 401 && wrong.header("Set-Cookie") == nil)
                let unknown = try await DashboardHTTP.send("POST", "login", body: ["username": "bob", "password": "paws-admin-1"],
                                                           origin: DashboardHTTP.origin)
                #expect(unknown.status == 401)
                let ann = try await DashboardHTTP.send("POST", "login", body: ["username": "ann", "password": "paws-admin-1"],
                                                       origin: DashboardHTTP.origin)
                #expect(ann.status == 200 && ann.json?["user"] as? String == "ann")
                let cookie = String(try #require(ann.header("Set-Cookie")).prefix { $0 != ";" })
                let token = try #require(ann.json?["csrfToken"] as? String)
                let schemas = try await DashboardHTTP.api("GET", "/schemas", cookie: cookie, token: token)
                #expect(schemas.status == 200)
                // A read-only user reads with the read-only master key and writes nothing.
                let rita = try await DashboardHTTP.send("POST", "login", body: ["username": "rita", "password": "paws-admin-1"],
                                                        origin: DashboardHTTP.origin)
                #expect(rita.json?["readOnly"] as? Bool == true)
                let ritaCookie = String(try #require(rita.header("Set-Cookie")).prefix { $0 != ";" })
                let ritaToken = try #require(rita.json?["csrfToken"] as? String)
                let read = try await DashboardHTTP.api("GET", "/schemas", cookie: ritaCookie, token: ritaToken)
                #expect(read.status == 200)
                let write = try await DashboardHTTP.api("POST", "/schemas/ReadOnlyDashboardClass", body: ["className": "ReadOnlyDashboardClass"],
                                                        cookie: ritaCookie, token: ritaToken)
                #expect(write.json?["code"] as? Int == 119, "\(write.text)")
                // Settings: the keys, but never the master key, to a read-only user; to a full user on request.
                let ritaKeys = try await DashboardHTTP.send("GET", "keys", cookie: ritaCookie, token: ritaToken)
                #expect(ritaKeys.status == 200 && ritaKeys.json?["canSeeMasterKey"] as? Bool == false)
                let ritaMaster = try await DashboardHTTP.send("GET", "keys?masterKey=1", cookie: ritaCookie, token: ritaToken)
                #expect(ritaMaster.status == 403 && !ritaMaster.text.contains(TestStack.masterKey))
                let annMaster = try await DashboardHTTP.send("GET", "keys?masterKey=1", cookie: cookie, token: token)
                #expect(annMaster.json?["masterKey"] as? String == TestStack.masterKey)
            }, thenAlways: {
                try TestStack.control(["stop-service", "gateway"])
                try TestStack.control(["start-service", "gateway"])
            })
        }

        @Test func pagesRefuseFramesAndForeignScripts() async throws {
            let page = try await DashboardHTTP.send("GET", "")
            #expect(page.status == 200)
            #expect(page.header("X-Frame-Options") == "DENY")
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'")
                    && policy.contains("default-src 'none'") && !policy.contains("unsafe-inline"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(!page.text.contains(TestStack.masterKey))
            let script = try await DashboardHTTP.send("GET", "app.js")
            #expect(script.status == 200 && script.header("Content-Type")?.hasPrefix("text/javascript") == true)
            for path in ["../Package.swift", "%2e%2e/Package.swift", "nothing.js"] {
                let reply = try await DashboardHTTP.send("GET", path)
                #expect(reply.status == 404 || reply.status == 400, "\(path): \(reply.status)")
                #expect(!reply.text.contains("swift-tools-version"))
            }
        }
    }
}

/// HTTP to the dashboard's own routes with cookies handled by hand (no cookie store), so each test says exactly
/// which login it presents.
enum DashboardHTTP {
    static let base = TestStack.environment["PARSE_TEST_DASHBOARD_URL"]
        ?? TestStack.serverURL.replacingOccurrences(of: "/parse", with: "/dashboard/")
    /// The dashboard's own origin, as a browser sends it on its page's requests.
    static var origin: String {
        let url = URL(string: base)!
        return "\(url.scheme!)://\(url.host!):\(url.port!)"
    }

    static var masterHeaders: [String: String] {
        ["X-Parse-Application-Id": TestStack.applicationId, "X-Parse-Master-Key": TestStack.masterKey]
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    static func send(_ method: String, _ path: String, body: [String: Any]? = nil, cookie: String? = nil,
                     token: String? = nil, origin: String? = nil) async throws -> Reply {
        try await request(method, base + path, body: body, headers: headers(cookie: cookie, token: token, origin: origin))
    }

    static func api(_ method: String, _ path: String, body: [String: Any]? = nil, cookie: String?, token: String?,
                    origin: String? = nil, extra: [String: String] = [:]) async throws -> Reply {
        try await request(method, TestStack.serverURL + path, body: body,
                          headers: headers(cookie: cookie, token: token, origin: origin).merging(extra) { $1 })
    }

    /// A login with the master key: the cookie's `name=value` and the CSRF token.
    static func logIn() async throws -> (cookie: String, token: String) {
        let reply = try await send("POST", "login", body: ["masterKey": TestStack.masterKey], origin: origin)
        let header = try #require(reply.header("Set-Cookie"))
        let cookie = String(header.prefix { $0 != ";" })
        return (cookie, try #require(reply.json?["csrfToken"] as? String))
    }

    private static func headers(cookie: String?, token: String?, origin: String?) -> [String: String] {
        var headers: [String: String] = [:]
        if let cookie { headers["Cookie"] = cookie }
        if let token { headers["X-Parse-Dashboard-Token"] = token }
        if let origin { headers["Origin"] = origin }
        return headers
    }

    private static func request(_ method: String, _ url: String, body: [String: Any]?, headers: [String: String]) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }
}

import Foundation
import Testing

extension IntegrationSuite {
    /// `protectedFields` in a class's permissions hide fields on get, find and include, by parse-server's rules.
    @Suite struct PostsProtectedFields {
        static func get(_ path: String, _ query: [String: String] = [:], token: String? = nil, master: Bool = false) async throws -> Reply {
            var headers = AuthAPI.headers(token: token, master: master)
            headers["Content-Type"] = nil
            var full = path
            if !query.isEmpty {
                var components = URLComponents()
                components.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) }
                full += "?" + (components.percentEncodedQuery ?? "")
            }
            return try await HTTP.send("GET", full, headers: headers)
        }

        @Test func fieldsAreHiddenByTierAndShownToTheUserAPointerNames() async throws {
            let owner = try await AuthAPI.signUp("owner")
            let other = try await AuthAPI.signUp("other")
            let cls = PostsHTTP.uniqueClass("Profile")
            let made = try await PostsHTTP.send("POST", "/schemas/\(cls)", [
                "fields": ["title": ["type": "String"], "secret": ["type": "String"], "phone": ["type": "String"],
                           "owner": ["type": "Pointer", "targetClass": "_User"]],
                "classLevelPermissions": ["protectedFields": ["*": ["secret", "phone"], "authenticated": ["secret"],
                                                              "userField:owner": []]],
            ], master: true)
            #expect(made.status == 200, "\(made.text)")
            let id = try await PostsHTTP.create(cls, ["title": "t", "secret": "s", "phone": "p",
                                                      "owner": PostsHTTP.pointer("_User", owner.id)])
            func fields(token: String? = nil, master: Bool = false) async throws -> (found: Set<String>, got: Set<String>) {
                let found = try await Self.get("/classes/\(cls)", token: token, master: master)
                let got = try await Self.get("/classes/\(cls)/\(id)", token: token, master: master)
                let first = PostsHTTP.results(found).first ?? [:]
                return (Set(first.keys), Set((got.json ?? [:]).keys))
            }
            let anonymous = try await fields()
            #expect(anonymous.found.isSuperset(of: ["title", "owner"]) && anonymous.found.isDisjoint(with: ["secret", "phone"]), "\(anonymous)")
            #expect(anonymous.got == anonymous.found)
            let signedIn = try await fields(token: other.token)
            #expect(signedIn.found.contains("phone") && !signedIn.found.contains("secret"), "\(signedIn)")
            #expect(signedIn.got == signedIn.found)
            let named = try await fields(token: owner.token)
            #expect(named.found.isSuperset(of: ["secret", "phone"]), "\(named)")
            #expect(named.got == named.found)
            let master = try await fields(master: true)
            #expect(master.found.isSuperset(of: ["secret", "phone"]), "\(master)")
            // Included objects follow their own class's rules.
            let ref = PostsHTTP.uniqueClass("Ref")
            _ = try await PostsHTTP.create(ref, ["profile": PostsHTTP.pointer(cls, id)])
            let included = try await Self.get("/classes/\(ref)", ["include": "profile"])
            let profile = PostsHTTP.results(included).first?["profile"] as? [String: Any]
            #expect(profile?["title"] as? String == "t" && profile?["secret"] == nil && profile?["phone"] == nil, "\(included.text)")
            // A query on a hidden field is refused, so it cannot probe the value.
            for token in [nil, other.token] {
                let probe = try await Self.get("/classes/\(cls)", ["where": #"{"secret":"s"}"#], token: token)
                #expect(probe.status == 400, "\(probe.text)")
                #expect(probe.code == 119 && probe.error == "This user is not allowed to query secret on class \(cls)", "\(probe.text)")
                let nested = try await Self.get("/classes/\(cls)", ["where": #"{"$or":[{"title":"t"},{"secret":"s"}]}"#], token: token)
                #expect(nested.code == 119, "\(nested.text)")
            }
            let allowed = try await Self.get("/classes/\(cls)", ["where": #"{"phone":"p"}"#], token: other.token)
            #expect(PostsHTTP.results(allowed).count == 1, "\(allowed.text)")
        }
    }
}

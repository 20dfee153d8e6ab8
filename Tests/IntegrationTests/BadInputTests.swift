import Foundation
import Testing

extension IntegrationSuite {
    /// Input that once reached PostgreSQL unchecked: each answer is a result or a clear Parse error, never a 500
    /// and never PostgreSQL's own words.
    @Suite struct BadInput {
        static let postgresPhrases = ["invalid input syntax", "value out of range", "a parameter contains a NUL",
                                      "date/time field", "could not determine", "bind message", "tables can have",
                                      "invalid regular expression:", "stack depth"]

        static func expectNoPostgreSQLText(_ reply: Reply, _ context: String = "") {
            for phrase in postgresPhrases {
                #expect(!reply.text.lowercased().contains(phrase.lowercased()), "\(context): \(reply.text)")
            }
        }

        @Test func emptyMembershipOnAPathAnswersResults() async throws {
            let className = PostsHTTP.uniqueClass("Dotted")
            let id = try await PostsHTTP.create(className, ["o": ["k": 1]])
            let none = try await PostsHTTP.find(className, ["where": ["o.k": ["$in": []]]])
            #expect(none.status == 200, "\(none.text)")
            #expect(PostsHTTP.results(none).isEmpty)
            let all = try await PostsHTTP.find(className, ["where": ["o.k": ["$nin": []]]])
            #expect(PostsHTTP.results(all).compactMap { $0["objectId"] as? String } == [id])
        }

        @Test func emptyMembershipAndCountedOrdersOnUsersAndRoles() async throws {
            let user = try await AuthAPI.signUp("member", extra: ["rank": 3])
            for route in ["users", "roles"] {
                let none = try await AuthQuery.find(route, ["rank": ["$in": []]], as: .master)
                #expect(none.status == 200, "\(route): \(none.text)")
                #expect(AuthQuery.results(none).isEmpty)
                let every = try await AuthQuery.find(route, ["rank": ["$nin": []]], ["count": 1, "limit": 0], as: .master)
                #expect(every.status == 200, "\(route): \(every.text)")
                #expect((every.json?["count"] as? Int ?? 0) >= (route == "users" ? 1 : 0))
                let ordered = try await AuthQuery.find(route, nil, ["order": "rank", "count": 1], as: .master)
                #expect(ordered.status == 200, "\(route): \(ordered.text)")
                #expect(ordered.json?["count"] as? Int != nil)
                let descending = try await AuthQuery.find(route, nil, ["order": "-rank,createdAt", "count": 1, "limit": 1], as: .master)
                #expect(descending.status == 200, "\(route): \(descending.text)")
            }
            let mine = try await AuthQuery.find("users", ["objectId": user.id, "rank": ["$nin": []]], ["order": "rank", "count": 1],
                                                as: .master)
            #expect(AuthQuery.ids(mine) == [user.id])
            #expect(mine.json?["count"] as? Int == 1)
        }

        /// More values than a statement takes parameters (65,535).
        @Test func membershipOfMoreValuesThanAStatementHasParameters() async throws {
            let className = PostsHTTP.uniqueClass("Many")
            let id = try await PostsHTTP.create(className, ["n": 65_999])
            _ = try await PostsHTTP.create(className, ["n": 66_001])
            let numbers = (0..<66_000).map { $0 }
            let byNumber = try await PostsHTTP.send("POST", "/classes/\(className)",
                                                    ["_method": "GET", "where": ["n": ["$in": numbers]]])
            #expect(byNumber.status == 200, "\(byNumber.text.prefix(200))")
            #expect(PostsHTTP.results(byNumber).compactMap { $0["objectId"] as? String } == [id])
        }

        @Test func tooManyNewFieldsAreRefusedBeforeAnyIsAdded() async throws {
            let className = PostsHTTP.uniqueClass("Wide")
            _ = try await PostsHTTP.create(className, ["first": 1])
            var fields: [String: Any] = [:]
            for index in 0..<2000 { fields["f\(index)"] = index }
            let reply = try await PostsHTTP.send("POST", "/classes/\(className)", fields)
            #expect(reply.status == 400)
            #expect(AuthAPI.error(reply).0 == 255, "\(reply.text)")
            Self.expectNoPostgreSQLText(reply)
            let schema = try await PostsHTTP.send("GET", "/schemas/\(className)", master: true)
            let known = (schema.json?["fields"] as? [String: Any])?.keys.sorted() ?? []
            #expect(known.contains("first") && !known.contains("f0"), "\(known)")
            let columns = try VotesAPI.sql("parse_posts", """
                SELECT count(*) FROM information_schema.columns WHERE table_schema = 'classes' AND table_name = '\(className)'
                """)
            #expect(columns == ["6"])
        }

        @Test func nestingUpTo508LevelsIsStoredDeeperIsRefused() async throws {
            let className = PostsHTTP.uniqueClass("Nested")
            func nested(_ levels: Int) -> String { "{\"a\":" + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}" }
            let stored = try await PostsHTTP.send("POST", "/classes/\(className)", nested(508))
            #expect(stored.status == 201, "\(stored.text)")
            let id = try #require(stored.json?["objectId"] as? String)
            let read = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)")
            #expect(read.status == 200)
            #expect(read.text.contains(String(repeating: "[", count: 508) + "]"))
            for levels in [509, 511, 10_000] {
                let reply = try await PostsHTTP.send("POST", "/classes/\(className)", nested(levels))
                #expect(reply.status == 400, "\(levels)")
                #expect(AuthAPI.error(reply).0 == 107, "\(levels): \(reply.text)")
            }
        }

        @Test func aNULInAUsernameOrAStringIsAParseError() async throws {
            let name = AuthAPI.uniqueName("nul")
            let signup = try await HTTP.send("POST", "/users", headers: AuthAPI.headers(),
                                             body: Data(#"{"username":"\#(name)\u0000x","password":"pw"}"#.utf8))
            #expect(signup.status == 400)
            #expect(AuthAPI.error(signup) == (107, #"Strings may not contain the NUL character (\u0000)."#))
            Self.expectNoPostgreSQLText(signup, "signup")
            let login = try await AuthAPI.login(name, "pw")
            #expect(login.status == 404)

            let className = PostsHTTP.uniqueClass("Nul")
            _ = try await PostsHTTP.create(className, ["s": "ab"])
            let created = try await PostsHTTP.send("POST", "/classes/\(className)", #"{"s":"a\u0000b"}"#)
            #expect(AuthAPI.error(created) == (107, #"Strings may not contain the NUL character (\u0000)."#))
            let queried = try await PostsHTTP.find(className, ["where": #"{"s":"a\u0000b"}"#])
            #expect(queried.status == 400)
            Self.expectNoPostgreSQLText(queried, "query")
        }

        @Test func postgreSQLsWordsStayInTheLogs() async throws {
            let className = PostsHTTP.uniqueClass("Worded")
            let id = try await PostsHTTP.create(className, ["n": 1.7e308, "when": DateRange.date("2000-01-01T00:00:00.000Z")])
            let overflow = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", ["n": ["__op": "Increment", "amount": 1.7e308]])
            #expect(overflow.status == 400, "\(overflow.text)")
            #expect(AuthAPI.error(overflow) == (111, "Number out of range."))
            Self.expectNoPostgreSQLText(overflow, "increment")
            let cases: [(String, [String: Any])] = [
                ("/classes/\(className)", ["when": ["$gt": DateRange.date("0000-01-01T00:00:00.000Z")]]),
                ("/classes/\(className)", ["createdAt": ["$gt": "garbage"]]),
                ("/classes/\(className)", ["when": ["$regex": "[z-a]"]]),
                ("/users", ["createdAt": ["$gt": DateRange.date("0000-01-01T00:00:00.000Z")]]),
                ("/users", ["nick": ["$regex": "(unclosed"]]),
            ]
            for (path, whereClause) in cases {
                let data = try JSONSerialization.data(withJSONObject: whereClause)
                let query = String(decoding: data, as: UTF8.self).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let reply = try await HTTP.send("GET", path + "?where=" + query, headers: AuthAPI.headers(master: true))
                #expect((400..<500).contains(reply.status), "\(path) \(whereClause): \(reply.text)")
                Self.expectNoPostgreSQLText(reply, "\(whereClause)")
            }
            let unchanged = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)")
            #expect(unchanged.json?["n"] as? Double == 1.7e308)
        }
    }
}

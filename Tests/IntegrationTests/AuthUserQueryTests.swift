import Foundation
import Testing

extension IntegrationSuite {
    /// `/users` queries with the operators of class queries, and auth's privacy rules kept.
    @Suite struct AuthUserQueries {
        struct Fixture {
            let batch: String
            let a: AuthAPI.User, b: AuthAPI.User, c: AuthAPI.User
        }

        /// Three users tagged with a batch of their own: a (20, red+blue, "Anna"), b (30, blue, "bob"), c (40, no tags).
        static func fixture() async throws -> Fixture {
            let batch = UUID().uuidString.prefix(8).lowercased()
            let a = try await AuthAPI.signUp("qa\(batch)", email: true,
                                             extra: ["batch": batch, "age": 20, "tags": ["red", "blue"], "nick": "Anna", "meta": ["size": 1]])
            let b = try await AuthAPI.signUp("qb\(batch)", email: true,
                                             extra: ["batch": batch, "age": 30, "tags": ["blue"], "nick": "bob", "meta": ["size": 2]])
            let c = try await AuthAPI.signUp("qc\(batch)", extra: ["batch": batch, "age": 40, "flag": true])
            return Fixture(batch: String(batch), a: a, b: b, c: c)
        }

        @Test func everyComparisonOperator() async throws {
            let f = try await Self.fixture()
            func ids(_ constraint: [String: Any], _ parameters: [String: Any] = ["order": "age"]) async throws -> [String] {
                var clause = constraint
                clause["batch"] = f.batch
                let reply = try await AuthQuery.find("users", clause, parameters, as: .master)
                #expect(reply.status == 200, "\(constraint): \(reply.text)")
                return AuthQuery.ids(reply)
            }
            let (a, b, c) = (f.a.id, f.b.id, f.c.id)
            #expect(try await ids([:]) == [a, b, c])
            #expect(try await ids(["age": 30]) == [b])
            #expect(try await ids(["age": ["$eq": 30]]) == [b])
            #expect(try await ids(["age": ["$ne": 30]]) == [a, c])
            #expect(try await ids(["age": ["$lt": 30]]) == [a])
            #expect(try await ids(["age": ["$lte": 30]]) == [a, b])
            #expect(try await ids(["age": ["$gt": 30]]) == [c])
            #expect(try await ids(["age": ["$gte": 30, "$lt": 40]]) == [b])
            #expect(try await ids(["age": ["$in": [20, 40]]]) == [a, c])
            #expect(try await ids(["age": ["$nin": [20]]]) == [b, c])
            #expect(try await ids(["tags": ["$exists": true]]) == [a, b])
            #expect(try await ids(["tags": ["$exists": false]]) == [c])
            #expect(try await ids(["tags": "blue"]) == [a, b])
            #expect(try await ids(["tags": ["$in": ["red", "green"]]]) == [a])
            #expect(try await ids(["tags": ["$all": ["red", "blue"]]]) == [a])
            #expect(try await ids(["tags": ["$containedBy": ["blue", "green"]]]) == [b])
            #expect(try await ids(["nick": ["$regex": "^an", "$options": "i"]]) == [a])
            #expect(try await ids(["nick": ["$regex": "^an"]]) == [])
            #expect(try await ids(["username": ["$regex": "^qb"]]) == [b])
            #expect(try await ids(["meta.size": ["$gte": 2]]) == [b])
            #expect(try await ids(["flag": true]) == [c])
            // Like with like: a string is neither below nor above a number.
            #expect(try await ids(["nick": ["$gt": 1]]) == [])
            #expect(try await ids(["$or": [["age": 20], ["age": 40]]]) == [a, c])
            #expect(try await ids(["$and": [["age": ["$gt": 10]], ["tags": "red"]]]) == [a])
            #expect(try await ids(["$nor": [["age": 20], ["flag": true]]]) == [b])
            #expect(try await ids(["objectId": ["$in": [a, c]]]) == [a, c])
            #expect(try await ids(["createdAt": ["$gte": AuthQuery.date(Date().addingTimeInterval(-600))]]) == [a, b, c])
            #expect(try await ids(["updatedAt": ["$lt": AuthQuery.date(Date().addingTimeInterval(-600))]]) == [])
            #expect(try await ids(["email": ["$regex": "^qa"]]) == [a])
            #expect(try await ids(["email": ["$exists": false]]) == [c])
            #expect(try await ids([:], ["order": "-age"]) == [c, b, a])
            #expect(try await ids([:], ["order": "nick,-createdAt"]) == [a, b, c])
            #expect(try await ids([:], ["order": "age", "skip": 1, "limit": 1]) == [b])
        }

        @Test func keysCountAndMethodGetBodies() async throws {
            let f = try await Self.fixture()
            let projected = try await AuthQuery.find("users", ["batch": f.batch], ["keys": "nick,meta.size", "order": "age"], as: .master)
            let first = try #require(AuthQuery.results(projected).first)
            #expect(Set(first.keys).subtracting(["ACL"]) == ["objectId", "createdAt", "updatedAt", "nick", "meta"])
            let excluded = try await AuthQuery.find("users", ["batch": f.batch], ["excludeKeys": "tags,age"], as: .master)
            #expect(AuthQuery.results(excluded).allSatisfy { $0["tags"] == nil && $0["age"] == nil && $0["username"] != nil })

            let counted = try await AuthQuery.find("users", ["batch": f.batch, "age": ["$gte": 30]], ["count": 1, "limit": 0], as: .master)
            #expect(counted.json?["count"] as? Int == 2)
            #expect(AuthQuery.results(counted).isEmpty)

            let posted = try await AuthQuery.post("users", ["where": ["batch": f.batch, "tags": "red"], "count": 1], as: .master)
            #expect(posted.status == 200)
            #expect(AuthQuery.ids(posted) == [f.a.id])
            #expect(posted.json?["count"] as? Int == 1)
        }

        @Test func privacyRulesHold() async throws {
            let f = try await Self.fixture()
            // b makes their row public; a and c stay private (the default).
            _ = try await AuthAPI.send("PUT", "/users/\(f.b.id)", ["ACL": ["*": ["read": true]]], token: f.b.token)
            let carol = try await AuthAPI.signUp("carol")
            let visible = try await AuthQuery.find("users", ["batch": f.batch], as: .user(carol.token))
            #expect(AuthQuery.ids(visible) == [f.b.id])
            let probe = try await AuthQuery.find("users", ["username": ["$regex": "^qa\(f.batch)"]], as: .user(carol.token))
            #expect(AuthQuery.ids(probe).isEmpty)
            let anonymous = try await AuthQuery.find("users", ["batch": f.batch, "age": ["$lte": 40]], ["count": 1], as: .anonymous)
            #expect(AuthQuery.ids(anonymous) == [f.b.id])
            #expect(anonymous.json?["count"] as? Int == 1)
            // Its owner sees their own private row.
            let own = try await AuthQuery.find("users", ["batch": f.batch, "age": ["$lt": 25]], as: .user(f.a.token))
            #expect(AuthQuery.ids(own) == [f.a.id])

            // Email is the master key's to query, even for one's own row; it is never shown to others.
            for clause: [String: Any] in [["email": "\(f.a.username)@example.com"], ["email": ["$exists": true]],
                                          ["$or": [["age": 1], ["email": ["$regex": "example"]]]]] {
                let reply = try await AuthQuery.find("users", clause, as: .user(f.a.token))
                #expect(reply.status == 400)
                #expect(AuthAPI.error(reply) == (119, "This user is not allowed to query email on class _User"))
            }
            let byEmailOrder = try await AuthQuery.find("users", ["batch": f.batch], ["order": "email"], as: .user(carol.token))
            #expect(AuthAPI.error(byEmailOrder).0 == 119)

            // Secrets are not fields one can query.
            for key in ["password", "sessionToken", "authData"] {
                let reply = try await AuthQuery.find("users", [key: ["$exists": true]], as: .master)
                #expect(AuthAPI.error(reply) == (105, "Invalid key name: \(key)"), "\(key)")
            }
            // A projection never brings out what the row hides: no password, no token, no email for others.
            let keys = "password,sessionToken,email,_hashed_password,authData,username"
            let projected = try await AuthQuery.find("users", ["batch": f.batch], ["keys": keys], as: .user(carol.token))
            let row = try #require(AuthQuery.results(projected).first)
            #expect(Set(row.keys).subtracting(["ACL"]) == ["objectId", "createdAt", "updatedAt", "username"])
            let ownProjection = try await AuthQuery.find("users", ["objectId": f.a.id], ["keys": keys], as: .user(f.a.token))
            let ownRow = try #require(AuthQuery.results(ownProjection).first)
            #expect(ownRow["sessionToken"] == nil && ownRow["password"] == nil)
            #expect(ownRow["email"] as? String == "\(f.a.username)@example.com")
        }

        @Test func badInputIsAClearParseError() async throws {
            let f = try await Self.fixture()
            let cases: [([String: Any], Int, String?)] = [
                (["age": ["$foo": 1]], 102, "Unsupported query operator: $foo"),
                (["$foo": [1]], 105, "Invalid key name: $foo"),
                (["age": ["$in": 20]], 107, "bad $in value"),
                (["$or": ["age": 1]], 102, "Bad $or format - use an array value."),
                (["ACL": ["*": ["read": true]]], 102, "Cannot query on ACL."),
                (["nick\"; DROP TABLE users; --": 1], 105, nil),
                (["a.b'); DELETE FROM users; --": 1], 105, nil),
                (["nick": ["$regex": "("]], 102, nil),
                (["age": ["$geoWithin": [:]]], 107, "bad $geoWithin value; should have $polygon or $centerSphere"),
                (["nick": ["$inQuery": ["where": [:]]]], 102, "improper usage of $inQuery"),
            ]
            for (clause, code, message) in cases {
                let reply = try await AuthQuery.find("users", clause, as: .master)
                #expect(reply.status == 400, "\(clause): \(reply.text)")
                #expect(AuthAPI.error(reply).0 == code, "\(clause): \(reply.text)")
                if let message { #expect(AuthAPI.error(reply).1 == message) }
                #expect(!reply.text.contains("SELECT") && !reply.text.contains("t0."), "\(reply.text)")
            }
            for (parameter, value, code) in [("where", "{not json", 102), ("where", "[1]", 102), ("order", "age;drop", 105),
                                             ("limit", "-1", 102), ("bogus", "1", 102)] {
                let reply = try await HTTP.send("GET", "/users?\(parameter)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                                                headers: AuthQuery.headers(.master))
                #expect(AuthAPI.error(reply).0 == code, "\(parameter)=\(value): \(reply.text)")
            }
            // A subquery on a field that holds no pointers matches nothing, as parse-server's `$in` of pointers does.
            let onText = try await AuthQuery.find("users", ["batch": f.batch, "nick": ["$inQuery": ["className": "_User", "where": [:]]]],
                                                  as: .master)
            #expect(onText.status == 200, "\(onText.text)")
            #expect(AuthQuery.ids(onText).isEmpty)
            // A value is only ever a value.
            let injected = try await AuthQuery.find("users", ["batch": f.batch, "nick": "x' OR '1'='1"], as: .master)
            #expect(injected.status == 200)
            #expect(AuthQuery.ids(injected).isEmpty)
            let still = try await AuthQuery.find("users", ["batch": f.batch], ["count": 1], as: .master)
            #expect(still.json?["count"] as? Int == 3)
        }

        @Test func meWithTheMasterKeyAnswersTheTokensUser() async throws {
            let alice = try await AuthAPI.signUp("me")
            for caller in [AuthQuery.Caller.master, .readOnlyMaster] {
                var headers = AuthQuery.headers(caller)
                headers["X-Parse-Session-Token"] = alice.token
                let me = try await HTTP.send("GET", "/users/me", headers: headers)
                #expect(me.status == 200, "\(me.text)")
                #expect(me.json?["objectId"] as? String == alice.id)
                #expect(me.json?["sessionToken"] as? String == alice.token)
                headers["X-Parse-Session-Token"] = "r:not-a-token"
                let bogus = try await HTTP.send("GET", "/users/me", headers: headers)
                #expect(AuthAPI.error(bogus) == (209, "Invalid session token"))
            }
            let masterAlone = try await HTTP.send("GET", "/users/me", headers: AuthQuery.headers(.master))
            #expect(AuthAPI.error(masterAlone).0 == 209)
        }
    }
}

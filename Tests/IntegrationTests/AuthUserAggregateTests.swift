import Foundation
import Testing

extension IntegrationSuite {
    /// `GET /aggregate/_User` and `distinct` on `_User` over HTTP: users live in auth, so the gateway routes these
    /// there. Every test selects its own users by a unique `team`, since other tests sign users up too.
    @Suite struct AuthUserAggregate {
        /// Three players of one team: scores 10, 10 and 20, tags, one with an email.
        static func team() async throws -> (team: String, users: [AuthAPI.User]) {
            let team = AuthAPI.uniqueName("team")
            var users: [AuthAPI.User] = []
            for (score, tags) in [(10.0, ["a", "b"]), (10.0, ["b"]), (20.0, ["c"])] {
                users.append(try await AuthAPI.signUp("agg", email: score == 20, extra: ["team": team, "score": score, "tags": tags]))
            }
            return (team, users)
        }

        static func aggregate(_ parameters: [String: Any], master: Bool = true) async throws -> Reply {
            var query: [String: String] = [:]
            for (key, value) in parameters {
                if let text = value as? String { query[key] = text; continue }
                let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
                query[key] = String(decoding: data, as: UTF8.self)
            }
            return try await PostsHTTP.send("GET", "/aggregate/_User", master: master, query: query)
        }

        static func results(_ pipeline: Any) async throws -> [[String: Any]] {
            let reply = try await aggregate(["pipeline": pipeline])
            #expect(reply.status == 200, "\(pipeline): \(reply.text)")
            return PostsHTTP.results(reply)
        }

        @Test func matchesOnACustomFieldAsTheSDKsSendIt() async throws {
            let (team, users) = try await Self.team()
            // The PHP SDK's form: one object of stages.
            let found = try await Self.results(["$match": ["team": team, "score": ["$gt": 15]]])
            #expect(found.count == 1)
            #expect(found.first?["score"] as? Double == 20)
            #expect(found.first?["username"] as? String == users[2].username)
            #expect(found.first?["email"] as? String == "\(users[2].username)@example.com")
            #expect(found.first?["tags"] as? [String] == ["c"])
            #expect((found.first?["createdAt"] as? String)?.hasSuffix("Z") == true)
            // `where` is a leading $match.
            let reply = try await Self.aggregate(["where": ["team": team, "username": users[0].username], "pipeline": [["$project": ["username": 1]]]])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(PostsHTTP.results(reply).map { $0["username"] as? String } == [users[0].username])
        }

        @Test func groupsSortsPagesCountsAndProjects() async throws {
            let (team, _) = try await Self.team()
            let match: [String: Any] = ["$match": ["team": team]]
            let groups = try await Self.results([match, ["$group": ["_id": "$score", "n": ["$sum": 1], "total": ["$sum": "$score"]]],
                                                 ["$sort": ["_id": -1]]])
            #expect(groups.map { $0["objectId"] as? Double } == [20, 10])
            #expect(groups.map { $0["n"] as? Double } == [1, 2])
            #expect(groups.map { $0["total"] as? Double } == [20, 20])
            let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
            let byYear = try await Self.results([match, ["$group": ["_id": ["$year": "$createdAt"], "n": ["$sum": 1]]]])
            #expect(byYear.first?["objectId"] as? Double == Double(year))
            #expect(byYear.first?["n"] as? Double == 3)
            let paged = try await Self.results([match, ["$sort": ["score": 1, "username": 1]], ["$skip": 1], ["$limit": 1],
                                                ["$project": ["score": 1]]])
            #expect(paged.count == 1)
            #expect(paged.first?["score"] as? Double == 10)
            #expect(paged.first.map { Set($0.keys) } == ["objectId", "score"])
            let counted = try await Self.results([match, ["$match": ["score": 10]], ["$count": "players"]])
            #expect(counted.first?["players"] as? Double == 2)
        }

        @Test func distinctValuesOfCustomAndFixedFields() async throws {
            let (team, users) = try await Self.team()
            let scores = try await Self.aggregate(["distinct": "score", "where": ["team": team]])
            #expect(scores.status == 200, "\(scores.text)")
            #expect(scores.json?["results"] as? [Double] == [10, 20])
            let tags = try await Self.aggregate(["distinct": "tags", "where": ["team": team]])
            #expect(tags.json?["results"] as? [String] == ["a", "b", "c"])
            let names = try await Self.aggregate(["distinct": "username", "where": ["team": team]])
            #expect(names.json?["results"] as? [String] == users.map(\.username).sorted())
            let missing = try await Self.aggregate(["distinct": "nothingHere", "where": ["team": team]])
            #expect(missing.status == 200)
            #expect((missing.json?["results"] as? [Any])?.isEmpty == true)
        }

        @Test func secretsAreNeverReachable() async throws {
            let (team, _) = try await Self.team()
            let all = try await Self.results([["$match": ["team": team]]])
            #expect(all.count == 3)
            for user in all {
                for secret in ["password", "_hashed_password", "sessionToken", "authData", "fields", "acl", "ACL"] {
                    #expect(user[secret] == nil, "\(secret) in \(user)")
                }
            }
            let grouped = try await Self.results([["$match": ["team": team]], ["$group": ["_id": "$password", "n": ["$sum": 1]]]])
            #expect(grouped.count == 1)
            #expect(grouped.first?["objectId"] is NSNull)
            let projected = try await Self.results([["$match": ["team": team]], ["$project": ["password": 1, "sessionToken": 1]]])
            #expect(projected.allSatisfy { Set($0.keys) == ["objectId"] })
            for field in ["password", "sessionToken", "authData"] {
                let distinct = try await Self.aggregate(["distinct": field])
                #expect(distinct.status == 400)
                #expect(AuthAPI.error(distinct) == (105, "Invalid key name: \(field)"))
                let matched = try await Self.aggregate(["pipeline": [["$match": [field: "x"]]]])
                #expect(AuthAPI.error(matched) == (105, "Invalid key name: \(field)"))
            }
        }

        @Test func badInputGetsParseErrors() async throws {
            let anonymous = try await Self.aggregate(["distinct": "score"], master: false)
            #expect(anonymous.status == 403)
            #expect(anonymous.json?["error"] as? String == "unauthorized: master key is required")
            let cases: [([String: Any], Int, String)] = [
                (["pipeline": [["$out": "x"]]], 102, "The aggregate stage $out is not supported by this server."),
                (["pipeline": [["$group": ["n": ["$sum": 1]]]]], 102, "Invalid parameter for query: group. Missing key _id"),
                (["pipeline": [["$match": [:], "$limit": 1]]], 102, "Pipeline stages should only have one key but found $limit, $match."),
                (["pipeline": [["$sort": ["score": 2]]]], 102, "$sort of score must be 1 or -1."),
                (["pipeline": [["$limit": "many"]]], 102, ""),
                (["pipeline": [["$match": ["score": ["$nope": 1]]]]], 102, ""),
                (["where": "[1]", "distinct": "score"], 102, "Improper encode of parameter where: it must be a JSON object."),
                (["distinct": "a..b"], 105, "Invalid key name: a..b"),
            ]
            for (parameters, code, message) in cases {
                let reply = try await Self.aggregate(parameters)
                #expect(reply.status == 400, "\(parameters): \(reply.text)")
                let (got, text) = AuthAPI.error(reply)
                #expect(got == code, "\(parameters): \(reply.text)")
                if !message.isEmpty { #expect(text == message, "\(parameters)") }
            }
            // Still served after all of it.
            #expect(try await Self.aggregate(["pipeline": [["$limit": 1]]]).status == 200)
        }
    }
}

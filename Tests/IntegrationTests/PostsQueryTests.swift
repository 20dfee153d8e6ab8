import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct PostsQueries {
        /// Six players, a team class they point at, and a tag list each.
        struct Fixture {
            let players: String
            let teams: String
            let ids: [String: String]
            let redTeam: String
            let blueTeam: String
        }

        static func fixture() async throws -> Fixture {
            let players = PostsHTTP.uniqueClass("Player")
            let teams = PostsHTTP.uniqueClass("Team")
            let red = try await PostsHTTP.create(teams, ["name": "red", "city": "Oslo"])
            let blue = try await PostsHTTP.create(teams, ["name": "blue", "city": "Rome"])
            let rows: [(String, Double, [String], String?, Bool)] = [
                ("Ann", 10, ["a", "b"], red, true), ("Bob", 20, ["b"], red, false), ("Cid", 30, ["c"], blue, true),
                ("Dan", 40, [], blue, false), ("Eve", 50, ["a", "b", "c"], nil, true), ("fay", 60, ["a"], red, false),
            ]
            var ids: [String: String] = [:]
            for (name, score, tags, team, active) in rows {
                var fields: [String: Any] = ["name": name, "score": score, "tags": tags, "active": active,
                                             "born": ["__type": "Date", "iso": "2000-01-0\(Int(score) / 10)T00:00:00.000Z"],
                                             "info": ["level": Int(score) / 10],
                                             "geo": ["__type": "GeoPoint", "latitude": score / 2, "longitude": score]]
                if let team { fields["team"] = PostsHTTP.pointer(teams, team) }
                ids[name] = try await PostsHTTP.create(players, fields)
            }
            return Fixture(players: players, teams: teams, ids: ids, redTeam: red, blueTeam: blue)
        }

        func names(_ fixture: Fixture, _ parameters: [String: Any]) async throws -> [String] {
            var parameters = parameters
            if parameters["order"] == nil { parameters["order"] = ["name"] }
            let reply = try await PostsHTTP.find(fixture.players, parameters)
            #expect(reply.status == 200, "\(parameters): \(reply.text)")
            return PostsHTTP.results(reply).compactMap { $0["name"] as? String }
        }

        /// A path into the objects of an Array field matches when one element does, and a negative operator when
        /// none does, as MongoDB answers it (the PHP SDK's `testEqualToWithSameKeyDoesNotOverrideOtherConditions`).
        @Test func pathsIntoArraysOfObjectsMatchAnyElement() async throws {
            let cls = PostsHTTP.uniqueClass("Stack")
            let rows: [(String, [[String: Any]])] = [
                ("baz", [["status": "baz"], ["status": "bar"]]), ("bar", [["status": "bar"]]),
                ("qux", [["status": "bar", "n": 2], ["status": "qux", "n": 5]]), ("none", []),
            ]
            for (name, stack) in rows { _ = try await PostsHTTP.create(cls, ["name": name, "fooStack": stack]) }
            func names(_ clause: [String: Any]) async throws -> [String] {
                let reply = try await PostsHTTP.find(cls, ["where": clause, "order": "name"])
                #expect(reply.status == 200, "\(clause): \(reply.text)")
                return PostsHTTP.results(reply).compactMap { $0["name"] as? String }
            }
            #expect(try await names(["fooStack.status": ["$ne": "baz", "$eq": "bar"]]) == ["bar", "qux"])
            #expect(try await names(["fooStack.status": "qux"]) == ["qux"])
            #expect(try await names(["fooStack.status": ["$nin": ["bar"]]]) == ["none"])
            #expect(try await names(["fooStack.status": ["$in": ["baz", "qux"]]]) == ["baz", "qux"])
            #expect(try await names(["fooStack.n": ["$gt": 4]]) == ["qux"])
            #expect(try await names(["fooStack.n": ["$exists": false]]) == ["bar", "baz", "none"])
            #expect(try await names(["fooStack.status": ["$regex": "^Q", "$options": "i"]]) == ["qux"])
            let count = try await PostsHTTP.find(cls, ["where": ["fooStack.status": ["$ne": "baz", "$eq": "bar"]],
                                                       "count": 1, "limit": 0])
            #expect(count.json?["count"] as? Int == 2, "\(count.text)")
        }

        @Test func everyWhereOperator() async throws {
            let f = try await Self.fixture()
            let cases: [([String: Any], [String])] = [
                (["name": "Bob"], ["Bob"]),
                (["name": ["$eq": "Bob"]], ["Bob"]),
                (["name": ["$ne": "Bob"]], ["Ann", "Cid", "Dan", "Eve", "fay"]),
                (["score": ["$lt": 30]], ["Ann", "Bob"]),
                (["score": ["$lte": 30]], ["Ann", "Bob", "Cid"]),
                (["score": ["$gt": 40]], ["Eve", "fay"]),
                (["score": ["$gte": 40, "$lt": 60]], ["Dan", "Eve"]),
                (["born": ["$gt": ["__type": "Date", "iso": "2000-01-04T00:00:00.000Z"]]], ["Eve", "fay"]),
                (["createdAt": ["$gt": ["__type": "Date", "iso": "2000-01-01T00:00:00.000Z"]]], ["Ann", "Bob", "Cid", "Dan", "Eve", "fay"]),
                (["name": ["$in": ["Ann", "Eve", "Zed"]]], ["Ann", "Eve"]),
                (["name": ["$nin": ["Ann", "Eve"]]], ["Bob", "Cid", "Dan", "fay"]),
                (["team": ["$exists": false]], ["Eve"]),
                (["team": ["$exists": true]], ["Ann", "Bob", "Cid", "Dan", "fay"]),
                (["active": true], ["Ann", "Cid", "Eve"]),
                (["tags": "b"], ["Ann", "Bob", "Eve"]),
                (["tags": ["$all": ["a", "b"]]], ["Ann", "Eve"]),
                (["tags": ["$in": ["c"]]], ["Cid", "Eve"]),
                (["tags": ["$nin": ["a", "b"]]], ["Cid", "Dan"]),
                (["tags": ["$containedBy": ["a", "b"]]], ["Ann", "Bob", "Dan", "fay"]),
                (["name": ["$regex": "^[A-C]"]], ["Ann", "Bob", "Cid"]),
                (["name": ["$regex": "^[a-c]"]], []),
                (["name": ["$regex": "^[a-c]", "$options": "i"]], ["Ann", "Bob", "Cid"]),
                (["name": ["$regex": "^f", "$options": "i"]], ["fay"]),
                (["info.level": 3], ["Cid"]),
                (["info.level": ["$gte": 5]], ["Eve", "fay"]),
                (["team": PostsHTTP.pointer(f.teams, f.blueTeam)], ["Cid", "Dan"]),
                (["team": ["$eq": PostsHTTP.pointer(f.teams, f.blueTeam)]], ["Cid", "Dan"]),
                (["team": ["$ne": PostsHTTP.pointer(f.teams, f.redTeam)]], ["Cid", "Dan", "Eve"]),
                (["team": ["$inQuery": ["className": f.teams, "where": ["city": "Oslo"]]]], ["Ann", "Bob", "fay"]),
                (["team": ["$notInQuery": ["className": f.teams, "where": ["city": "Oslo"]]]], ["Cid", "Dan", "Eve"]),
                (["name": ["$select": ["query": ["className": f.teams, "where": [:]], "key": "name"]]], []),
                (["$or": [["name": "Ann"], ["score": ["$gt": 55]]]], ["Ann", "fay"]),
                (["$and": [["score": ["$gt": 15]], ["score": ["$lt": 45]]]], ["Bob", "Cid", "Dan"]),
                (["$nor": [["name": "Ann"], ["score": ["$gt": 25]]]], ["Bob"]),
                (["missingField": ["$exists": false], "name": "Ann"], ["Ann"]),
                (["missingField": "x"], []),
                (["missingField": ["$ne": "x"], "name": "Bob"], ["Bob"]),
            ]
            for (clause, expected) in cases {
                let found = try await names(f, ["where": clause])
                #expect(found == expected, "\(clause)")
            }
        }

        @Test func selectAndDontSelectCompareWithAnotherClassesKey() async throws {
            let f = try await Self.fixture()
            let favourites = PostsHTTP.uniqueClass("Fav")
            _ = try await PostsHTTP.create(favourites, ["who": "Bob"])
            _ = try await PostsHTTP.create(favourites, ["who": "Eve"])
            let query: [String: Any] = ["query": ["className": favourites, "where": [:]], "key": "who"]
            #expect(try await names(f, ["where": ["name": ["$select": query]]]) == ["Bob", "Eve"])
            #expect(try await names(f, ["where": ["name": ["$dontSelect": query]]]) == ["Ann", "Cid", "Dan", "fay"])
        }

        @Test func orderLimitSkipKeysAndCount() async throws {
            let f = try await Self.fixture()
            #expect(try await names(f, ["order": ["-score"], "limit": 2]) == ["fay", "Eve"])
            #expect(try await names(f, ["order": "-active,score", "limit": 3]) == ["Ann", "Cid", "Eve"])
            #expect(try await names(f, ["order": ["score"], "skip": 4]) == ["Eve", "fay"])
            #expect(try await names(f, ["order": ["name"], "where": ["score": ["$gt": 0]], "limit": 1, "skip": 1]) == ["Bob"])

            let keys = PostsHTTP.results(try await PostsHTTP.find(f.players, ["keys": ["name"], "limit": 1]))
            #expect(Set(keys.first?.keys.map { $0 } ?? []) == ["objectId", "createdAt", "updatedAt", "name"])
            let excluded = PostsHTTP.results(try await PostsHTTP.find(f.players, ["excludeKeys": "tags,info", "limit": 1]))
            #expect(excluded.first?["tags"] == nil && excluded.first?["info"] == nil && excluded.first?["name"] != nil)

            for count in ["1", "true"] {
                let counted = try await PostsHTTP.send("GET", "/classes/\(f.players)",
                                                       query: ["count": count, "limit": "0", "where": #"{"score":{"$gte":30}}"#])
                #expect(counted.text == #"{"count":4,"results":[]}"#)
            }
            let withRows = try await PostsHTTP.find(f.players, ["count": true, "limit": 2, "order": "name"])
            #expect(withRows.json?["count"] as? Int == 6)
            #expect(PostsHTTP.results(withRows).count == 2)
        }

        @Test func postWithMethodGetIsAQuery() async throws {
            let f = try await Self.fixture()
            let reply = try await PostsHTTP.send("POST", "/classes/\(f.players)", [
                "_method": "GET", "where": ["score": ["$gt": 35]], "order": ["-score"], "limit": 2, "skip": 0, "count": true,
            ])
            #expect(reply.status == 200)
            #expect(PostsHTTP.results(reply).compactMap { $0["name"] as? String } == ["fay", "Eve"])
            #expect(reply.json?["count"] as? Int == 3)
        }

        @Test func includeExpandsPointersAlongDottedPaths() async throws {
            let f = try await Self.fixture()
            let games = PostsHTTP.uniqueClass("Game")
            _ = try await PostsHTTP.create(games, ["winner": PostsHTTP.pointer(f.players, f.ids["Ann"]!),
                                                  "owner": PostsHTTP.pointer("_User", "abcdefghij")])
            let reply = try await PostsHTTP.find(games, ["include": ["winner.team", "owner"]])
            let game = try #require(PostsHTTP.results(reply).first)
            let winner = try #require(game["winner"] as? [String: Any])
            #expect(winner["__type"] as? String == "Object")
            #expect(winner["className"] as? String == f.players)
            #expect(winner["name"] as? String == "Ann")
            let team = try #require(winner["team"] as? [String: Any])
            #expect(team["name"] as? String == "red")
            #expect(team["__type"] as? String == "Object")
            // `_User` pointers are resolved through the auth service; a user that does not exist disappears.
            #expect(game["owner"] == nil)

            let plain = PostsHTTP.results(try await PostsHTTP.find(games, [:])).first
            #expect((plain?["winner"] as? [String: Any])?["__type"] as? String == "Pointer")
        }

        @Test func includeDropsPointersTheCallerCannotRead() async throws {
            let secrets = PostsHTTP.uniqueClass("Secret")
            let holders = PostsHTTP.uniqueClass("Holder")
            let hidden = try await PostsHTTP.create(secrets, ["v": 1, "ACL": [:]], master: true)
            _ = try await PostsHTTP.create(holders, ["s": PostsHTTP.pointer(secrets, hidden)])
            let reply = try await PostsHTTP.find(holders, ["include": "s"])
            let holder = try #require(PostsHTTP.results(reply).first)
            #expect(holder["s"] == nil)
            let asMaster = PostsHTTP.results(try await PostsHTTP.find(holders, ["include": "s"], master: true)).first
            #expect((asMaster?["s"] as? [String: Any])?["v"] as? Int == 1)
        }

        @Test func badQueriesAreClearParseErrors() async throws {
            let f = try await Self.fixture()
            let cases: [([String: String], Int, String?)] = [
                (["where": "{not json"], 102, nil),
                (["where": #"{"name":{"$foo":1}}"#], 102, "Unsupported query operator: $foo"),
                (["where": #"{"$where":"1"}"#], 105, "Invalid key name: $where"),
                (["where": #"{"ACL":1}"#], 102, "Cannot query on ACL."),
                (["where": #"{"na me":1}"#], 105, "Invalid key name: na me"),
                (["where": #"{"name\"; DROP TABLE outbox;--":1}"#], 105, nil),
                (["where": #"{"name":{"$in":"Ann"}}"#], 107, "bad $in value"),
                (["where": #"{"name":{"$nin":1}}"#], 107, "bad $nin value"),
                (["where": #"{"tags":{"$containedBy":"a"}}"#], 107, "bad $containedBy: should be an array"),
                (["where": #"{"$or":{"a":1}}"#], 102, "Bad $or format - use an array value."),
                (["where": #"{"$nor":[]}"#], 102, "Bad $nor format - use an array of at least 1 value."),
                (["where": #"{"name":{"$regex":"a","$options":"g"}}"#], 102, "Bad $options value for query: g"),
                (["where": #"{"name":{"$regex":"("}}"#], 102, nil),
                (["where": #"{"score":{"$gt":"high"}}"#], 111, nil),
                (["where": #"{"name":{"$inQuery":{"where":{}}}}"#], 102, "improper usage of $inQuery"),
                (["where": #"{"name":{"$select":{"query":{}}}}"#], 102, "improper usage of $select"),
                (["where": "[1]"], 102, nil),
                (["where": #"{"info":{"$regex":"a"}}"#], 102, nil),
                (["where": #"{"name":{"$all":["a"]}}"#], 102, nil),
                (["order": "na-me"], 105, "Invalid field name: na-me."),
                (["limit": "-1"], 102, nil),
                (["limit": "ten"], 102, nil),
                (["foo": "1"], 102, "Invalid parameter for query: foo"),
            ]
            for (query, code, message) in cases {
                let reply = try await PostsHTTP.send("GET", "/classes/\(f.players)", query: query)
                #expect(reply.status == 400, "\(query): \(reply.text)")
                #expect(reply.code == code, "\(query): \(reply.text)")
                if let message { #expect(reply.error == message, "\(query)") }
            }
            // The class and the outbox are still there after the attempts above.
            #expect(try await names(f, [:]).count == 6)
        }

        @Test func injectionInValuesMatchesNothing() async throws {
            let f = try await Self.fixture()
            for value in ["' OR '1'='1", "Ann' --", "\\'; SELECT pg_sleep(5); --"] {
                #expect(try await names(f, ["where": ["name": value]]).isEmpty)
                #expect(try await names(f, ["where": ["name": ["$in": [value]]]]).isEmpty)
            }
        }

        @Test func aMissingClassHasNoResults() async throws {
            let reply = try await PostsHTTP.find(PostsHTTP.uniqueClass("Nothing"), ["count": 1])
            #expect(reply.text == #"{"count":0,"results":[]}"#)
        }

        @Test func defaultLimitIsOneHundred() async throws {
            let cls = PostsHTTP.uniqueClass("Many")
            let requests = (0..<120).map { index -> [String: Any] in
                ["method": "POST", "path": "/parse/classes/\(cls)", "body": ["n": index]]
            }
            let batch = try await PostsHTTP.send("POST", "/batch", ["requests": requests])
            #expect(batch.status == 200)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:])).count == 100)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, ["limit": 1000])).count == 120)
        }
    }
}

import Foundation
import Testing

extension IntegrationSuite {
    /// `GET /aggregate/<C>` and `distinct` over HTTP, as the SDKs' `aggregate` and `distinct` send them.
    @Suite struct PostsAggregate {
        /// Games of the tutorials' players: a score and the day it was played (2026-11-02 is a Monday, ISO week 45).
        static let games: [(String, Double, String, [String])] = [
            ("ann", 10, "2026-11-02T10:00:00.000Z", ["a", "b"]), ("ann", 30, "2026-11-03T10:00:00.000Z", ["b"]),
            ("bob", 25, "2026-11-04T10:00:00.000Z", []), ("cid", 5, "2026-11-05T23:30:00.000Z", ["c"]),
            ("ann", 7, "2026-11-10T10:00:00.000Z", ["a"]), ("bob", 40, "2026-11-11T10:00:00.000Z", ["a", "c"]),
        ]

        static func fixture() async throws -> String {
            let c = PostsHTTP.uniqueClass("Game")
            for (name, score, day, tags) in games {
                _ = try await PostsHTTP.create(c, ["name": name, "score": score, "playedAt": ["__type": "Date", "iso": day], "tags": tags])
            }
            return c
        }

        static func aggregate(_ c: String, _ parameters: [String: Any], master: Bool = true) async throws -> Reply {
            var query: [String: String] = [:]
            for (key, value) in parameters {
                if let text = value as? String { query[key] = text; continue }
                let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
                query[key] = String(decoding: data, as: UTF8.self)
            }
            return try await PostsHTTP.send("GET", "/aggregate/\(c)", master: master, query: query)
        }

        static func results(_ c: String, _ pipeline: Any) async throws -> [[String: Any]] {
            let reply = try await aggregate(c, ["pipeline": pipeline])
            #expect(reply.status == 200, "\(pipeline): \(reply.text)")
            return PostsHTTP.results(reply)
        }

        @Test func groupsSumAverageAndCountPerKey() async throws {
            let c = try await Self.fixture()
            let totals = try await Self.results(c, [
                ["$group": ["_id": "$name", "total": ["$sum": "$score"], "games": ["$sum": 1], "best": ["$max": "$score"],
                            "worst": ["$min": "$score"], "mean": ["$avg": "$score"], "n": ["$count": [:]]]],
                ["$sort": ["total": -1]],
            ])
            #expect(totals.compactMap { $0["objectId"] as? String } == ["bob", "ann", "cid"])
            let ann = try #require(totals.first { $0["objectId"] as? String == "ann" })
            #expect(ann["total"] as? Double == 47)
            #expect(ann["games"] as? Double == 3)
            #expect(ann["n"] as? Double == 3)
            #expect(ann["best"] as? Double == 30)
            #expect(ann["worst"] as? Double == 7)
            #expect(abs((ann["mean"] as? Double ?? 0) - 47.0 / 3) < 1e-9)
            // A null _id is one group of everything.
            let all = try await Self.results(c, [["$group": ["_id": NSNull(), "total": ["$sum": "$score"]]]])
            #expect(all.count == 1)
            #expect(all.first?["total"] as? Double == 117)
            #expect(all.first?.keys.contains("objectId") == true)
        }

        @Test func aWeeklyLeaderboardGroupsByDateParts() async throws {
            let c = try await Self.fixture()
            let board = try await Self.results(c, [
                ["$match": ["playedAt": ["$gte": ["__type": "Date", "iso": "2026-11-01T00:00:00.000Z"]]]],
                ["$group": ["_id": ["player": "$name", "week": ["$week": "$playedAt"], "year": ["$year": "$playedAt"]],
                            "score": ["$sum": "$score"]]],
                ["$sort": ["score": -1]],
                ["$limit": 3],
            ])
            let rows = board.map { row -> String in
                let id = row["objectId"] as? [String: Any]
                return "\(id?["player"] as? String ?? "?")/\(id?["week"] as? Int ?? -1)/\(id?["year"] as? Int ?? -1)/\(row["score"] as? Double ?? -1)"
            }
            #expect(rows == ["ann/45/2026/40.0", "bob/46/2026/40.0", "bob/45/2026/25.0"] || rows == ["bob/46/2026/40.0", "ann/45/2026/40.0", "bob/45/2026/25.0"], "\(rows)")
            let byDay = try await Self.results(c, [
                ["$group": ["_id": ["$dayOfMonth": "$playedAt"], "games": ["$sum": 1]]], ["$sort": ["_id": 1]],
            ])
            #expect(byDay.compactMap { $0["objectId"] as? Int } == [2, 3, 4, 5, 10, 11])
            let byHour = try await Self.results(c, [["$group": ["_id": ["$hour": "$playedAt"], "games": ["$sum": 1]]], ["$sort": ["_id": -1]]])
            #expect(byHour.compactMap { $0["objectId"] as? Int } == [23, 10])
            let byMonth = try await Self.results(c, [["$group": ["_id": ["$month": "$playedAt"], "games": ["$sum": 1]]]])
            #expect(byMonth.count == 1 && byMonth.first?["objectId"] as? Int == 11 && byMonth.first?["games"] as? Double == 6)
        }

        @Test func matchProjectSortSkipLimitCountAndUnwind() async throws {
            let c = try await Self.fixture()
            let high = try await Self.results(c, ["$match": ["score": ["$gt": 20]]])
            #expect(Set(high.compactMap { $0["score"] as? Double }) == [25, 30, 40])
            #expect(high.allSatisfy { $0["objectId"] is String && $0["createdAt"] is String })
            let projected = try await Self.results(c, ["$project": ["name": 1]])
            #expect(projected.count == 6)
            #expect(projected.allSatisfy { $0["name"] != nil && $0["objectId"] != nil && $0["score"] == nil })
            let page = try await Self.results(c, [["$sort": ["score": 1]], ["$skip": 1], ["$limit": 2], ["$project": ["score": 1]]])
            #expect(page.compactMap { $0["score"] as? Double } == [7, 10])
            let counted = try await Self.results(c, [["$match": ["name": "ann"]], ["$count": "games"]])
            #expect(counted.count == 1 && counted.first?["games"] as? Double == 3)
            // A $match after a $group filters the groups.
            let big = try await Self.results(c, [["$group": ["_id": "$name", "total": ["$sum": "$score"]]], ["$match": ["total": ["$gte": 47]]],
                                                 ["$sort": ["_id": 1]]])
            #expect(big.compactMap { $0["objectId"] as? String } == ["ann", "bob"])
            let tags = try await Self.results(c, [["$unwind": "$tags"], ["$group": ["_id": "$tags", "uses": ["$sum": 1]]], ["$sort": ["_id": 1]]])
            #expect(tags.compactMap { $0["objectId"] as? String } == ["a", "b", "c"])
            #expect(tags.compactMap { $0["uses"] as? Double } == [3, 2, 2])
            let kept = try await Self.results(c, [["$unwind": ["path": "$tags", "preserveNullAndEmptyArrays": true]], ["$count": "rows"]])
            #expect(kept.first?["rows"] as? Double == 8)
            // The stages as one object, and a where beside them.
            let reply = try await Self.aggregate(c, ["group": ["_id": "$name"], "where": ["score": ["$lt": 20]]])
            #expect(reply.status == 400, "\(reply.text)")
            let keyed = try await Self.aggregate(c, ["$group": ["_id": "$name"], "where": ["score": ["$lt": 20]]])
            #expect(Set(PostsHTTP.results(keyed).compactMap { $0["objectId"] as? String }) == ["ann", "cid"], "\(keyed.text)")
        }

        @Test func distinctValuesOfFieldsArraysAndPaths() async throws {
            let c = try await Self.fixture()
            func distinct(_ field: String, _ clause: [String: Any]? = nil) async throws -> [Any] {
                var parameters: [String: Any] = ["distinct": field]
                if let clause { parameters["where"] = clause }
                let reply = try await Self.aggregate(c, parameters)
                #expect(reply.status == 200, "\(field): \(reply.text)")
                return (reply.json?["results"] as? [Any]) ?? []
            }
            #expect(try await distinct("name") as? [String] == ["ann", "bob", "cid"])
            #expect(try await distinct("name", ["score": ["$gt": 20]]) as? [String] == ["ann", "bob"])
            #expect(try await distinct("score", ["name": "bob"]) as? [Double] == [25, 40])
            #expect(try await distinct("tags") as? [String] == ["a", "b", "c"])
            #expect(try await distinct("unknown").isEmpty)
            let dates = try await distinct("playedAt", ["name": "cid"])
            #expect((dates.first as? [String: Any])?["iso"] as? String == "2026-11-05T23:30:00.000Z")
            let missing = try await PostsHTTP.send("GET", "/aggregate/NoSuchClass", master: true, query: ["distinct": "score"])
            #expect(missing.status == 200 && (missing.json?["results"] as? [Any])?.isEmpty == true)
        }

        @Test func badPipelinesAreRefusedNamingTheProblem() async throws {
            let c = try await Self.fixture()
            let cases: [(Any, Int, String)] = [
                (["unknown": [:]], 102, "Invalid aggregate stage 'unknown'."),
                ([["$group": ["objectId": "$name"]]], 102, "Cannot use 'objectId' in aggregation stage $group."),
                ([["$group": ["total": ["$sum": 1]]]], 102, "Invalid parameter for query: group. Missing key _id"),
                ([["$group": ["_id": "$name"], "$limit": 1]], 102, "Pipeline stages should only have one key but found $group, $limit."),
                ([["$lookup": ["from": "x"]]], 102, "The aggregate stage $lookup is not supported by this server."),
                ([["$group": ["_id": "$name", "all": ["$push": "$score"]]]], 102, "The aggregate accumulator $push is not supported by this server."),
                ([["$group": ["_id": ["$dayOfFortnight": "$playedAt"]]]], 102, "The aggregate operator $dayOfFortnight is not supported by this server."),
                ([["$group": ["_id": ["$week": "$name"]]]], 102, "$week needs a Date field."),
                ([["$group": ["_id": "$name", "total": ["$sum": "$name"]]]], 102, "$sum needs a Number field."),
                ([["$project": ["name": ["$toUpper": "$name"]]]], 102, "$project of name: only 1 or 0 (true or false) is supported by this server."),
                ([["$project": ["name": 1, "score": 0]]], 102, "$project cannot both include and exclude fields."),
                ([["$sort": ["score": 2]]], 102, "$sort of score must be 1 or -1."),
                ([["$limit": -1]], 102, "Invalid value for $limit: it must be a non-negative integer."),
                ([["$match": ["score": ["$foo": 1]]]], 102, "Unsupported query operator: $foo"),
                ([["$count": "no such"]], 102, "$count needs a field name."),
            ]
            for (pipeline, code, message) in cases {
                let reply = try await Self.aggregate(c, ["pipeline": pipeline])
                #expect(reply.status == 400, "\(pipeline): \(reply.text)")
                #expect(reply.code == code, "\(pipeline): \(reply.text)")
                #expect(reply.error == message, "\(pipeline): \(reply.text)")
            }
            let client = try await Self.aggregate(c, ["pipeline": [["$group": ["_id": "$name"]]]], master: false)
            #expect(client.status == 403)
            #expect(client.json?["error"] as? String == "unauthorized: master key is required")
        }

        @Test func explainIsForTheMasterKeyAndHintsMustNameAnIndex() async throws {
            let c = try await Self.fixture()
            let plan = try await PostsHTTP.find(c, ["where": ["score": ["$gt": 1]], "explain": true], master: true)
            #expect(plan.status == 200, "\(plan.text)")
            let first = (plan.json?["results"] as? [[String: Any]])?.first
            #expect(first?["Plan"] != nil, "\(plan.text)")
            let refused = try await PostsHTTP.find(c, ["explain": true])
            #expect(refused.status == 400 && refused.code == 102, "\(refused.text)")
            #expect(refused.error == "Using the explain query parameter requires the master key")
            let aggregatePlan = try await Self.aggregate(c, ["pipeline": [["$group": ["_id": "$name"]]], "explain": true])
            #expect(((aggregatePlan.json?["results"] as? [[String: Any]])?.first?["Plan"]) != nil, "\(aggregatePlan.text)")
            // The first query on score makes its index; a hint naming it is accepted, one naming none is refused.
            _ = try await PostsHTTP.find(c, ["where": ["score": ["$gt": 0]]])
            let hinted = try await PostsHTTP.find(c, ["where": ["score": ["$gt": 20]], "hint": "score_1"])
            #expect(hinted.status == 200 && PostsHTTP.results(hinted).count == 3, "\(hinted.text)")
            let byId = try await PostsHTTP.find(c, ["hint": "_id_"])
            #expect(byId.status == 200, "\(byId.text)")
            let unknown = try await PostsHTTP.find(c, ["hint": "nothing_1"])
            #expect(unknown.status == 400 && unknown.code == 102, "\(unknown.text)")
            #expect(unknown.error == "hint provided does not correspond to an existing index: nothing_1")
        }
    }
}

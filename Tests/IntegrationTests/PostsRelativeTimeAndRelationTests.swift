import Foundation
import Testing

extension IntegrationSuite {
    /// `$relativeTime` in date comparisons, and equality and `$in` on Relation fields, over HTTP.
    @Suite struct PostsRelativeTimeAndRelations {
        static func iso(_ date: Date) -> [String: Any] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return ["__type": "Date", "iso": formatter.string(from: date)]
        }

        static func count(_ className: String, _ clause: String) async throws -> Reply {
            try await PostsHTTP.find(className, ["where": clause, "count": 1, "limit": 0])
        }

        @Test func relativeTimesCompareWithDates() async throws {
            let c = PostsHTTP.uniqueClass("Event")
            let day = 86_400.0
            for (name, offset) in [("lastWeek", -7 * day), ("yesterday", -day), ("tomorrow", day), ("nextMonth", 30 * day)] {
                _ = try await PostsHTTP.create(c, ["name": name, "date": Self.iso(Date().addingTimeInterval(offset)), "label": name])
            }
            let cases: [(String, Int)] = [
                (#"{"date":{"$lt":{"$relativeTime":"now"}}}"#, 2),
                (#"{"date":{"$gt":{"$relativeTime":"2 days ago"}}}"#, 3),
                (#"{"date":{"$gte":{"$relativeTime":"in 2 days"}}}"#, 1),
                (#"{"date":{"$lte":{"$relativeTime":"IN 1 WEEK"}}}"#, 3),
                (#"{"date":{"$gt":{"$relativeTime":"8 days ago"},"$lt":{"$relativeTime":"in 1 yr 2 hrs"}}}"#, 4),
                (#"{"date":{"$gt":{"$relativeTime":"1 day 1 hour ago"},"$lt":{"$relativeTime":"in 12 hours 30 mins"}}}"#, 1),
                (#"{"createdAt":{"$gt":{"$relativeTime":"1 hour ago"}}}"#, 4),
                (#"{"missing":{"$gt":{"$relativeTime":"4 days ago"}}}"#, 0),
            ]
            for (clause, expected) in cases {
                let reply = try await Self.count(c, clause)
                #expect(reply.status == 200, "\(clause): \(reply.text)")
                #expect(reply.json?["count"] as? Int == expected, "\(clause): \(reply.text)")
            }
        }

        @Test func badRelativeTimesAnswerParseServersErrors() async throws {
            let c = PostsHTTP.uniqueClass("Event")
            _ = try await PostsHTTP.create(c, ["date": Self.iso(Date()), "label": "x"])
            let cases: [(String, String)] = [
                (#"{"date":{"$lt":{"$relativeTime":"asdf"}}}"#,
                 "bad $relativeTime ($lt) value. Time should either start with 'in' or end with 'ago'"),
                (#"{"date":{"$lt":{"$relativeTime":"in 4 days 13"}}}"#,
                 "bad $relativeTime ($lt) value. Invalid time string. Dangling unit or number."),
                (#"{"date":{"$gt":{"$relativeTime":"in 4 days minutes"}}}"#,
                 "bad $relativeTime ($gt) value. Invalid time string. Dangling unit or number."),
                (#"{"date":{"$lt":{"$relativeTime":"in 4 days ago"}}}"#, "bad $relativeTime ($lt) value. Time cannot have both 'in' and 'ago'"),
                (#"{"date":{"$lt":{"$relativeTime":"in 1.5 days"}}}"#, "bad $relativeTime ($lt) value. '1.5' is not an integer."),
                (#"{"date":{"$lt":{"$relativeTime":"in 2 fortnights"}}}"#, "bad $relativeTime ($lt) value. Invalid interval: 'fortnights'"),
                (#"{"date":{"$lt":{"$relativeTime":3}}}"#, "bad $relativeTime ($lt) value. Time should be a string"),
                (#"{"label":{"$lt":{"$relativeTime":"in 4 days"}}}"#, "$relativeTime can only be used with Date field"),
                (#"{"date":{"$ne":{"$relativeTime":"4 days ago"}}}"#,
                 "$relativeTime can only be used with the $lt, $lte, $gt, and $gte operators"),
                (#"{"date":{"$relativeTime":"4 days ago"}}"#, "bad constraint: $relativeTime"),
            ]
            for (clause, message) in cases {
                let reply = try await Self.count(c, clause)
                #expect(reply.status == 400, "\(clause): \(reply.text)")
                #expect(reply.code == 107, "\(clause): \(reply.text)")
                #expect(reply.error == message, "\(clause): \(reply.text)")
            }
        }

        @Test func relationsAnswerEqualityAndMembership() async throws {
            let users = PostsHTTP.uniqueClass("Fan")
            let posts = PostsHTTP.uniqueClass("Post")
            let ann = try await PostsHTTP.create(users, ["name": "ann"])
            let bob = try await PostsHTTP.create(users, ["name": "bob"])
            let cid = try await PostsHTTP.create(users, ["name": "cid"])
            func post(_ title: String, _ fans: [String]) async throws {
                var fields: [String: Any] = ["title": title]
                if !fans.isEmpty {
                    fields["likes"] = ["__op": "AddRelation", "objects": fans.map { PostsHTTP.pointer(users, $0) }]
                }
                _ = try await PostsHTTP.create(posts, fields)
            }
            try await post("first", [ann, bob])
            try await post("second", [bob])
            try await post("third", [])
            func titles(_ clause: [String: Any]) async throws -> [String] {
                let reply = try await PostsHTTP.find(posts, ["where": clause, "order": "title"])
                #expect(reply.status == 200, "\(clause): \(reply.text)")
                return PostsHTTP.results(reply).compactMap { $0["title"] as? String }
            }
            #expect(try await titles(["likes": PostsHTTP.pointer(users, ann)]) == ["first"])
            #expect(try await titles(["likes": PostsHTTP.pointer(users, bob)]) == ["first", "second"])
            #expect(try await titles(["likes": PostsHTTP.pointer(users, cid)]) == [])
            #expect(try await titles(["likes": ["$in": [PostsHTTP.pointer(users, ann), PostsHTTP.pointer(users, cid)]]]) == ["first"])
            #expect(try await titles(["likes": ["$nin": [PostsHTTP.pointer(users, ann)]]]) == ["second", "third"])
            #expect(try await titles(["likes": ["$ne": PostsHTTP.pointer(users, bob)]]) == ["third"])
            #expect(try await titles(["likes": PostsHTTP.pointer(users, ann), "title": "second"]) == [])
            let bad = try await PostsHTTP.find(posts, ["where": ["likes": "ann"]])
            #expect(bad.status == 400 && bad.code == 102, "\(bad.text)")
            let unsupported = try await PostsHTTP.find(posts, ["where": ["likes": ["$exists": true]]])
            #expect(unsupported.status == 400 && unsupported.code == 102, "\(unsupported.text)")
        }
    }
}

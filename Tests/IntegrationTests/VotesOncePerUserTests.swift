import Foundation
import Testing

extension IntegrationSuite {
    /// Counters under "one vote per user": `deploy/stack test` starts the votes service with
    /// `PARSE_VOTE_ONE_PER_USER=LikePhoto`, so `LikePhoto.votes` is a like counter. Every test makes its own photos
    /// and users.
    @Suite struct VotesOncePerUser {
        static let cls = "LikePhoto"

        func photo() async throws -> String { try await PostsHTTP.create(Self.cls, ["votes": 0]) }

        func total(_ reply: Reply) -> Int? { (reply.json?["votes"] as? NSNumber)?.intValue }

        func likesRows(_ id: String) throws -> Int {
            Int(try VotesAPI.sql("parse_posts", "SELECT count(*) FROM vote_likes WHERE class_name = '\(Self.cls)' AND object_id = '\(id)'").first ?? "") ?? -1
        }

        func unchanged(_ id: String) async throws -> Int {
            try await VotesAPI.settled(Self.cls, id)
            return Int(try VotesAPI.sql("parse_votes", "SELECT count(*) FROM ballots WHERE class_name = '\(Self.cls)' AND object_id = '\(id)' AND state = 'unchanged'").first ?? "") ?? -1
        }

        @Test func aLikeCountsOnceAndARetractionTakesItBackWithOneEventEach() async throws {
            let consumer = try VoteConsumerProcess.start(className: Self.cls, keys: ["vote.*.\(Self.cls)"],
                                                         queue: "like-test-" + UUID().uuidString.prefix(8).lowercased())
            defer { consumer?.stop() }
            let id = try await photo()
            let user = try await AuthAPI.signUp("liker")

            let like = try await VotesAPI.increment(Self.cls, id, token: user.token)
            #expect(like.status == 200 && total(like) == 1, "\(like.text)")
            let againId = UUID().uuidString
            let again = try await VotesAPI.increment(Self.cls, id, requestId: againId, token: user.token)
            #expect(again.status == 200 && again.text == like.text, "a second like is answered with the same total: \(again.text)")
            let retract = try await VotesAPI.increment(Self.cls, id, amount: -1, token: user.token)
            #expect(retract.status == 200 && total(retract) == 0, "\(retract.text)")
            let retractAgain = try await VotesAPI.increment(Self.cls, id, amount: -1, token: user.token)
            #expect(retractAgain.status == 200 && total(retractAgain) == 0, "\(retractAgain.text)")
            // A retry of the second like is answered as the first time, not counted now that the like is gone.
            let retried = try await VotesAPI.increment(Self.cls, id, requestId: againId, token: user.token)
            #expect(retried.text == again.text)
            #expect(try await VotesAPI.count(Self.cls, id) == 0)

            let ledger = try await VotesAPI.ledger(Self.cls, id)
            #expect(ledger.applied == 2 && ledger.sum == 0 && ledger.sequences == [1, 2])
            #expect(ledger.eventIds == 2)
            #expect(try await unchanged(id) == 2)
            #expect(try likesRows(id) == 0)

            guard let consumer else {
                Issue.record("the vote-consumer executable is not built next to the services")
                return
            }
            var events: [[String: Any]] = []
            for _ in 0..<60 {
                events = consumer.events().filter { ($0["data"] as? [String: Any])?["objectId"] as? String == id }
                if events.count >= 2 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            try await Task.sleep(for: .milliseconds(500))
            events = consumer.events().filter { ($0["data"] as? [String: Any])?["objectId"] as? String == id }
            let summary = events.map { event -> String in
                let data = event["data"] as? [String: Any] ?? [:]
                return "\(event["type"] ?? "?") \(data["amount"] ?? "?") seq \(data["sequence"] ?? "?") total \(data["total"] ?? "?") voter \(data["voter"] ?? "?")"
            }
            #expect(summary == ["vote.cast.v1 1 seq 1 total 1 voter \(user.id)", "vote.retracted.v1 -1 seq 2 total 0 voter \(user.id)"],
                    "\(summary)")
            #expect(Set(events.compactMap { $0["id"] as? String }).count == 2)
        }

        @Test func simultaneousLikesOfOneUserCountOnce() async throws {
            let id = try await photo()
            let users = [try await AuthAPI.signUp("liker"), try await AuthAPI.signUp("liker")]
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for user in users {
                    for _ in 0..<8 { group.addTask { try await VotesAPI.increment(Self.cls, id, token: user.token) } }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.filter { $0.status != 200 }.map(\.text))")
            #expect(Set(replies.compactMap(total)).isSubset(of: [1, 2]))
            #expect(try await VotesAPI.count(Self.cls, id) == 2)
            let ledger = try await VotesAPI.ledger(Self.cls, id)
            #expect(ledger.applied == 2 && ledger.sum == 2 && ledger.sequences == [1, 2] && ledger.eventIds == 2)
            #expect(try await unchanged(id) == 14)
            #expect(try likesRows(id) == 2)
        }

        @Test func anAnonymousVoterIsRefused() async throws {
            let id = try await photo()
            let reply = try await VotesAPI.increment(Self.cls, id)
            #expect(reply.status == 404)
            #expect(reply.text == #"{"code":101,"error":"Permission denied, user needs to be authenticated."}"#)
            #expect(try await VotesAPI.count(Self.cls, id) == 0)
            #expect(try await VotesAPI.ledger(Self.cls, id).applied == 0)
        }

        @Test func anAmountOtherThanPlusOrMinusOneIsRefused() async throws {
            let id = try await photo()
            let user = try await AuthAPI.signUp("liker")
            for body: [String: Any] in [["votes": ["__op": "Increment", "amount": 2]], ["votes": ["__op": "Increment", "amount": 0]],
                                         ["votes": 1]] {
                let reply = try await VotesAPI.put(Self.cls, id, body, token: user.token)
                #expect(reply.status == 400 && reply.code == 107, "\(body): \(reply.text)")
                #expect((reply.json?["error"] as? String)?.contains("one vote per user") == true)
            }
            #expect(try await VotesAPI.count(Self.cls, id) == 0)
            #expect(try await VotesAPI.ledger(Self.cls, id).applied == 0)
        }

        /// Users like and take back at random, each in order, all at once: the counter ends as the number of users
        /// whose last vote was a like, and it equals the ledger's sum and the likes kept beside the counter.
        @Test func likesLedgerAndCounterAgreeUnderAMixedLoad() async throws {
            let id = try await photo()
            var users: [AuthAPI.User] = []
            for _ in 0..<6 { users.append(try await AuthAPI.signUp("liker")) }
            let plans = users.map { _ in (0..<6).map { _ in Bool.random() ? 1.0 : -1.0 } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (user, plan) in zip(users, plans) {
                    group.addTask {
                        for amount in plan {
                            let reply = try await VotesAPI.increment(Self.cls, id, amount: amount, token: user.token)
                            #expect(reply.status == 200, "\(reply.text)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let expected = plans.filter { $0.last == 1 }.count
            #expect(try await VotesAPI.count(Self.cls, id) == Double(expected))
            let ledger = try await VotesAPI.ledger(Self.cls, id)
            #expect(ledger.sum == Double(expected))
            #expect(ledger.sequences == (0..<ledger.applied).map { $0 + 1 })
            #expect(ledger.eventIds == ledger.applied)
            #expect(try likesRows(id) == expected)
            #expect(ledger.applied + (try await unchanged(id)) == 36)
        }
    }
}

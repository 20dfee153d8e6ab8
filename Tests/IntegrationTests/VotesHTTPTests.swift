import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct VotesHTTP {
        @Test func concurrentVotesAddExactlyNWithDistinctTotals() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["name": "Tom", "votes": 0])
            let consumer = try VoteConsumerProcess.start(className: cls)
            let n = 60
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<n { group.addTask { try await VotesAPI.increment(cls, id) } }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.filter { $0.status != 200 }.map(\.text))")
            let totals = replies.compactMap { ($0.json?["votes"] as? NSNumber)?.intValue }
            #expect(Set(totals) == Set(1...n))
            #expect(replies.allSatisfy { ($0.json?["updatedAt"] as? String)?.hasSuffix("Z") == true })
            #expect(try await VotesAPI.count(cls, id) == Double(n))

            let ledger = try await VotesAPI.ledger(cls, id)
            #expect(ledger.applied == n && ledger.sum == Double(n))
            #expect(ledger.sequences == Array(1...n))
            #expect(ledger.eventIds == n)
            // One event per ballot reaches a consumer, and none stays in the outbox once the broker has it.
            guard let consumer else {
                Issue.record("the vote-consumer executable is not built next to the services")
                return
            }
            let seen = try consumer.finish(expecting: n)
            #expect(seen.distinct == n)
            var left = try await VotesAPI.ledger(cls, id).outboxEvents
            for _ in 0..<20 where left > 0 {
                try await Task.sleep(for: .milliseconds(250))
                left = try await VotesAPI.ledger(cls, id).outboxEvents
            }
            #expect(left == 0)
        }

        /// `vote-consumer replay` asks votes for the events its ledger applied and prints them as they were published:
        /// the same ids, types, subjects and data; the time is when the ledger marked the ballot.
        @Test func theReplayGivesTheEventsThatWerePublished() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["name": "Tom", "votes": 0])
            let from = Date(timeIntervalSinceNow: -60)
            guard let consumer = try VoteConsumerProcess.start(className: cls, keys: ["vote.*.\(cls)"]) else {
                Issue.record("the vote-consumer executable is not built next to the services")
                return
            }
            let n = 12
            for _ in 0..<n { _ = try await VotesAPI.increment(cls, id) }
            _ = try await VotesAPI.increment(cls, id, amount: -1)
            var live = consumer.events()
            for _ in 0..<60 where live.count < n + 1 {
                try await Task.sleep(for: .milliseconds(500))
                live = consumer.events()
            }
            consumer.stop()
            let replayed = try VoteConsumerProcess.replay(from: from, className: cls)
            func comparable(_ events: [[String: Any]]) -> [NSDictionary] {
                events.map { event in
                    var event = event
                    event["time"] = nil
                    return event as NSDictionary
                }.sorted { ($0["id"] as? String ?? "") < ($1["id"] as? String ?? "") }
            }
            #expect(replayed.count == n + 1)
            #expect(comparable(replayed) == comparable(live))
            #expect(replayed.compactMap { ($0["data"] as? [String: Any])?["sequence"] as? Int } == Array(1...(n + 1)))
            #expect(replayed.last?["type"] as? String == "vote.retracted.v1")
        }

        @Test func aVoteIsAnsweredOnceAppliedAndMarkedInTheLedgerAfter() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 0])
            // The ledger's mark writes the vote's event to the outbox: with the outbox locked, the ballot can be
            // recorded and applied, not marked.
            let lock = try TableLock(database: "parse_votes", table: "outbox")
            defer { lock.release() }
            let reply = try await VotesAPI.increment(cls, id)
            #expect(reply.status == 200 && reply.json?["votes"] as? Int == 1, "\(reply.text)")
            #expect(try await VotesAPI.count(cls, id) == 1)
            let states = try VotesAPI.sql("parse_votes", "SELECT state FROM ballots WHERE class_name = '\(cls)' AND object_id = '\(id)'")
            #expect(states == ["pending"], "the answer left before the mark")
            lock.release()
            let ledger = try await VotesAPI.ledger(cls, id)
            #expect(ledger.applied == 1 && ledger.sequences == [1] && ledger.eventIds == 1)
        }

        /// A vote's event leaves as its voter is answered, before the ledger's mark, under the ballot's id; once the
        /// mark commits, its outbox row is marked and the event is not sent again when the row's claim runs out.
        @Test func aVotesEventLeavesBeforeItsMarkAndOnlyOnce() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 0])
            let consumer = try #require(try VoteConsumerProcess.start(className: cls), "vote-consumer is not built")
            defer { consumer.stop() }
            let lock = try TableLock(database: "parse_votes", table: "outbox")
            defer { lock.release() }
            let reply = try await VotesAPI.increment(cls, id)
            #expect(reply.status == 200, "\(reply.text)")
            var events = consumer.events()
            for _ in 0..<100 where events.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                events = consumer.events()
            }
            let ballots = try VotesAPI.sql("parse_votes", "SELECT ballot_id::text || ' ' || state FROM ballots WHERE class_name = '\(cls)'")
            let ballotId = try #require(ballots.first?.split(separator: " ").first.map(String.init))
            #expect(ballots == ["\(ballotId) pending"], "the mark came before the event")
            #expect(events.map { $0["id"] as? String } == [ballotId])
            lock.release()
            let (pending, unpublished) = try await VotesAPI.waitUntilSettled(cls)
            #expect(pending == 0 && unpublished == 0)
            #expect(try VotesAPI.sql("parse_votes", "SELECT event_id::text FROM ballots WHERE class_name = '\(cls)'") == [ballotId])
            // Past the claim (5 s), a row left unmarked would be published again.
            try await Task.sleep(for: .seconds(6))
            #expect(consumer.events().count == 1)
        }

        @Test func answerIsParseServersAndAReadAfterSeesTheTotal() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 10])
            let reply = try await VotesAPI.increment(cls, id, amount: 1)
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["votes", "updatedAt"])
            #expect(json["votes"] as? Int == 11)
            #expect(reply.text.hasPrefix(#"{"votes":11,"updatedAt":""#))
            let read = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)")
            #expect(read.json?["votes"] as? Int == 11)
            #expect(read.json?["updatedAt"] as? String == json["updatedAt"] as? String)
        }

        @Test func aRetriedRequestIdIsAppliedOnceAndAnsweredTheSame() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 0])
            let requestId = UUID().uuidString
            let first = try await VotesAPI.increment(cls, id, requestId: requestId)
            let again = try await VotesAPI.increment(cls, id, requestId: requestId)
            #expect(first.status == 200 && again.status == 200)
            #expect(first.text == again.text)
            _ = try await VotesAPI.increment(cls, id)
            #expect(try await VotesAPI.count(cls, id) == 2)
            // The same request id for another object is a different request: refused as parse-server does.
            let other = try await PostsHTTP.create(cls, ["votes": 0])
            let reused = try await VotesAPI.increment(cls, other, requestId: requestId)
            #expect(reused.status == 400 && reused.code == 159, "\(reused.text)")
            #expect(try await VotesAPI.ledger(cls, id).applied == 2)
        }

        @Test func aPlainSetIsABallotOfTheDifference() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 3])
            let set = try await VotesAPI.put(cls, id, ["votes": 4])
            #expect(set.status == 200)
            #expect(set.json.map { Set($0.keys) } == ["updatedAt"])
            _ = try await VotesAPI.increment(cls, id, amount: 2)
            #expect(try await VotesAPI.count(cls, id) == 6)
            let ledger = try await VotesAPI.ledger(cls, id)
            // The counter is the value at creation plus the ledger's sum.
            #expect(ledger.applied == 2 && ledger.sum == 3)
        }

        @Test func aVoteNeedsWritePermissionAndAnObject() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let locked = try await PostsHTTP.create(cls, ["votes": 0, "ACL": ["*": ["read": true]]], master: true)
            let refused = try await VotesAPI.increment(cls, locked)
            #expect(refused.status == 404 && refused.text == #"{"code":101,"error":"Object not found."}"#)
            #expect(try await VotesAPI.count(cls, locked) == 0)
            let missing = try await VotesAPI.increment(cls, "nosuchobject")
            #expect(missing.status == 404 && missing.code == 101)
            #expect(try await VotesAPI.ledger(cls, locked).applied == 0)
        }

        @Test func aMixedBodyVotesThenUpdatesTheOtherFields() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 1, "name": "Tom"])
            let reply = try await VotesAPI.increment(cls, id, extra: ["name": "Felix"])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["votes"] as? Int == 2)
            let read = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)")
            #expect(read.json?["votes"] as? Int == 2 && read.json?["name"] as? String == "Felix")
        }

        @Test func otherIncrementsAreNotVotes() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let id = try await PostsHTTP.create(cls, ["votes": 0, "score": 1])
            let reply = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["score": ["__op": "Increment", "amount": 2]])
            #expect(reply.json?["score"] as? Int == 3)
            #expect(try await VotesAPI.ledger(cls, id).applied == 0)
        }
    }
}

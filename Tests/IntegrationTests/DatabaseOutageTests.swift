import Foundation
import Testing

extension IntegrationSuite {
    /// PostgreSQL stopped for 5 s under a steady trickle of creates and votes: every answer is a success or a 503
    /// with `Retry-After` (the services retry a transient fault while the request's deadline allows, then say so;
    /// a write whose COMMIT met the stop learns its outcome once the database is back, and its retry gets its
    /// answer); every write a client saw acknowledged (retried with its request id) is stored once, and nothing is
    /// dead-lettered for the outage.
    @Suite struct DatabaseOutage {
        /// One client's writes, each retried with its request id until it is acknowledged.
        actor Tally {
            var acknowledgedCreates: [Int: String] = [:]
            var acknowledgedVotes = 0
            var unavailable = 0
            var unexpected: [String] = []

            func created(_ number: Int, id: String) { acknowledgedCreates[number] = id }
            func voted() { acknowledgedVotes += 1 }
            func refused(_ reply: Reply) {
                if DatabaseOutage.isUnavailable(reply) {
                    unavailable += 1
                } else {
                    unexpected.append("\(reply.status) \(reply.header("Retry-After") ?? "-") \(reply.text)")
                }
            }
        }

        static func deadLetterTotal() async throws -> Int {
            let reply = try await HTTP.send("GET", "/health/ready")
            let counts = try #require(reply.json?["deadLetters"] as? [String: Int], "readiness: \(reply.text)")
            return counts.values.reduce(0, +)
        }

        /// Sends one write until it is acknowledged (or 40 tries), with the same request id each time.
        static func untilAcknowledged(_ tally: Tally, _ send: () async throws -> Reply) async throws -> Reply? {
            for _ in 0..<40 {
                let reply = try await send()
                if (200..<300).contains(reply.status) { return reply }
                await tally.refused(reply)
                try await Task.sleep(for: .milliseconds(200))
            }
            return nil
        }

        @Test func writesDuringADatabaseOutageAreAnsweredAndStoredOnce() async throws {
            let className = PostsHTTP.uniqueClass("Outage")
            let cat = try await PostsHTTP.create(className, ["name": "outage cat", "votes": 0], master: true)
            let deadBefore = try await Self.deadLetterTotal()
            let tally = Tally()
            let clock = ContinuousClock()
            let stopAt = clock.now + .seconds(1)
            let trafficEnds = clock.now + .seconds(9)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        var number = client * 10_000
                        while clock.now < trafficEnds {
                            number += 1
                            let mine = number
                            let createId = "outage-create-\(className)-\(mine)"
                            if let reply = try await Self.untilAcknowledged(tally, {
                                try await PostsHTTP.send("POST", "/classes/\(className)", ["number": mine], master: true,
                                                         headers: ["X-Parse-Request-Id": createId])
                            }) {
                                await tally.created(mine, id: reply.json?["objectId"] as? String ?? "")
                            }
                            let voteId = "outage-vote-\(className)-\(mine)"
                            if try await Self.untilAcknowledged(tally, {
                                try await VotesAPI.increment(className, cat, requestId: voteId)
                            }) != nil {
                                await tally.voted()
                            }
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                }
                group.addTask {
                    try await Task.sleep(until: stopAt)
                    try await TestStack.while(["postgres", "stop"], restartWith: ["postgres", "start"]) {
                        try await Task.sleep(for: .seconds(5))
                    }
                }
                try await group.waitForAll()
            }

            let unexpected = await tally.unexpected
            #expect(unexpected.isEmpty, "answers other than success or 503 with Retry-After: \(unexpected.prefix(5))")
            let created = await tally.acknowledgedCreates
            let votes = await tally.acknowledgedVotes
            print("database outage: \(created.count) creates and \(votes) votes acknowledged, \(await tally.unavailable) answers 503")
            #expect(!created.isEmpty && votes > 0)

            // Every acknowledged create once, and no create stored that was never acknowledged twice.
            let stored = PostsHTTP.results(try await PostsHTTP.find(className, ["limit": 10_000, "keys": "number"],
                                                                     master: true))
            var copies: [Int: Int] = [:]
            for row in stored { if let number = row["number"] as? Int { copies[number, default: 0] += 1 } }
            #expect(copies.values.allSatisfy { $0 == 1 }, "a create stored twice: \(copies.filter { $0.value > 1 })")
            #expect(Set(created.keys).isSubset(of: Set(copies.keys)),
                    "acknowledged creates missing: \(Set(created.keys).subtracting(copies.keys).sorted().prefix(10))")

            // Every acknowledged vote counted once: each was retried with its request id until acknowledged.
            let ledger = try await VotesAPI.ledger(className, cat)
            #expect(ledger.applied == votes && ledger.sum == Double(votes), "ledger \(ledger), acknowledged \(votes)")
            #expect(try await VotesAPI.count(className, cat) == Double(votes))
            #expect(try await Self.deadLetterTotal() == deadBefore, "commands were dead-lettered during the outage")
        }

        /// A create waits at its COMMIT (in a deferred trigger) when PostgreSQL stops: its connection is lost during
        /// the COMMIT. It is answered 503 with `Retry-After` within the request's deadline (it cannot be known before
        /// the database is back whether it committed), and its retry with the same request id stores it once.
        /// Makes the first COMMIT that wrote (`event`: INSERT or UPDATE) a row of `className` wait 10 s on a
        /// deferred trigger, so the database's stop can cut it.
        static func delayFirstCommit(of className: String, after event: String) throws {
            let table = #"classes.\""# + className + #"\""#
            let prefix = className.lowercased()
            _ = try VotesAPI.sql("parse_posts", "CREATE SEQUENCE \(prefix)_commits")
            _ = try VotesAPI.sql("parse_posts", """
                CREATE FUNCTION \(prefix)_slow_commit() RETURNS trigger LANGUAGE plpgsql AS '
                BEGIN IF nextval(''\(prefix)_commits'') = 1 THEN PERFORM pg_sleep(10); END IF; RETURN NULL; END'
                """)
            _ = try VotesAPI.sql("parse_posts", """
                CREATE CONSTRAINT TRIGGER slow_commit AFTER \(event) ON \(table) DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION \(prefix)_slow_commit()
                """)
        }

        /// `write`'s answer when the database stops while its COMMIT waits, and the answer of its first retry (same
        /// request id) that succeeds once the database is back.
        static func cutThenRetried(_ write: @escaping @Sendable () async throws -> Reply) async throws -> (cut: Reply, retried: Reply?) {
            let cut = Task { try await write() }
            try await Task.sleep(for: .milliseconds(700))
            var first: Reply?
            try await TestStack.while(["postgres", "stop"], restartWith: ["postgres", "start"]) {
                first = try await cut.value
            }
            for _ in 0..<40 {
                let reply = try await write()
                if (200..<300).contains(reply.status) { return (try #require(first), reply) }
                try await Task.sleep(for: .milliseconds(250))
            }
            return (try #require(first), nil)
        }

        static func isUnavailable(_ reply: Reply) -> Bool {
            reply.status == 503 && reply.header("Retry-After") != nil && reply.json?["code"] as? Int == 100
        }

        @Test func aCreateWhoseCommitTheStopCutsIsAnswered503AndItsRetryStoresItOnce() async throws {
            let className = PostsHTTP.uniqueClass("CutCommit")
            _ = try await PostsHTTP.create(className, ["n": 0], master: true)
            try Self.delayFirstCommit(of: className, after: "INSERT")
            let requestId = "cut-commit-\(className)"
            let (cut, retried) = try await Self.cutThenRetried {
                try await PostsHTTP.send("POST", "/classes/\(className)", ["n": 1], master: true,
                                         headers: ["X-Parse-Request-Id": requestId])
            }
            #expect(Self.isUnavailable(cut), "\(cut.status) \(cut.text)")
            #expect(retried?.status == 201, "the retry never stored the create")
            let stored = PostsHTTP.results(try await PostsHTTP.find(className, ["where": #"{"n":1}"#], master: true))
            #expect(stored.count == 1, "\(stored)")
        }

        /// The same for a vote: the COMMIT of the counter's update meets the stop. Applying a ballot again answers
        /// what it got the first time, so posts runs the batch again like after any lost connection.
        @Test func aVoteWhoseCounterCommitTheStopCutsIsAnswered503AndItsRetryCountsOnce() async throws {
            let className = PostsHTTP.uniqueClass("CutVote")
            let cat = try await PostsHTTP.create(className, ["votes": 0], master: true)
            try Self.delayFirstCommit(of: className, after: "UPDATE")
            let requestId = "cut-vote-\(className)"
            let (cut, retried) = try await Self.cutThenRetried {
                try await VotesAPI.increment(className, cat, requestId: requestId)
            }
            #expect(Self.isUnavailable(cut), "\(cut.status) \(cut.text)")
            #expect(retried?.status == 200, "the retry never counted the vote")
            let ledger = try await VotesAPI.ledger(className, cat)
            #expect(ledger.applied == 1 && ledger.sum == 1, "\(ledger)")
            let stored = try await PostsHTTP.send("GET", "/classes/\(className)/\(cat)", master: true)
            #expect(stored.json?["votes"] as? Int == 1, "\(stored.text)")
        }
}
}

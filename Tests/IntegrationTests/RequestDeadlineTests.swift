import Foundation
import Testing

/// A request's work stops at its deadline: a statement stuck behind a lock (a stand-in for any slow statement) is
/// cancelled when the caller stops waiting, answered as a timeout, not run again, and a write the client was
/// told timed out is not applied afterwards. The test stack's request timeout is 3 s.
extension IntegrationSuite {
    @Suite struct RequestDeadline {
        /// posts' statements that mention `className` and are running (or waiting for a lock) right now.
        static func runningStatements(on className: String) throws -> Int {
            let rows = try VotesAPI.sql("parse_posts", """
                SELECT count(*) FROM pg_stat_activity WHERE datname = 'parse_posts' AND state = 'active' \
                AND pid <> pg_backend_pid() AND query LIKE '%\(className)%'
                """)
            return Int(rows.first ?? "") ?? -1
        }

        static func milliseconds(since start: ContinuousClock.Instant, until end: ContinuousClock.Instant = .now) -> String {
            let elapsed = (end - start).components
            return String(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)
        }

        static func lockClass(_ className: String) throws -> TableLock {
            try TableLock(database: "parse_posts", table: "classes.\"\(className)\"", mode: "ACCESS EXCLUSIVE")
        }

        @Test func aReadStuckPastItsDeadlineIsCancelledAndNotRunAgain() async throws {
            let cls = PostsHTTP.uniqueClass("Stuck")
            _ = try await PostsHTTP.create(cls, ["name": "a"])
            let lock = try Self.lockClass(cls)
            defer { lock.release() }
            let started = ContinuousClock.now
            let reply = try await PostsHTTP.send("GET", "/classes/\(cls)")
            print("a read behind a lock answered \(reply.status) after \(Self.milliseconds(since: started)) ms: \(reply.text)")
            #expect(reply.status == 504 && reply.json?["code"] as? Int == 124, "\(reply.text)")
            // The statement is gone from the server, and stays gone: a redelivery would queue behind the lock again.
            var running = try Self.runningStatements(on: cls)
            for _ in 0..<40 where running != 0 {
                try await Task.sleep(for: .milliseconds(50))
                running = try Self.runningStatements(on: cls)
            }
            #expect(running == 0, "the stuck statement still runs after its deadline")
            for _ in 0..<6 {
                try await Task.sleep(for: .milliseconds(250))
                #expect(try Self.runningStatements(on: cls) == 0, "the read ran again")
            }
            lock.release()
            let after = try await PostsHTTP.send("GET", "/classes/\(cls)")
            #expect(after.status == 200 && PostsHTTP.results(after).count == 1, "\(after.text)")
        }

        @Test func aWriteThatTimedOutIsNotAppliedLater() async throws {
            let cls = PostsHTTP.uniqueClass("StuckWrite")
            _ = try await PostsHTTP.create(cls, ["name": "a"])
            let marker = UUID().uuidString
            let lock = try Self.lockClass(cls)
            defer { lock.release() }
            // A new field: the write has to change the table, which waits for the lock.
            let reply = try await PostsHTTP.send("POST", "/classes/\(cls)", ["name": "b", "marker": marker])
            print("a write behind a lock answered \(reply.status): \(reply.text)")
            #expect(reply.status == 504 && reply.json?["code"] as? Int == 124, "\(reply.text)")
            lock.release()
            // Give a write that would still be under way the time to land.
            try await Task.sleep(for: .seconds(1))
            let found = try await PostsHTTP.find(cls, ["where": ["name": "b"]], master: true)
            #expect(found.status == 200 && PostsHTTP.results(found).isEmpty, "\(found.text)")
            let all = try await PostsHTTP.send("GET", "/classes/\(cls)", master: true)
            #expect(PostsHTTP.results(all).count == 1, "\(all.text)")
        }

        @Test func postsServesAgainRightAfterStuckRequestsReachTheirDeadline() async throws {
            let stuck = PostsHTTP.uniqueClass("Stuck")
            let other = PostsHTTP.uniqueClass("Other")
            _ = try await PostsHTTP.create(stuck, ["name": "a"])
            _ = try await PostsHTTP.create(other, ["name": "b"])
            let lock = try Self.lockClass(stuck)
            defer { lock.release() }
            // More stuck requests than posts has database connections (4), while another class is read throughout.
            let started = ContinuousClock.now
            async let stuckReplies = withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 { group.addTask { try await PostsHTTP.send("GET", "/classes/\(stuck)").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            var others: [(at: String, status: Int, ms: String)] = []
            while ContinuousClock.now - started < .seconds(5) {
                let sent = ContinuousClock.now
                let reply = try await PostsHTTP.send("GET", "/classes/\(other)")
                others.append((Self.milliseconds(since: started, until: sent), reply.status, Self.milliseconds(since: sent)))
                try await Task.sleep(for: .milliseconds(200))
            }
            let stuckStatuses = try await stuckReplies
            print("stuck reads: \(stuckStatuses); another class meanwhile (sent at ms, status, latency ms): \(others)")
            #expect(stuckStatuses.count == 6 && stuckStatuses.allSatisfy { $0 == 504 })
            // Once the stuck ones have given up (3 s), the other class is served again, lock or no lock.
            #expect(others.suffix(3).allSatisfy { $0.status == 200 }, "\(others)")
            #expect(try Self.runningStatements(on: stuck) == 0)
        }
    }
}

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    /// `/health/ready` answers 503 when a service's outbox lags past `PARSE_READY_MAX_OUTBOX_AGE_MS`, although
    /// the service answers its ping, and 200 again once the relay caught up.
    @Suite struct ReadinessThresholds {
        /// An event an hour old, committed, then locked by the same session at once and held for `seconds`.
        private static func holdOldOutboxEvent(in database: String, seconds: Int) throws -> pid_t {
            let url = try VotesAPI.url(database)
            // Sent as one simple-query message (psql -c), so the relay, which skips locked rows, has no moment
            // between the commit and the lock to take the row.
            let sql = "BEGIN; INSERT INTO outbox (event_id, routing_key, payload, created_at) VALUES "
                + "('\(UUID().uuidString.lowercased())', 'test.readiness', '{\"type\":\"test.readiness.v1\"}', "
                + "now() - interval '1 hour'); COMMIT; BEGIN; SELECT id FROM outbox WHERE routing_key = 'test.readiness' "
                + "AND published_at IS NULL FOR UPDATE; SELECT pg_sleep(\(seconds)); COMMIT;"
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("readiness-\(UUID().uuidString).sql")
            try Data(sql.utf8).write(to: file)
            let command = "\(VotesAPI.psql) '\(url)' -X -q -t -A -c \"$(cat '\(file.path)')\" >/dev/null; rm -f '\(file.path)'"
            let words: [String] = ["/bin/sh", "-c", command]
            let argv = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else {
                throw PostsTestError(description: "cannot run psql")
            }
            return pid
        }

        private static func wait(_ pid: pid_t) {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }

        @Test func anOutboxLaggingPastTheLimitMakesReadiness503() async throws {
            try TestStack.control(["stop-service", "gateway"])
            try await TestStack.run({
                try TestStack.control(["start-service", "gateway"], settings: ["PARSE_READY_MAX_OUTBOX_AGE_MS": "60000"])
                let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(20)) { $0.status == 200 }
                #expect(ready.status == 200, "\(ready.text)")

                let holder = try Self.holdOldOutboxEvent(in: "parse_files", seconds: 6)
                let lagging = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(5)) { $0.status == 503 }
                #expect(lagging.status == 503, "\(lagging.text)")
                let files = (lagging.json?["services"] as? [String: [String: Any]])?["files"]
                #expect(files?["status"] as? String == "overloaded", "\(lagging.text)")
                #expect((files?["error"] as? String)?.contains("PARSE_READY_MAX_OUTBOX_AGE_MS (60000)") == true, "\(lagging.text)")
                #expect(((files?["outboxLagMs"] as? NSNumber)?.doubleValue ?? 0) > 3_000_000, "\(lagging.text)")
                #expect(((files?["outboxPending"] as? NSNumber)?.intValue ?? 0) >= 1, "\(lagging.text)")
                let posts = (lagging.json?["services"] as? [String: [String: Any]])?["posts"]
                #expect(posts?["status"] as? String == "ok", "\(lagging.text)")

                Self.wait(holder)
                let recovered = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(10)) { $0.status == 200 }
                #expect(recovered.status == 200, "\(recovered.text)")
            }, thenAlways: {
                try TestStack.control(["stop-service", "gateway"])
                try TestStack.control(["start-service", "gateway"])
            })
        }
    }
}

import Foundation
import Testing

extension IntegrationSuite {
    /// `GET /scriptlog` as parse-server answers it (its `spec/LogsRouter.spec.js`, the PHP SDK's `ParseLogsTest`):
    /// the lines of every service, kept in cloud. The test stack keeps them at verbose, with the access lines.
    @Suite struct ScriptLogs {
        static func logs(_ query: [String: String] = [:]) async throws -> [[String: Any]] {
            let reply = try await PostsHTTP.send("GET", "/scriptlog", master: true, query: query)
            #expect(reply.status == 200, "\(reply.text)")
            return try #require((try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]], "\(reply.text)")
        }

        @Test func needsTheMasterKey() async throws {
            let reply = try await PostsHTTP.send("GET", "/scriptlog")
            #expect(reply.status == 403)
            #expect(reply.json?["error"] as? String == "unauthorized: master key is required")
        }

        /// The gateway's line for a request is there for the client's next request, with parse-server's fields.
        /// Several rounds: the gateway also ships its lines every 250 ms, and a round whose line that shipment took
        /// must still find it (the flush for `/scriptlog` waits for the shipment under way).
        @Test func aRequestIsLoggedBeforeItsAnswerLeaves() async throws {
            var marker = ""
            var entries: [[String: Any]] = []
            for _ in 0..<20 {
                marker = "probe\(UInt32.random(in: 0...UInt32.max))"
                let probe = try await PostsHTTP.send("GET", "/classes/ScriptLogProbe", query: ["where": #"{"m":"\#(marker)"}"#])
                #expect(probe.status == 200, "\(probe.text)")
                entries = try await Self.logs(["size": "200"])
                guard entries.contains(where: { ($0["url"] as? String)?.contains(marker) == true }) else { break }
            }
            let line = try #require(entries.first { ($0["url"] as? String)?.contains(marker) == true }, "\(entries.prefix(3))")
            #expect(line["method"] as? String == "GET")
            #expect((line["url"] as? String)?.hasSuffix("/classes/ScriptLogProbe?where={\"m\":\"\(marker)\"}") == true)
            #expect(line["status"] as? String == "200")
            #expect(line["level"] as? String == "verbose")
            #expect(line["service"] as? String == "gateway")
            #expect((line["message"] as? String)?.hasPrefix("GET ") == true)
            #expect(line["request.id"] is String)
            let timestamp = try #require(line["timestamp"] as? String)
            #expect(timestamp.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
        }

        @Test func aPasswordInTheQueryIsMasked() async throws {
            let username = "scriptlog\(UInt32.random(in: 0...UInt32.max))"
            _ = try await PostsHTTP.send("GET", "/login", query: ["username": username, "password": "simple@pass.com"])
            let reply = try await PostsHTTP.send("GET", "/scriptlog", master: true, query: ["size": "1000"])
            #expect(!reply.text.contains("simple@pass.com"))
            let entries = try #require((try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]])
            let line = try #require(entries.first { ($0["url"] as? String)?.contains(username) == true })
            #expect((line["url"] as? String)?.contains("password=********") == true, "\(line)")
        }

        @Test func sizeOrderAndTimeWindow() async throws {
            for _ in 0..<3 { _ = try await PostsHTTP.send("GET", "/classes/ScriptLogProbe") }
            let newest = try await Self.logs(["size": "3"])
            #expect(newest.count == 3)
            let stamps = newest.compactMap { $0["timestamp"] as? String }
            #expect(stamps == stamps.sorted(by: >))
            let oldest = try await Self.logs(["n": "3", "order": "asc"])
            let ascending = oldest.compactMap { $0["timestamp"] as? String }
            #expect(ascending.count == 3 && ascending == ascending.sorted())
            #expect(ascending.last! <= stamps.last!)
            #expect(try await Self.logs(["size": "1"]).count == 1)
            #expect(try await Self.logs(["size": "nonsense"]).count == 10)
            let future = ISO8601DateFormatter().string(from: Date().addingTimeInterval(4 * 3_600))
            #expect(try await Self.logs(["from": future, "size": "5"]).isEmpty)
            #expect(try await Self.logs(["until": "1950-01-01T00:00:00.000Z", "size": "5"]).isEmpty)
        }

        /// `level=error` answers the error lines only: a failed function's line, not the access lines.
        @Test func errorsAlone() async throws {
            let marker = "failing\(UInt32.random(in: 0...UInt32.max))"
            let refused = try await CloudAPI.run("refuse", ["code": 142, "message": marker])
            #expect(refused.status == 400)
            let line = try await Self.eventually { entries in
                entries.first { ($0["message"] as? String)?.contains(marker) == true }
            } query: { ["level": "error", "size": "1000"] }
            #expect(line["level"] as? String == "error")
            #expect(line["service"] as? String == "cloud")
            #expect(line["functionName"] as? String == "refuse")
            #expect((line["message"] as? String)?.hasPrefix("Failed running cloud function refuse for user undefined") == true)
            let errors = try await Self.logs(["level": "error", "size": "1000"])
            #expect(errors.allSatisfy { $0["level"] as? String == "error" })
        }

        /// A function's run, logged by cloud, arrives there too (a shipment later than the gateway's own lines).
        @Test func cloudFunctionRunsAreLogged() async throws {
            let marker = "ran\(UInt32.random(in: 0...UInt32.max))"
            let reply = try await CloudAPI.run("echo", ["marker": marker])
            #expect(reply.status == 200, "\(reply.text)")
            let line = try await Self.eventually { entries in
                entries.first { ($0["message"] as? String)?.contains(marker) == true && $0["service"] as? String == "cloud" }
            } query: { ["size": "1000"] }
            #expect(line["message"] as? String
                    == "Ran cloud function echo for user undefined with:\n  Input: {\"marker\":\"\(marker)\"}\n  Result: {\"marker\":\"\(marker)\"}")
            #expect(line["level"] as? String == "info")
            // The worker's own line, Cloud Code's `console.log`, with the same request id.
            let said = try await Self.eventually { entries in
                entries.first { $0["service"] as? String == "cloud-worker" && $0["message"] as? String == "echo called"
                    && $0["request.id"] as? String == line["request.id"] as? String }
            } query: { ["size": "1000"] }
            #expect(said["functionName"] as? String == "echo" && said["keys"] as? String == "marker")
        }

        /// A client's `traceparent` joins every line of its request, in every process it crosses.
        @Test func oneTraceIdFollowsARequestThroughTheServices() async throws {
            let traceId = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 1...UInt32.max)) }.joined()
            let marker = "traced\(UInt32.random(in: 0...UInt32.max))"
            let reply = try await CloudAPI.run("echo", ["marker": marker],
                                               headers: ["traceparent": "00-\(traceId)-00f067aa0ba902b7-01"])
            #expect(reply.status == 200, "\(reply.text)")
            let ran = try await Self.eventually { entries in
                entries.first { ($0["message"] as? String)?.contains(marker) == true && $0["service"] as? String == "cloud" }
            } query: { ["size": "1000"] }
            #expect(ran["trace.id"] as? String == traceId)
            let access = try #require(try await Self.logs(["size": "1000"]).first {
                $0["service"] as? String == "gateway" && ($0["url"] as? String)?.hasSuffix("/functions/echo") == true
                    && $0["trace.id"] as? String == traceId
            })
            #expect(access["request.id"] as? String == ran["request.id"] as? String)
        }

        /// The envelope: an event names the client's request (`correlationid`), the command whose handling wrote it
        /// (`causationid`) and the trace; the lines logged while that command ran name the same message.
        @Test func anEventNamesTheRequestAndTheCommandThatWroteIt() async throws {
            let traceId = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 1...UInt32.max)) }.joined()
            let requestId = "envelope-" + UUID().uuidString
            let className = PostsHTTP.uniqueClass("Envelope")
            let created = try await PostsHTTP.send("POST", "/classes/\(className)", ["name": "traced"], headers: [
                "X-Parse-Request-Id": requestId, "traceparent": "00-\(traceId)-00f067aa0ba902b7-01"])
            let id = try #require(created.json?["objectId"] as? String, "\(created.text)")
            let rows = try VotesAPI.sql("parse_posts", """
                SELECT payload->>'correlationid' || '|' || COALESCE(payload->>'causationid', '') || '|' || COALESCE(payload->>'traceparent', '')
                FROM outbox WHERE payload->>'subject' = '\(className)/\(id)'
                """)
            let parts = try #require(rows.first, "no event for the create").split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            #expect(parts.count == 3 && parts[0] == requestId, "\(rows)")
            #expect(parts.count == 3 && UUID(uuidString: parts[1]) != nil, "the causation is the command's message id: \(rows)")
            #expect(parts.count == 3 && parts[2].hasPrefix("00-\(traceId)-"), "\(rows)")
            // A line logged while a command runs names its message and its request, whichever logger writes it.
            let marker = "enveloped\(UInt32.random(in: 0...UInt32.max))"
            let echoId = "envelope-" + UUID().uuidString
            let reply = try await CloudAPI.run("echo", ["marker": marker], headers: ["X-Parse-Request-Id": echoId])
            #expect(reply.status == 200, "\(reply.text)")
            let ran = try await Self.eventually { entries in
                entries.first { ($0["message"] as? String)?.contains(marker) == true && $0["service"] as? String == "cloud" }
            } query: { ["size": "1000"] }
            #expect(ran["request.id"] as? String == echoId)
            #expect((ran["msg.id"] as? String).flatMap(UUID.init(uuidString:)) != nil, "\(ran)")
        }

        /// Polls for up to 10 s: the services other than the gateway send their lines every quarter second.
        static func eventually(_ find: ([[String: Any]]) -> [String: Any]?,
                               query: () -> [String: String]) async throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(10)
            while true {
                if let found = find(try await logs(query())) { return found }
                guard Date() < deadline else {
                    Issue.record("no such log line within 10 s")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

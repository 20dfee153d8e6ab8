import Foundation
import Testing

extension IntegrationSuite {
    /// SIGTERM to a service in the middle of a stream of writes: it stops taking commands, finishes and answers the
    /// ones it holds, then exits; what arrives meanwhile waits in its queue for the next process (or, past the
    /// request's timeout, gets a 504 that the client's retry with the same request id resolves).
    @Suite struct GracefulStop {
        actor Ledger {
            struct Attempt { let requestId: String; let sentBeforeStop: Bool; let status: Int }
            var attempts: [Attempt] = []
            var stopAt: ContinuousClock.Instant?
            func record(_ attempt: Attempt) { attempts.append(attempt) }
            func stopping() { stopAt = .now }
            func sentBeforeStop(_ instant: ContinuousClock.Instant) -> Bool { stopAt.map { instant < $0 } ?? true }
        }

        @Test func aStopDuringAStreamOfCreatesAnswersWhatItHeldAndLosesNothing() async throws {
            let className = PostsHTTP.uniqueClass("Stream")
            let first = try await PostsHTTP.send("POST", "/classes/\(className)", ["n": -1], master: true)
            #expect(first.status == 201)
            let ledger = Ledger()
            let running = ContinuousClock.now + .seconds(6)
            let clients = (0..<6).map { client in
                Task {
                    var n = 0
                    while ContinuousClock.now < running {
                        n += 1
                        let requestId = "stream-\(client)-\(n)-\(UUID().uuidString)"
                        // One request id for every try: the server applies it once however often it is sent.
                        var tries = 0
                        while tries < 20 {
                            tries += 1
                            let sent = ContinuousClock.now
                            let reply = try await PostsHTTP.send("POST", "/classes/\(className)", ["client": client, "n": n],
                                                                 headers: ["X-Parse-Request-Id": requestId])
                            await ledger.record(.init(requestId: requestId, sentBeforeStop: await ledger.sentBeforeStop(sent),
                                                      status: reply.status))
                            if reply.status == 201 { break }
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                }
            }
            try await Task.sleep(for: .seconds(1))
            await ledger.stopping()
            try TestStack.control(["stop-service", "posts"])
            try TestStack.control(["start-service", "posts"])
            for client in clients { try await client.value }

            let attempts = await ledger.attempts
            let requests = Set(attempts.map(\.requestId))
            let created = Set(attempts.filter { $0.status == 201 }.map(\.requestId))
            #expect(created == requests, "every request is created in the end")
            #expect(attempts.allSatisfy { [201, 503, 504].contains($0.status) },
                    "only timeouts while no posts runs, never a 500: \(Set(attempts.map(\.status)))")
            let beforeStop = attempts.filter(\.sentBeforeStop)
            #expect(!beforeStop.isEmpty && beforeStop.allSatisfy { $0.status == 201 },
                    "every request sent before the SIGTERM is answered by the stopping process")
            let counted = try await PostsHTTP.find(className, ["count": 1, "limit": 0], master: true)
            #expect(counted.json?["count"] as? Int == requests.count + 1, "each request stored once: \(counted.text)")
            let log = try String(contentsOfFile: "\(TestStack.folder)/logs/posts.log", encoding: .utf8)
            #expect(log.contains(#""msg":"stopping","signal":"SIGTERM""#) && log.contains(#""msg":"stopped""#),
                    "posts took the SIGTERM, drained and stopped on its own")
            print("graceful stop: \(requests.count) creates, \(attempts.count - requests.count) retried after a 503/504,",
                  "\(beforeStop.count) sent before the SIGTERM")
        }
    }
}

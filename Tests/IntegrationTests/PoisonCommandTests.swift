import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Testing

extension IntegrationSuite {
    /// A command that crashes the service handling it (`fault.crash.v1`; the test stack sets
    /// `PARSE_FAULT_INJECTION=1`) crashes it once: the restarted service finds the command in the crashed process's
    /// journal when the broker delivers it again, dead-letters it without running it, answers its caller with
    /// code 1, and stays up.
    @Suite struct PoisonCommand {
        static let folder = TestStack.folder

        static func crashes() throws -> Int {
            let log = try String(contentsOfFile: "\(folder)/logs/posts.log", encoding: .utf8)
            return log.components(separatedBy: "fault.crash.v1: crashing on purpose").count - 1
        }

        static func postsPid() throws -> String {
            try String(contentsOfFile: "\(folder)/run/posts.pid", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        @Test func aCommandThatCrashesTheServiceIsRunOnceThenDeadLettered() async throws {
            let url = try AMQPURL(try #require(TestStack.environment["PARSE_TEST_AMQP_URL"]))
            let client = RPCClient(url: url, name: "poison-tests", eventExchange: "parse.events",
                                   logger: Logger(service: "tests", level: .error))
            client.start()
            defer { Task { await client.stop() } }
            let connected = ContinuousClock.now + .seconds(10)
            while !client.isConnected && ContinuousClock.now < connected { try await Task.sleep(for: .milliseconds(50)) }

            let crashesBefore = try Self.crashes()
            let pidBefore = try Self.postsPid()
            let requestId = "poison-\(UUID().uuidString)"

            let call = Task {
                try await client.send(CrashService.type, CrashService(), to: .posts, requestId: requestId,
                                      identity: .master, timeout: .seconds(40), expecting: Empty.self)
            }
            // The stack's supervisor restarts posts after its crash; started here too if it has not come back soon.
            let crashed = ContinuousClock.now + .seconds(20)
            while try Self.crashes() == crashesBefore && ContinuousClock.now < crashed {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try Self.crashes() == crashesBefore + 1, "posts did not crash on fault.crash.v1")
            let restarted = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(15)) {
                ($0.json?["services"] as? [String: [String: Any]])?["posts"]?["status"] as? String == "ok"
            }
            if (restarted.json?["services"] as? [String: [String: Any]])?["posts"]?["status"] as? String != "ok" {
                try TestStack.control(["start-service", "posts"])
            }

            let outcome = await call.result
            switch outcome {
            case .success: Issue.record("the poison command was answered as a success")
            case .failure(let error):
                #expect((error as? ParseError)?.code == .internalServerError, "answered \(error)")
            }
            #expect(try Self.crashes() == crashesBefore + 1, "the redelivered command crashed posts again")
            #expect(try Self.postsPid() != pidBefore)
            // The reply can overtake the rejected command on its way to the dead-letter queue.
            let queues = DeadLetterQueues(url: url)
            var kept: DeadLetter?
            for _ in 0..<50 where kept == nil {
                kept = try queues.list("posts", limit: 10_000).first { $0.headers[Envelope.correlationHeader] == requestId }
                if kept == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(kept?.type == CrashService.type)
            #expect(kept?.reason == "rejected")
            let read = try await PostsHTTP.send("GET", "/classes/GameScore", master: true)
            #expect(read.status == 200, "posts answers after the crash: \(read.status) \(read.text)")
        }
    }
}

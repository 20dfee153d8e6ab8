import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Testing

extension IntegrationSuite {
    /// What the writing services ask cloud (`cloud.triggers.list.v1`, `cloud.trigger.run.v1`), sent here over the
    /// broker as they send it, with a webhook trigger registered through `/parse/hooks`.
    @Suite struct CloudTriggerDispatch {
        static let client: RPCClient? = {
            guard let text = TestStack.environment["PARSE_TEST_AMQP_URL"], let url = try? AMQPURL(text) else { return nil }
            let client = RPCClient(url: url, name: "cloud-trigger-tests", eventExchange: "parse.events",
                                   logger: Logger(service: "tests", level: .error))
            client.start()
            return client
        }()

        func send<Payload: Codable & Sendable, Result: Codable & Sendable>(_ type: String, _ payload: Payload,
                                                                          as: Result.Type) async throws -> Result {
            let client = try #require(Self.client)
            let deadline = ContinuousClock.now + .seconds(10)
            while !client.isConnected && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            return try await client.send(type, payload, to: .cloud, requestId: UUID().uuidString, identity: .anonymous,
                                         timeout: .seconds(5))
        }

        static func hooksChangedEvents() throws -> Int {
            guard let scratch = TestStack.environment["PARSE_TEST_DATABASE_URL"], let slash = scratch.lastIndex(of: "/") else {
                throw AuthTestError(description: "no PARSE_TEST_DATABASE_URL")
            }
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)").path
            let psql = try #require(["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            })
            let status = try Spawned.run([psql, "-At", "-o", output, String(scratch[..<slash]) + "/parse_cloud", "-c",
                                          "SELECT count(*) FROM outbox WHERE routing_key = 'hooks.changed'"])
            defer { try? FileManager.default.removeItem(atPath: output) }
            guard status == 0 else { throw AuthTestError(description: "psql failed with status \(status)") }
            return Int(try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        @Test func aWebhookTriggerIsListedRunAndMapped() async throws {
            let receiver = try WebhookReceiver { body in
                var object = body["object"] as? [String: Any] ?? [:]
                if object["name"] as? String == "refuse" { return ["error": "No refusals here."] }
                object["name"] = "changed"
                return ["success": object]
            }
            let className = PostsHTTP.uniqueClass("Triggered")
            let key = TriggerKey(className: className, triggerName: .beforeSave)
            let eventsBefore = try Self.hooksChangedEvents()
            let created = try await PostsHTTP.send("POST", "/hooks/triggers",
                                                   ["className": className, "triggerName": "beforeSave", "url": receiver.url],
                                                   master: true)
            #expect(created.status == 200, "\(created.text)")
            #expect(try Self.hooksChangedEvents() == eventsBefore + 1)
            let listed = try await send(ListTriggers.type, ListTriggers(), as: TriggerRegistrations.self)
            #expect(listed.triggers.contains(key))

            let run = RunTrigger(key: key, object: .object(["objectId": .string("o1"), "name": .string("Tom")]),
                                 context: .object(["from": .string("test")]), headers: ["user-agent": "t"], ip: "::1")
            let result = try await send(RunTrigger.type, run, as: TriggerResult.self)
            #expect(result.object?["name"] == .string("changed"))
            #expect(result.object?["className"] == nil, "parse-server drops className from a beforeSave answer")
            let call = try #require(receiver.calls.last)
            #expect(call.headers["x-parse-webhook-key"] == CloudAPI.webhookKey)
            #expect(call.body["triggerName"] as? String == "beforeSave")
            #expect((call.body["object"] as? [String: Any])?["className"] as? String == className)
            #expect(CloudAPI.text(call.body["context"]) == #"{"from":"test"}"#)

            var refused = run
            refused.object = .object(["name": .string("refuse")])
            await #expect(throws: ParseError(.scriptFailed, "No refusals here.")) {
                _ = try await send(RunTrigger.type, refused, as: TriggerResult.self)
            }

            _ = try await PostsHTTP.send("PUT", "/hooks/triggers/\(className)/beforeSave", ["__op": "Delete"], master: true)
            #expect(try Self.hooksChangedEvents() == eventsBefore + 2)
            let after = try await send(ListTriggers.type, ListTriggers(), as: TriggerRegistrations.self)
            #expect(!after.triggers.contains(key))
            let calls = receiver.calls.count
            #expect(try await send(RunTrigger.type, run, as: TriggerResult.self) == TriggerResult())
            #expect(receiver.calls.count == calls, "an unregistered trigger calls nobody")
            await receiver.stop()
        }

        @Test func theExampleWorkersTriggersAreListed() async throws {
            let listed = try await send(ListTriggers.type, ListTriggers(), as: TriggerRegistrations.self)
            for trigger in [TriggerName.beforeSave, .afterSave, .beforeDelete, .beforeFind] {
                #expect(listed.triggers.contains(TriggerKey(className: "CloudTriggerCat", triggerName: trigger)))
            }
            let run = RunTrigger(key: TriggerKey(className: "CloudTriggerCat", triggerName: .beforeSave),
                                 object: .object(["name": .string("Tom")]))
            let result = try await send(RunTrigger.type, run, as: TriggerResult.self)
            #expect(result.object?["checked"] == .bool(true))
            #expect(result.object?["nameLength"] == .number(3))
            var refused = run
            refused.object = .object(["name": .string("refuse")])
            await #expect(throws: ParseError(.validationError, "This name is refused.")) {
                _ = try await send(RunTrigger.type, refused, as: TriggerResult.self)
            }
        }
    }
}

import Foundation
import ParseWire

/// Registering trigger webhooks through `/parse/hooks/triggers` (master key) and waiting until the writing services
/// have heard of them (`hooks.changed` reaches them a moment after the registration answers).
enum TriggerHooks {
    static func register(_ className: String, _ triggerName: String, url: String) async throws {
        let reply = try await PostsHTTP.send("POST", "/hooks/triggers",
                                             ["className": className, "triggerName": triggerName, "url": url], master: true)
        guard reply.status == 200 else { throw PostsTestError(description: "hook not registered: \(reply.status) \(reply.text)") }
    }

    static func update(_ className: String, _ triggerName: String, url: String) async throws {
        let reply = try await PostsHTTP.send("PUT", "/hooks/triggers/\(className)/\(triggerName)", ["url": url], master: true)
        guard reply.status == 200 else { throw PostsTestError(description: "hook not updated: \(reply.status) \(reply.text)") }
    }

    static func remove(_ className: String, _ triggerName: String) async throws {
        _ = try await PostsHTTP.send("PUT", "/hooks/triggers/\(className)/\(triggerName)", ["__op": "Delete"], master: true)
    }

    /// Registers a beforeFind on `className` that changes nothing and finds with it until posts calls it: from then
    /// on posts knows every registration made before it.
    static func waitUntilPostsKnows(_ className: String, receiver: TriggerWebhookReceiver) async throws {
        let path = "/probe/\(className)"
        receiver.handle(path) { _ in .object(["success": .object([:])]) }
        try await register(className, "beforeFind", url: receiver.url(path))
        let deadline = ContinuousClock.now + .seconds(15)
        while receiver.calls(path).isEmpty {
            guard ContinuousClock.now < deadline else { throw PostsTestError(description: "posts never ran the probe trigger") }
            _ = try await PostsHTTP.send("GET", "/classes/\(className)", master: true)
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Repeats `attempt` until `done` holds for its reply (the services learn of a registration a moment late).
    static func retry(_ attempt: () async throws -> Reply, until done: (Reply) -> Bool,
                      for limit: Duration = .seconds(15)) async throws -> Reply {
        let deadline = ContinuousClock.now + limit
        while true {
            let reply = try await attempt()
            if done(reply) || ContinuousClock.now > deadline { return reply }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func success(_ value: JSONValue) -> JSONValue { .object(["success": value]) }
    static func refusal(_ code: Int, _ message: String) -> JSONValue {
        .object(["error": .object(["code": .number(Double(code)), "message": .string(message)])])
    }
}

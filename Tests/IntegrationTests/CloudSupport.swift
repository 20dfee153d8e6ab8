import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Calls to the Cloud Code routes, and worker processes of the tests' own.
enum CloudAPI {
    static let webhookKey = TestStack.environment["PARSE_TEST_WEBHOOK_KEY"] ?? "testWebhookKey"
    static let timeoutMilliseconds = TestStack.environment["PARSE_TEST_CLOUD_TIMEOUT_MS"] ?? "1500"

    static func run(_ function: String, _ params: [String: Any] = [:], token: String? = nil, master: Bool = false,
                    headers extra: [String: String] = [:]) async throws -> Reply {
        var headers = AuthAPI.headers(token: token, master: master)
        headers.merge(extra) { $1 }
        return try await HTTP.send("POST", "/functions/\(function)", headers: headers, body: AuthAPI.json(params))
    }

    /// A JSON value as sorted compact text, so decoded values compare whatever types Foundation picked.
    static func text(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { return "nil" }
        return String(decoding: data, as: UTF8.self)
    }

    static func uniqueName(_ prefix: String) -> String {
        prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10)
    }

    /// A `_JobStatus` row once its job is no longer running (jobs may outlast the start's answer).
    static func finishedJob(_ id: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let reply = try await PostsHTTP.send("GET", "/classes/_JobStatus/\(id)", master: true)
            let status = reply.json?["status"] as? String
            if status != "running" || ContinuousClock.now > deadline { return reply.json ?? [:] }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Another example worker on the stack's queue, named `instance`, stopped (SIGTERM) when the body returns.
    static func withSecondWorker(instance: String, _ body: () async throws -> Void) async throws {
        let binary = (TestStack.environment["PARSE_TEST_BIN_DIR"] ?? ".build/debug") + "/cloud-example-worker"
        let settings = [
            "PARSE_CLOUD_WORKER_INSTANCE": instance, "PARSE_SERVER_URL": TestStack.serverURL,
            "PARSE_SERVER_APPLICATION_ID": TestStack.applicationId, "PARSE_SERVER_MASTER_KEY": TestStack.masterKey,
            "PARSE_LOG_LEVEL": "warning",
        ]
        let argv = [strdup(binary), nil]
        let envp = TestStack.environment.merging(settings) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, nil, nil, argv, envp) == 0 else {
            throw TestStack.StackError(description: "cannot start \(binary)")
        }
        try await TestStack.run(body, thenAlways: {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        })
    }
}

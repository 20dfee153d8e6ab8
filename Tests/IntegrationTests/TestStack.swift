import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The running test stack that `deploy/stack test` starts (real PostgreSQL, RabbitMQ, the five services) and
/// describes through environment variables. Without them these tests are skipped: run them with
/// `deploy/stack test`.
enum TestStack {
    static let environment = ProcessInfo.processInfo.environment
    static let isAvailable = environment["PARSE_TEST_SERVER_URL"] != nil
    static let serverURL = environment["PARSE_TEST_SERVER_URL"] ?? "http://127.0.0.1:21337/parse"
    static let applicationId = environment["PARSE_TEST_APPLICATION_ID"] ?? "myAppId"
    static let masterKey = environment["PARSE_TEST_MASTER_KEY"] ?? "myMasterKey"
    static let readOnlyMasterKey = environment["PARSE_TEST_READ_ONLY_MASTER_KEY"] ?? "myReadOnlyMasterKey"
    static let maintenanceKey = environment["PARSE_TEST_MAINTENANCE_KEY"] ?? "myMaintenanceKey"
    static let script = environment["PARSE_TEST_STACK"] ?? "deploy/stack"
    /// The stack's folder: `logs/<process>.log`, `run/<process>.pid`.
    static let folder = environment["PARSE_STACK_DIR"] ?? environment["PARSE_TEST_STACK_DIR"]
        ?? FileManager.default.currentDirectoryPath + "/.stack/test"

    /// The resident size of a stack process, read from /proc through the pid file the stack script keeps.
    static func residentBytes(_ service: String) -> Int? {
        guard let pidText = try? String(contentsOfFile: "\(folder)/run/\(service).pid", encoding: .utf8),
              let pid = Int(pidText.trimmingCharacters(in: .whitespacesAndNewlines)),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    /// A JSON answer that came back from a service, not one the gateway made up because no service answered
    /// (503 broker unreachable, 504 timeout) or because the request never got past the keys (403).
    static func answeredByAService(_ reply: Reply) -> Bool {
        ![403, 503, 504].contains(reply.status) && reply.json != nil
    }

    /// Runs `body` while a part of the stack is stopped, and starts it again even when `body` fails.
    static func `while`(_ stop: [String], restartWith start: [String], _ body: () async throws -> Void) async throws {
        try control(stop)
        try await run(body, thenAlways: { try control(start) })
    }

    /// Runs `body`, then `restore` whatever `body` did; `body`'s error wins over `restore`'s success.
    static func run(_ body: () async throws -> Void, thenAlways restore: () async throws -> Void) async throws {
        let outcome: Result<Void, any Error>
        do {
            try await body()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try await restore()
        try outcome.get()
    }

    /// Runs `deploy/stack <arguments>` against the test stack, with `settings` added to the environment (a
    /// service started so keeps them until it is started again without); fails the test on a non-zero exit.
    /// posix_spawn and waitpid rather than Foundation's Process, whose exit detection was seen to hang here.
    static func control(_ arguments: [String], settings: [String: String] = [:]) throws {
        try control(arguments, settings: settings, output: nil)
    }

    /// The same, answering what the script printed.
    static func output(_ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stack-output-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try control(arguments, settings: [:], output: file.path)
        return try String(contentsOf: file, encoding: .utf8)
    }

    private static func control(_ arguments: [String], settings: [String: String], output: String?) throws {
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
        let envp = environment.merging(settings) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output { posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp) == 0 else {
            throw StackError(description: "cannot run \(script)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitCode = (status >> 8) & 0xff
        guard status & 0x7f == 0, exitCode == 0 else {
            throw StackError(description: "deploy/stack \(arguments.joined(separator: " ")) failed (status \(status))")
        }
    }

    struct StackError: Error, CustomStringConvertible { let description: String }
}

/// A plain HTTP response as the tests look at it.
struct Reply {
    let status: Int
    let headers: [String: String]
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// HTTP through URLSession with the cache off: Foundation's URL cache on Linux answers repeated requests
/// without reaching the server.
enum HTTP {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    static func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil,
                     base: String = TestStack.serverURL) async throws -> Reply {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    static var appHeaders: [String: String] { ["X-Parse-Application-Id": TestStack.applicationId] }

    /// Polls until `condition` holds or `timeout` passes; returns the last reply.
    static func waitFor(_ method: String, _ path: String, timeout: Duration,
                        until condition: (Reply) -> Bool) async throws -> Reply {
        let deadline = ContinuousClock.now + timeout
        while true {
            let reply = try await send(method, path)
            if condition(reply) || ContinuousClock.now > deadline { return reply }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}

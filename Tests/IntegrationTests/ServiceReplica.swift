import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A second process of one of the test stack's services, beside the one `deploy/stack` runs: the two take the
/// service's commands in turns (competing consumers), so a test's write and its next read are often handled by
/// different processes, each with caches of its own. Started from the same binary with the stack's settings
/// (exported to the tests by `deploy/stack test`), its log in `logs/<name>-replica.log`, its metrics off.
final class ServiceReplica {
    let name: String
    let pid: pid_t

    private init(name: String, pid: pid_t) {
        self.name = name
        self.pid = pid
    }

    /// Starts the replica and waits until its log says `readyLine` once more. `settings` replace the stack's (a
    /// listening port, for a service that has one).
    static func start(_ name: String, settings: [String: String] = [:],
                      readyLine: String = "consuming commands") async throws -> ServiceReplica {
        let binDir = TestStack.environment["PARSE_TEST_BIN_DIR"] ?? FileManager.default.currentDirectoryPath + "/.build/debug"
        guard let database = TestStack.environment["PARSE_TEST_DATABASE_URL"],
              let slash = database.range(of: "/", options: .backwards) else {
            throw StackError("PARSE_TEST_DATABASE_URL is not set")
        }
        var environment = TestStack.environment
        environment["PARSE_AMQP_URL"] = TestStack.environment["PARSE_TEST_AMQP_URL"]
        environment["PARSE_DATABASE_URL"] = database[..<slash.lowerBound] + "/parse_\(name)"
        environment["PARSE_METRICS"] = "0"
        environment.merge(settings) { $1 }
        let log = "\(TestStack.folder)/logs/\(name)-replica.log"
        let command = "exec '\(binDir)/\(name)' >> '\(log)' 2>&1"
        func starts() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: readyLine).count
        }
        let before = starts()
        let pid = try Spawned.start(["/bin/sh", "-c", command], environment: environment)
        let replica = ServiceReplica(name: name, pid: pid)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if starts() > before { return replica }
            if kill(pid, 0) != 0 { throw StackError("\(name) replica exited during start-up; see \(log)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        await replica.stop()
        throw StackError("\(name) replica did not start within 60 s; see \(log)")
    }

    /// SIGTERM, and waits for it to drain and exit.
    func stop() async {
        kill(pid, SIGTERM)
        _ = Spawned.wait(pid)
    }

    /// Runs `body` with a replica of `name` beside the stack's own process, and stops it afterwards.
    static func with(_ name: String, settings: [String: String] = [:], readyLine: String = "consuming commands",
                     _ body: () async throws -> Void) async throws {
        let replica = try await start(name, settings: settings, readyLine: readyLine)
        try await TestStack.run(body, thenAlways: { await replica.stop() })
    }

    struct StackError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

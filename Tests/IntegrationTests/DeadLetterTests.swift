import Foundation
import Testing

extension IntegrationSuite {
    /// What lands in `<queue>.dead` when a service is down, how `/health/ready` counts it, and the operators'
    /// `dead-letters` tool.
    @Suite struct DeadLetters {
        private static func readinessCounts() async throws -> [String: Int] {
            let reply = try await HTTP.send("GET", "/health/ready")
            return try #require(reply.json?["deadLetters"] as? [String: Int], "readiness: \(reply.text)")
        }

        /// Runs `.build/debug/dead-letters` against the test stack's broker; its standard output.
        private static func tool(_ arguments: [String]) throws -> String {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("dead-letters-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: output) }
            var environment = TestStack.environment
            environment["PARSE_AMQP_URL"] = environment["PARSE_TEST_AMQP_URL"]
            let binary = FileManager.default.currentDirectoryPath + "/.build/debug/dead-letters"
            let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(output.path)'"
            let status = Spawned.wait(try Spawned.start(["/bin/sh", "-c", command], environment: environment))
            #expect(status == 0, "dead-letters \(arguments) exited with \(status)")
            return try String(contentsOf: output, encoding: .utf8)
        }

        @Test func commandsThatExpireWhileTheirServiceIsDownAreKeptCountedAndPurged() async throws {
            let stored = try await FilesAPI.store("kept.txt", Data("k".utf8))
            let before = try await Self.readinessCounts()
            #expect(Set(before.keys) == ["auth", "posts", "votes", "files", "cloud"])

            try await TestStack.while(["stop-service", "files"], restartWith: ["start-service", "files"]) {
                let reply = try await FilesAPI.get(stored.url)
                #expect(reply.status == 504)
                // The download's command expires in the queue a moment after the 504 and is dead-lettered.
                let counted = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(15)) {
                    (($0.json?["deadLetters"] as? [String: Int])?["files"] ?? 0) > (before["files"] ?? 0)
                }
                #expect(counted.status == 503, "files is still stopped")
            }
            _ = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(30)) { $0.status == 200 }

            let listed = try Self.tool(["list", "--queue", "files", "--limit", "1000"])
            let lines = listed.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            #expect(lines.contains { $0["type"] as? String == "file.open.v2" && $0["reason"] as? String == "expired" },
                    "\(listed)")
            let counted = try Self.tool(["count", "--queue", "files"])
            #expect(counted.contains(#""files":"#), "\(counted)")

            #expect(try Self.tool(["purge", "--queue", "files"]).contains(#""purged":"#))
            #expect(try await Self.readinessCounts()["files"] == 0)
        }
    }
}

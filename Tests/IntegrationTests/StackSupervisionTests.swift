import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    /// `deploy/stack` supervises what it starts: a service killed with SIGKILL is started again by itself, answers
    /// again, and `deploy/stack status` says it was restarted and why.
    @Suite struct StackSupervision {
        static let folder = TestStack.folder

        static func pid(_ name: String) -> pid_t? {
            (try? String(contentsOfFile: "\(folder)/run/\(name).pid", encoding: .utf8))
                .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }

        /// `deploy/stack status`'s output.
        static func status() throws -> String {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: output) }
            let command = "'\(TestStack.script)' status > '\(output)' 2>&1"
            _ = Spawned.wait(try Spawned.start(["/bin/bash", "-c", command], environment: TestStack.environment))
            return try String(contentsOfFile: output, encoding: .utf8)
        }

        @Test func aKilledServiceIsStartedAgainByItsSupervisor() async throws {
            let stored = try await FilesAPI.store("supervised.txt", Data("s".utf8))
            let before = try #require(Self.pid("files"))
            kill(before, SIGKILL)
            let deadline = ContinuousClock.now + .seconds(30)
            var after: pid_t?
            while ContinuousClock.now < deadline {
                if let now = Self.pid("files"), now != before, kill(now, 0) == 0 { after = now; break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(after != nil, "files was not started again")
            let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(30)) {
                ($0.json?["services"] as? [String: [String: Any]])?["files"]?["status"] as? String == "ok"
            }
            #expect(ready.status == 200, "\(ready.text)")
            let read = try await FilesAPI.get(stored.url)
            #expect(read.status == 200)
            let status = try Self.status()
            let line = status.split(separator: "\n").first { $0.hasPrefix("files") }.map(String.init) ?? ""
            #expect(line.contains("running") && line.contains("killed by signal 9 (KILL)"), "\(status)")
        }
    }
}

import Foundation
import Storage

/// Ends server sessions from another connection, as an administrator or a server restart would.
enum ServerSessions {
    /// Terminates every session with this application name and waits until the server has ended them.
    @discardableResult
    static func terminate(applicationName: String) async throws -> Int {
        let admin = try await PostgresConnection.connect(url: TestDatabase.url)
        let terminated = try await admin.query(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1",
            [applicationName])
        for _ in 0..<100 {
            let remaining = try await admin.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [applicationName])
            if remaining.first?.int("n") == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await admin.close()
        return terminated.first?.int("n") ?? 0
    }

    static func count(applicationName: String) async throws -> Int {
        let admin = try await PostgresConnection.connect(url: TestDatabase.url)
        let result = try await admin.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [applicationName])
        await admin.close()
        return result.first?.int("n") ?? -1
    }
}

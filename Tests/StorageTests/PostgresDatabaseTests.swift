import Storage
import Testing

struct PostgresDatabaseNameTests {
    @Test func readsTheNameFromURIsAndConninfo() throws {
        #expect(try PostgresDatabase.name(in: "postgres://user:secret@db.example:5432/parse_votes?sslmode=disable") == "parse_votes")
        #expect(try PostgresDatabase.name(in: "postgresql:///local%2Dname") == "local-name")
        #expect(try PostgresDatabase.name(in: "host=127.0.0.1 port=5432 dbname=auth user=parse") == "auth")
    }

    @Test func rejectsURLsWithoutAName() {
        #expect(throws: PostgresError.self) { try PostgresDatabase.name(in: "postgres://user@host:5432") }
        #expect(throws: PostgresError.self) { try PostgresDatabase.name(in: "host=x port=") }
        #expect(throws: PostgresError.self) { try PostgresDatabase.name(in: "not a url = =") }
    }
}

@Suite(.enabled(if: TestDatabase.isConfigured))
struct PostgresDatabaseTests {
    @Test func ensureExistsCreatesOnceAndIsIdempotent() async throws {
        let name = TestDatabase.uniqueName("ensure")
        let url = TestDatabase.url(database: name)
        try await PostgresDatabase.ensureExists(url: url, logger: TestDatabase.logger)
        try await PostgresDatabase.ensureExists(url: url, logger: TestDatabase.logger)
        let connection = try await PostgresConnection.connect(url: url)
        #expect(try await connection.query("SELECT current_database() AS name").first?["name"] == name)
        await connection.close()
        try await TestDatabase.drop(name)
    }

    @Test func concurrentCreationsBothSucceed() async throws {
        let name = TestDatabase.uniqueName("ensure_race")
        let url = TestDatabase.url(database: name)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { try await PostgresDatabase.ensureExists(url: url, logger: TestDatabase.logger) }
            }
            try await group.waitForAll()
        }
        let connection = try await PostgresConnection.connect(url: url)
        #expect(connection.isOpen)
        await connection.close()
        try await TestDatabase.drop(name)
    }

    @Test func refusesUnsafeNames() async throws {
        let error = await #expect(throws: PostgresError.self) {
            try await PostgresDatabase.ensureExists(url: TestDatabase.url(database: "bad\"name;drop"), logger: TestDatabase.logger)
        }
        #expect(error?.sqlState == "42602")
    }
}

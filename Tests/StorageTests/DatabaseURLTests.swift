import Testing
@testable import Storage

/// An app's database is found from the service's URL with another database name, whatever form the URL has.
@Suite struct DatabaseURLTests {
    @Test func anotherDatabaseOnTheSameServersWithTheSameOptions() throws {
        let plain = try PostgresDatabase.url("postgres://postgres@127.0.0.1:15432/parse_posts", database: "parse_posts_app_A1")
        #expect(try PostgresDatabase.name(in: plain) == "parse_posts_app_A1")
        #expect(plain.contains("host='127.0.0.1'") && plain.contains("port='15432'") && plain.contains("user='postgres'"))

        let cluster = try PostgresDatabase.url(
            "postgresql://u:p%27w@h1:5432,h2:5433/parse_auth?target_session_attrs=read-write&connect_timeout=3",
            database: "parse_auth_app_x")
        #expect(try PostgresDatabase.name(in: cluster) == "parse_auth_app_x")
        #expect(cluster.contains("host='h1,h2'") && cluster.contains("port='5432,5433'"))
        #expect(cluster.contains("target_session_attrs='read-write'") && cluster.contains("connect_timeout='3'"))
        #expect(cluster.contains("password='p\\'w'"), "a quote in a value is escaped: \(cluster)")

        let conninfo = try PostgresDatabase.url("host=localhost dbname=parse_votes", database: "parse_votes_app_y")
        #expect(try PostgresDatabase.name(in: conninfo) == "parse_votes_app_y")
        #expect(throws: PostgresError.self) { try PostgresDatabase.url("host=localhost dbname=a", database: "bad name") }
    }
}

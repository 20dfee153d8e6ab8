/// Where the database is and how many sessions a pool may open to it.
public struct PostgresConfiguration: Sendable {
    /// A libpq URI (`postgres://user:password@host:port/database?sslmode=disable`) or conninfo string.
    public var url: String
    /// Most connections the pool holds open at once; at least 1.
    public var poolSize: Int
    /// Server settings every session of the pool starts with (`SET name = value`), sent with the connection
    /// request (libpq's `options`), so they hold from the first statement and after a reconnection. A URL that
    /// sets `options` itself wins over them.
    public var settings: [String: String]

    public init(url: String, poolSize: Int = 4, settings: [String: String] = [:]) {
        self.url = url
        self.poolSize = max(1, poolSize)
        self.settings = settings
    }
}

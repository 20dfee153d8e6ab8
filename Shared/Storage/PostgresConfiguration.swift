/// Where the database is and how many sessions a pool may open to it.
public struct PostgresConfiguration: Sendable {
    /// A libpq URI (`postgres://user:password@host:port/database?sslmode=disable`) or conninfo string.
    public var url: String
    /// Most connections the pool holds open at once; at least 1.
    public var poolSize: Int

    public init(url: String, poolSize: Int = 4) {
        self.url = url
        self.poolSize = max(1, poolSize)
    }
}

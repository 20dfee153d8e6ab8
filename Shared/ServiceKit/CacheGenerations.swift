import Contracts
import Messaging
import Storage

/// The generations of the data other services own that this service caches (`cache_generations`): one number per
/// kind of data, which only grows. The owner of the data advances it here (`AdvanceCacheGeneration`) before it
/// answers the change; a request reads it beside its own statements (no round trip of its own) and refreshes a
/// cache older than it. Why this and not events alone: an event reaches each replica some time after the change
/// was answered, and a request served in between would behave as if the change had not happened.
public enum CacheGenerations {
    public static func migration(version: Int) -> Migration {
        Migration(version: version, name: "cache generations", sql: """
            CREATE TABLE IF NOT EXISTS cache_generations (
                cache      text PRIMARY KEY,
                generation bigint NOT NULL DEFAULT 0
            );
            INSERT INTO cache_generations (cache) VALUES ('\(AdvanceCacheGeneration.hooks)') ON CONFLICT DO NOTHING;
            """)
    }

    /// A scalar subquery for the generation of `cache`, to put in a statement's select list.
    public static func subquery(_ cache: String) -> String {
        "(SELECT generation FROM cache_generations WHERE cache = '\(cache)')"
    }

    /// The statement that reads the generation of `cache` (one row, `generation`).
    public static func statement(_ cache: String) -> PostgresStatement {
        PostgresStatement("SELECT generation FROM cache_generations WHERE cache = $1", [cache])
    }

    /// The generation of `cache` as stored here.
    public static func read(_ cache: String, on pool: PostgresPool) async throws -> Int64? {
        try await pool.query(statement(cache).sql, statement(cache).parameters).first.flatMap { $0.int("generation") }.map(Int64.init)
    }

    /// Registers the handler of `cache.generation.advance.v1`: stores the generation (never lowering it) and answers
    /// once it is committed.
    public static func register(_ router: inout CommandRouter, pool: PostgresPool) {
        router.register(AdvanceCacheGeneration.type, AdvanceCacheGeneration.self) { command, _ in
            _ = try await pool.query("""
                INSERT INTO cache_generations (cache, generation) VALUES ($1, $2)
                ON CONFLICT (cache) DO UPDATE SET generation = GREATEST(cache_generations.generation, EXCLUDED.generation)
                """, [command.payload.cache, command.payload.generation])
            return Empty()
        }
    }
}

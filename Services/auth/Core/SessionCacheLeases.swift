import Contracts
import Storage

/// The gateways that may answer from a session cache, each until its lease ends (`SessionCacheLease`). Times are
/// the database's clock, shared by every auth replica; a gateway counts its lease from before it asked, so it
/// stops trusting its cache no later than this table says it does.
struct SessionCacheLeases: Sendable {
    static let migration = Migration(version: 9, name: "session-cache-leases", sql: """
        CREATE TABLE session_cache_leases (
            queue      text PRIMARY KEY,
            expires_at timestamptz NOT NULL
        );
        """)

    /// A gateway holding a lease now, and how long it may still trust its cache without an answer from it.
    struct Holder: Sendable, Equatable {
        var queue: String
        var remaining: Duration
    }

    let pool: PostgresPool

    /// Grants or extends `lease` for `SessionCacheLease.length` (or gives it back). Ended leases of gateways gone
    /// for a minute are cleared on the way, so the table keeps about one row per running gateway.
    func grant(_ lease: SessionCacheLease) async throws -> SessionCacheLeaseGranted {
        guard !lease.release else {
            _ = try await pool.query("DELETE FROM session_cache_leases WHERE queue = $1", [lease.queue])
            return SessionCacheLeaseGranted(continued: false)
        }
        let rows = try await pool.query("""
            WITH cleared AS (
                DELETE FROM session_cache_leases WHERE expires_at < clock_timestamp() - interval '1 minute'
            ), previous AS (
                SELECT expires_at > clock_timestamp() AS live FROM session_cache_leases WHERE queue = $1 FOR UPDATE
            )
            INSERT INTO session_cache_leases (queue, expires_at)
            VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
            ON CONFLICT (queue) DO UPDATE SET expires_at = EXCLUDED.expires_at
            RETURNING coalesce((SELECT live FROM previous), false) AS continued
            """, [lease.queue, Int(SessionCacheLease.length.totalMilliseconds)]).rows
        return SessionCacheLeaseGranted(continued: rows.first?.bool("continued") ?? false)
    }

    /// Every lease not yet ended.
    func holders() async throws -> [Holder] {
        try await pool.query("""
            SELECT queue, ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint AS remaining_ms
            FROM session_cache_leases WHERE expires_at > clock_timestamp()
            """).rows.compactMap { row in
            guard let queue = row["queue"], let remaining = row.int("remaining_ms") else { return nil }
            return Holder(queue: queue, remaining: .milliseconds(remaining))
        }
    }

    /// Ends the lease of a gateway that did not confirm an eviction: its next renewal starts a new one, which
    /// empties its cache. Returns how long its lease still runs (it may have been renewed since `holders()`).
    func takeBack(_ queue: String) async throws -> Duration {
        let rows = try await pool.query("""
            DELETE FROM session_cache_leases WHERE queue = $1
            RETURNING greatest(0, ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000))::bigint AS remaining_ms
            """, [queue]).rows
        return .milliseconds(rows.first?.int("remaining_ms") ?? 0)
    }
}

import Metrics
import Storage

/// Which PostgreSQL server a service writes to and how far its standbys are behind, for `/health/ready` and the
/// metrics: with several nodes (`PARSE_PG_NODES`), the server is the primary the multi-host URL found.
public struct DatabaseReplication: Sendable, Equatable {
    /// `address:port` of the server, as it sees itself.
    public var server: String
    /// Standbys connected to it (a role without `pg_monitor` sees them but not their positions).
    public var standbys: Int
    /// WAL bytes the furthest standby has yet to replay; nil without standbys.
    public var lagBytes: Double?

    static let sql = """
        SELECT COALESCE(host(inet_server_addr()), 'local') || ':' || current_setting('port') AS server,
               count(r.pid) AS standbys,
               max(pg_wal_lsn_diff(pg_current_wal_lsn(), r.replay_lsn))::float8 AS lag
        FROM (SELECT 1) AS one LEFT JOIN pg_stat_replication AS r ON true
        """

    public static func read(_ pool: PostgresPool) async throws -> DatabaseReplication {
        let row = try await pool.query(sql).rows.first
        return DatabaseReplication(server: row?["server"] ?? "", standbys: Int(row?["standbys"] ?? "") ?? 0,
                                   lagBytes: row?["lag"].flatMap { Double($0) })
    }

    static let standbysGauge = MetricsRegistry.shared.gauge(
        "parse_database_standbys", help: "PostgreSQL standbys streaming from the server the service writes to.").labels()
    static let lagGauge = MetricsRegistry.shared.gauge(
        "parse_database_replication_lag_bytes",
        help: "WAL bytes the furthest standby has yet to replay (0 without standbys).").labels()

    func record() {
        Self.standbysGauge.set(Double(standbys))
        Self.lagGauge.set(lagBytes ?? 0)
    }
}

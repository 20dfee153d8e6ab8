import Storage

/// Every service publishes its events through a transactional outbox: the event row is written in the same
/// transaction as the change it describes, and a relay publishes it with confirms. This is the table.
public enum OutboxMigration {
    public static let migration = Migration(version: 1, name: "outbox", sql: """
        CREATE TABLE IF NOT EXISTS outbox (
            id           bigserial PRIMARY KEY,
            event_id     uuid NOT NULL UNIQUE,
            routing_key  text NOT NULL,
            payload      jsonb NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now(),
            published_at timestamptz
        );
        CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
        """)

    /// `claimed_until`: a row its writing process publishes itself right after its commit (`OutboxLane`); relays
    /// leave it alone until then. Each service places it at its own next version.
    public static func claims(version: Int) -> Migration {
        Migration(version: version, name: "outbox claims", sql: "ALTER TABLE outbox ADD COLUMN IF NOT EXISTS claimed_until timestamptz")
    }

    /// Both, for a database that holds an outbox and nothing else (tests).
    public static let all = [migration, claims(version: 2)]
}

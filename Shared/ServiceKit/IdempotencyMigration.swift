import Storage

/// The request ids of the writes a service applied, each with the answer it gave, until `expires_at`. A row is
/// claimed in the transaction of the write it stands for (`IdempotentRequests`); `answer` follows right after.
public enum IdempotencyMigration {
    public static func migration(version: Int) -> Migration {
        Migration(version: version, name: "idempotency", sql: """
            CREATE TABLE IF NOT EXISTS idempotency (
                request_id text PRIMARY KEY,
                claimed_at timestamptz NOT NULL DEFAULT now(),
                expires_at timestamptz NOT NULL,
                answer     text
            );
            CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at);
            """)
    }
}

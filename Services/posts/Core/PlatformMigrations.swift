import Storage

/// The posts tables of the platform routes that are not Parse classes.
enum PlatformMigrations {
    /// Analytics events counted per hour: one row per (event, hour) with an empty dimension for the total, and
    /// one per dimension value.
    static let analytics = Migration(version: 7, name: "analytics counts", sql: """
        CREATE TABLE IF NOT EXISTS analytics_counts (
            event_name text NOT NULL, hour timestamptz NOT NULL, dimension text NOT NULL, value text NOT NULL,
            count bigint NOT NULL, PRIMARY KEY (event_name, hour, dimension, value));
        CREATE INDEX IF NOT EXISTS analytics_counts_hour ON analytics_counts (hour);
        """)

    /// Pushes on their way (`PushJobs`) and the adapters' reports already counted, by event id.
    static let pushes = Migration(version: 8, name: "push jobs", sql: """
        CREATE TABLE IF NOT EXISTS push_jobs (
            push_status_id text PRIMARY KEY, due_at timestamptz NOT NULL, state text NOT NULL, request jsonb NOT NULL,
            cursor text, published bigint NOT NULL DEFAULT 0, reported bigint NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX IF NOT EXISTS push_jobs_due ON push_jobs (due_at) WHERE state <> 'published';
        CREATE TABLE IF NOT EXISTS push_reports (
            event_id uuid PRIMARY KEY, push_status_id text NOT NULL, reported_at timestamptz NOT NULL DEFAULT now());
        """)
}

extension PlatformMigrations {
    /// API requests per hour, route template and status, as the gateways report them (`requests.count.v1`), and
    /// the reports already added, by id, so a report sent twice counts once.
    /// Who was active on which day, for the dashboard's active users and retention (`ActiveUsers`): a user, or an
    /// installation without a signed-in user, that sent an analytics event (`AppOpened` or its own) that day.
    static let activeDays = Migration(version: 15, name: "active days", sql: """
        CREATE TABLE IF NOT EXISTS analytics_active (day date NOT NULL, subject text NOT NULL, PRIMARY KEY (day, subject));
        CREATE INDEX IF NOT EXISTS analytics_active_subject ON analytics_active (subject, day);
        """)

    static let requestCounts = Migration(version: 10, name: "request counts", sql: """
        CREATE TABLE IF NOT EXISTS request_counts (
            hour timestamptz NOT NULL, route text NOT NULL, status integer NOT NULL, count bigint NOT NULL,
            PRIMARY KEY (hour, route, status));
        CREATE TABLE IF NOT EXISTS request_count_reports (
            report_id uuid PRIMARY KEY, added_at timestamptz NOT NULL DEFAULT now());
        """)
}

extension PlatformMigrations {
    /// Push events are the outbox's large rows (about 70 KB of JSON for 500 devices), stored compressed: lz4 does it
    /// several times faster than PostgreSQL's default pglz, when the sender writes them and when the relay reads them
    /// back. A server built without lz4 keeps pglz.
    static let outboxCompression = Migration(version: 11, name: "outbox lz4", sql: """
        DO $$ BEGIN
            ALTER TABLE outbox ALTER COLUMN payload SET COMPRESSION lz4;
        EXCEPTION WHEN feature_not_supported THEN NULL;
        END $$;
        """)
}

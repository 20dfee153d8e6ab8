import Storage

/// The posts tables of the platform routes that are not Parse classes.
enum PlatformMigrations {
    /// Analytics events counted per hour: one row per (event, hour) with an empty dimension for the total, and
    /// one per dimension value.
    static let analytics = Migration(version: 6, name: "analytics counts", sql: """
        CREATE TABLE IF NOT EXISTS analytics_counts (
            event_name text NOT NULL, hour timestamptz NOT NULL, dimension text NOT NULL, value text NOT NULL,
            count bigint NOT NULL, PRIMARY KEY (event_name, hour, dimension, value));
        CREATE INDEX IF NOT EXISTS analytics_counts_hour ON analytics_counts (hour);
        """)
}

import Storage

/// A user's deletion no longer deletes its sessions (parse-server keeps them; see
/// `AuthSettings.revokeSessionsOnUserDelete`), so the foreign key that cascaded the deletion goes.
enum SessionsOutliveUsersMigration {
    static let migration = Migration(version: 7, name: "sessions-outlive-users", sql: """
        ALTER TABLE sessions DROP CONSTRAINT IF EXISTS sessions_user_id_fkey;
        """)
}

import Storage

/// What `passwordPolicy` needs: when the password was last set (`maxPasswordAge`) and the hashes of earlier
/// ones (`maxPasswordHistory`, oldest first).
enum PasswordPolicyMigration {
    static let migration = Migration(version: 4, name: "password-policy", sql: """
        ALTER TABLE users ADD COLUMN password_changed_at timestamptz;
        ALTER TABLE users ADD COLUMN password_history text[] NOT NULL DEFAULT '{}';
        """)
}

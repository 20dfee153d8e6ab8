import Storage

/// Verification and password reset tokens, kept only as SHA-256 digests (the mail holds the token itself), with
/// their expiry.
enum EmailTokenMigration {
    static let migration = Migration(version: 5, name: "email-tokens", sql: """
        ALTER TABLE users ADD COLUMN email_verify_token_digest bytea;
        ALTER TABLE users ADD COLUMN email_verify_token_expires_at timestamptz;
        ALTER TABLE users ADD COLUMN reset_token_digest bytea;
        ALTER TABLE users ADD COLUMN reset_token_expires_at timestamptz;
        """)
}

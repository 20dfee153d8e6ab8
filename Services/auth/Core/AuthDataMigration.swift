import Storage

/// Third-party identities of users (`authData`). The document itself lives on the user row; each provider's id
/// also has a row in `user_identities`, whose primary key makes "one user per provider id" hold across replicas
/// and racing signups (parse-server's "this auth is already used").
enum AuthDataMigration {
    static let migration = Migration(version: 3, name: "user-auth-data", sql: """
        ALTER TABLE users ADD COLUMN auth_data jsonb;
        CREATE TABLE user_identities (
            provider         text NOT NULL,
            provider_user_id text NOT NULL,
            user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            PRIMARY KEY (provider, provider_user_id)
        );
        CREATE INDEX user_identities_user ON user_identities (user_id);
        """)
}

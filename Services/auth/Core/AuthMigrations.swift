import Contracts
import Storage

/// The auth service's tables. Usernames and emails are unique without regard to case, as parse-server checks
/// them; session tokens are kept only as digests (`token_digest`).
enum AuthMigrations {
    static let tables = Migration(version: 2, name: "users-sessions-roles", sql: """
        CREATE TABLE users (
            id                 text PRIMARY KEY,
            username           text NOT NULL,
            email              text,
            email_verified     boolean,
            password_hash      text,
            acl                jsonb,
            fields             jsonb NOT NULL DEFAULT '{}',
            failed_login_count integer NOT NULL DEFAULT 0,
            locked_until       timestamptz,
            created_at         timestamptz NOT NULL,
            updated_at         timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX users_username_unique ON users (lower(username));
        CREATE UNIQUE INDEX users_email_unique ON users (lower(email)) WHERE email IS NOT NULL;
        CREATE INDEX users_username ON users (username);
        CREATE INDEX users_email ON users (email);

        CREATE TABLE sessions (
            id              text PRIMARY KEY,
            token_digest    bytea NOT NULL UNIQUE,
            user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_with    jsonb NOT NULL,
            installation_id text,
            expires_at      timestamptz,
            fields          jsonb NOT NULL DEFAULT '{}',
            created_at      timestamptz NOT NULL,
            updated_at      timestamptz NOT NULL
        );
        CREATE INDEX sessions_user ON sessions (user_id);

        CREATE TABLE roles (
            id         text PRIMARY KEY,
            name       text NOT NULL UNIQUE,
            acl        jsonb,
            fields     jsonb NOT NULL DEFAULT '{}',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        );
        -- `users` relation of a role.
        CREATE TABLE role_users (
            role_id text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            PRIMARY KEY (role_id, user_id)
        );
        CREATE INDEX role_users_user ON role_users (user_id);
        -- `roles` relation: members of the child role are members of the parent role too.
        CREATE TABLE role_roles (
            parent_id text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
            child_id  text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
            PRIMARY KEY (parent_id, child_id)
        );
        CREATE INDEX role_roles_child ON role_roles (child_id);
        """)
}

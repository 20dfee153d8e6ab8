import Storage

/// The files service's tables. An upload grows in `file_uploads` + `file_parts` and becomes visible only when its
/// row moves to `files` in one transaction, so an interrupted upload never shows as a half file.
enum FilesMigrations {
    static let tables = Migration(version: 2, name: "files", sql: """
        CREATE TABLE file_uploads (
            upload_id uuid PRIMARY KEY,
            name text NOT NULL,
            content_type text NOT NULL,
            size bigint NOT NULL DEFAULT 0,
            metadata jsonb,
            tags jsonb,
            touched_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX file_uploads_touched_at ON file_uploads (touched_at);
        CREATE TABLE files (
            name text PRIMARY KEY,
            upload_id uuid NOT NULL UNIQUE,
            content_type text NOT NULL,
            size bigint NOT NULL,
            metadata jsonb,
            tags jsonb,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE file_parts (
            upload_id uuid NOT NULL,
            start_byte bigint NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (upload_id, start_byte)
        );
        -- Most uploads (pictures) are compressed already; uncompressed storage also lets substring() read only
        -- the TOAST chunks a range needs.
        ALTER TABLE file_parts ALTER COLUMN data SET STORAGE EXTERNAL;
        """)
}

import ServiceKit
import Storage

/// The posts database: one row per class in `parse_schema` (its fields and their types, class-level permissions,
/// indexes) and one table per class in schema `classes`, with typed columns as parse-server lays them out.
enum PostsMigrations {
    static let all: [Migration] = [OutboxMigration.migration, classes]

    static let classes = Migration(version: 2, name: "classes", sql: """
        CREATE SCHEMA IF NOT EXISTS classes;
        CREATE TABLE IF NOT EXISTS parse_schema (
            class_name text PRIMARY KEY,
            fields jsonb NOT NULL DEFAULT '{}',
            class_level_permissions jsonb,
            indexes jsonb NOT NULL DEFAULT '{}'
        );
        -- AddUnique: appends the values not present yet, in their order, each once.
        CREATE OR REPLACE FUNCTION posts_array_add_unique(current jsonb, additions jsonb) RETURNS jsonb
        LANGUAGE sql IMMUTABLE AS $$
            SELECT COALESCE(current, '[]'::jsonb) || COALESCE((
                SELECT jsonb_agg(value ORDER BY position) FROM (
                    SELECT DISTINCT ON (value) value, position
                    FROM jsonb_array_elements(additions) WITH ORDINALITY AS added(value, position)
                    WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(current, '[]'::jsonb)) AS old(value)
                                      WHERE old.value = added.value)
                    ORDER BY value, position) AS fresh), '[]'::jsonb)
        $$;
        -- Remove: drops every instance of each value, keeping the order of the rest.
        CREATE OR REPLACE FUNCTION posts_array_remove(current jsonb, removals jsonb) RETURNS jsonb
        LANGUAGE sql IMMUTABLE AS $$
            SELECT COALESCE((
                SELECT jsonb_agg(value ORDER BY position)
                FROM jsonb_array_elements(COALESCE(current, '[]'::jsonb)) WITH ORDINALITY AS old(value, position)
                WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(removals) AS gone(value) WHERE gone.value = old.value)
            ), '[]'::jsonb)
        $$;
        """)
}

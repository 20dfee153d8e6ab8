import ServiceKit
import Storage

/// The posts database: one row per class in `parse_schema` (its fields and their types, class-level permissions,
/// indexes) and one table per class in schema `classes`, with typed columns as parse-server lays them out.
enum PostsMigrations {
    static let all: [Migration] = [OutboxMigration.migration, classes, appliedVotes, likes, cachedRounds, geo,
                                   PlatformMigrations.analytics, PlatformMigrations.pushes,
                                   IdempotencyMigration.migration(version: 9), PlatformMigrations.requestCounts,
                                   PlatformMigrations.outboxCompression, InstallationTable.migration,
                                   CacheGenerations.migration(version: 13), RuntimeSettings.migration(version: 14),
                                   PlatformMigrations.activeDays, GraphQLConfigHandler.migration,
                                   OutboxMigration.claims(version: 17)]

    /// Ballots the votes service had applied here, so a retried ballot is applied once; `sequence` numbers the
    /// changes of one counter without gaps.
    static let appliedVotes = Migration(version: 3, name: "vote_applied", sql: """
        CREATE TABLE IF NOT EXISTS vote_applied (
            ballot_id uuid PRIMARY KEY, class_name text NOT NULL, object_id text NOT NULL, field text NOT NULL,
            amount double precision NOT NULL, total double precision NOT NULL, sequence bigint NOT NULL,
            updated_at text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        CREATE UNIQUE INDEX IF NOT EXISTS vote_applied_sequence ON vote_applied (class_name, object_id, field, sequence);
        """)

    /// The likes of the counters under the one-vote-per-user rule: one row per user and counter, written in the
    /// transaction that changes the counter, so the two always agree. A ballot that changed nothing (a second like,
    /// a retraction without a like) is kept in `vote_applied` without a sequence, so a retry of it is answered alike.
    static let likes = Migration(version: 4, name: "vote_likes", sql: """
        ALTER TABLE vote_applied ALTER COLUMN sequence DROP NOT NULL;
        CREATE TABLE IF NOT EXISTS vote_likes (
            class_name text NOT NULL, object_id text NOT NULL, field text NOT NULL, voter text NOT NULL,
            ballot_id uuid NOT NULL, liked_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (class_name, object_id, field, voter));
        """)

    /// The check of a vote round decided from what this process remembered (`CounterUpdate.write(_:checkingAgainst:)`):
    /// fails the statement, and so its transaction, unless what the round assumed still holds.
    static let cachedRounds = Migration(version: 5, name: "cached vote rounds", sql: """
        CREATE OR REPLACE FUNCTION vote_round_holds(holds boolean) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            IF holds IS NOT TRUE THEN
                RAISE EXCEPTION 'a counter changed since this process last applied votes to it' USING ERRCODE = 'PV001';
            END IF;
            RETURN true;
        END $$;
        """)

    /// Distances on the sphere for the geo queries: a GeoPoint's place on the unit sphere as a `cube`, which a
    /// GiST index can hold (`WhereTranslator+Geo`). Its names are qualified so that it also works where the
    /// search path is empty (autovacuum analysing an index on it).
    static let geo = Migration(version: 6, name: "geo", sql: """
        CREATE EXTENSION IF NOT EXISTS cube WITH SCHEMA public;
        CREATE OR REPLACE FUNCTION public.parse_geo_unit(location point) RETURNS public.cube
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
            SELECT public.cube(ARRAY[pg_catalog.cos(pg_catalog.radians(location[1])) * pg_catalog.cos(pg_catalog.radians(location[0])),
                                     pg_catalog.cos(pg_catalog.radians(location[1])) * pg_catalog.sin(pg_catalog.radians(location[0])),
                                     pg_catalog.sin(pg_catalog.radians(location[1]))]::float8[])
        $$;
        """)

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

import ServiceKit
import Storage

/// The cloud service's tables. Webhooks (`hooks`, parse-server's `_Hooks`) and worker registrations
/// (`worker_targets`) are kept apart: the Hooks API lists only webhooks, as parse-server lists only `_Hooks` and
/// never the functions its Cloud Code defines. `job_status` is `_JobStatus`.
enum CloudMigrations {
    /// The registrations' generation, advanced by every change (`HookStore`): cloud's replicas check their copies
    /// against it, and the services that cache the trigger list are told it (`AdvanceCacheGeneration`).
    static let generations = CacheGenerations.migration(version: 3)

    /// The lines `GET /scriptlog` answers with, from every service (`scriptlog.append.v1`); `ScriptLogStore`.
    /// `_JobSchedule`, with parse-server's fields; `last_run` in milliseconds since 1970, as parse-server's Number.
    static let jobSchedules = Migration(version: 5, name: "job schedules", sql: """
        CREATE TABLE job_schedules (
            object_id text PRIMARY KEY,
            job_name text NOT NULL,
            description text,
            params text,
            start_after text NOT NULL,
            days_of_week jsonb,
            time_of_day text,
            last_run double precision,
            repeat_minutes double precision,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        """)

    static let scriptLogs = Migration(version: 4, name: "script logs", sql: """
        CREATE TABLE script_logs (
            id bigserial PRIMARY KEY,
            logged_ms bigint NOT NULL,
            level text NOT NULL,
            service text NOT NULL,
            message text NOT NULL,
            fields jsonb NOT NULL DEFAULT '{}'
        );
        CREATE INDEX script_logs_logged ON script_logs (logged_ms, id);
        """)

    static let tables = Migration(version: 2, name: "cloud", sql: """
        CREATE TABLE hooks (
            id bigserial PRIMARY KEY,
            function_name text UNIQUE,
            class_name text,
            trigger_name text,
            url text NOT NULL,
            UNIQUE (class_name, trigger_name),
            CHECK ((function_name IS NULL) <> (class_name IS NULL AND trigger_name IS NULL))
        );
        CREATE TABLE worker_targets (
            kind text NOT NULL,
            name text NOT NULL,
            class_name text NOT NULL DEFAULT '',
            queue text NOT NULL,
            registered_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (kind, name, class_name)
        );
        CREATE INDEX worker_targets_queue ON worker_targets (queue);
        CREATE TABLE job_status (
            object_id text PRIMARY KEY,
            job_name text NOT NULL,
            source text NOT NULL DEFAULT 'api',
            status text NOT NULL,
            message text,
            params jsonb NOT NULL DEFAULT '{}',
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            finished_at timestamptz
        );
        CREATE INDEX job_status_created_at ON job_status (created_at);
        """)
}

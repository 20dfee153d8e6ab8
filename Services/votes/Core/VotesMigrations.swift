import ServiceKit
import Storage

/// The votes database: the ledger, one row per ballot, from `pending` (recorded, not yet applied) to `applied`
/// (the counter has it, its event is in the outbox), `rejected` (the voter may not write the object...) or
/// `unchanged` (a like that changed nothing: a second like, or taking back a like that is not there; no event).
enum VotesMigrations {
    static let all: [Migration] = [OutboxMigration.migration, ballots]

    static let ballots = Migration(version: 2, name: "ballots", sql: """
        CREATE TABLE IF NOT EXISTS ballots (
            ballot_id      uuid PRIMARY KEY,
            request_id     text NOT NULL UNIQUE,
            voter          text,
            voter_identity jsonb NOT NULL,
            class_name     text NOT NULL,
            object_id      text NOT NULL,
            field          text NOT NULL,
            kind           text NOT NULL,
            value          double precision NOT NULL,
            state          text NOT NULL DEFAULT 'pending',
            amount         double precision,
            total          double precision,
            sequence       bigint,
            updated_at     text,
            event_id       uuid,
            error_code     integer,
            error_message  text,
            created_at     timestamptz NOT NULL DEFAULT now(),
            applied_at     timestamptz
        );
        CREATE INDEX IF NOT EXISTS ballots_pending ON ballots (created_at) WHERE state = 'pending';
        CREATE INDEX IF NOT EXISTS ballots_applied_time ON ballots (applied_at) WHERE state = 'applied';
        CREATE UNIQUE INDEX IF NOT EXISTS ballots_sequence ON ballots (class_name, object_id, field, sequence);
        """)
}

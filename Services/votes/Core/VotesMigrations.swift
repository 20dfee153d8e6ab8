import ServiceKit
import Storage

/// The votes database: the ledger, one row per ballot, from `pending` (recorded, not yet applied) to `applied`
/// (the counter has it, its event is in the outbox), `rejected` (the voter may not write the object...) or
/// `unchanged` (a like that changed nothing: a second like, or taking back a like that is not there; no event).
enum VotesMigrations {
    static let all: [Migration] = [OutboxMigration.migration, ballots, cheaperSettlement, fewerGuards, OutboxMigration.claims(version: 5),
                                   permissionsVersion]

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

    /// Cheaper settlement, measured under load (bench/votes.md):
    /// - the sequence's uniqueness is checked only where there is a sequence: a pending ballot has none, so the
    ///   index took an entry for every ballot recorded and another when it was marked applied;
    /// - generic plans for this database's statements. They are all fixed batch statements over `unnest` of array
    ///   parameters, and PostgreSQL otherwise planned the settling statement again at every execution (about a
    ///   tenth of the ledger's database CPU). Sessions opened from now on use it; ALTER DATABASE needs no more than
    ///   owning the database. (The service now sets it for its own sessions, `VotesService.databaseSettings`,
    ///   which also covers the session that ran this migration.)
    static let cheaperSettlement = Migration(version: 3, name: "cheaper settlement", sql: """
        CREATE UNIQUE INDEX IF NOT EXISTS ballots_applied_sequence ON ballots (class_name, object_id, field, sequence)
            WHERE sequence IS NOT NULL;
        DROP INDEX IF EXISTS ballots_sequence;
        DO $$ BEGIN
            EXECUTE format('ALTER DATABASE %I SET plan_cache_mode = force_generic_plan', current_database());
        END $$;
        """)

    /// Fewer index entries per ballot (bench/votes.md): marking a ballot wrote seven, now five. Dropped are
    /// guards of what the code already ensures: the sequences come from `posts`, whose `vote_applied_sequence`
    /// keeps them unique per counter; an event id is new for every ballot marked, and only the ballots marked by the
    /// statement get one. (`outbox_unpublished` stays: with `PARSE_OUTBOX_RETENTION_MINUTES` set, published events
    /// are kept, and without it the relay would walk them all to find the next unpublished one.)
    static let fewerGuards = Migration(version: 4, name: "fewer guards", sql: """
        DROP INDEX IF EXISTS ballots_applied_sequence;
        ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_event_id_key;
        """)

    /// The version of the class's permissions `posts` applied an applied ballot under (`BallotResult.permissionsVersion`),
    /// which its event carries: a replay gives the event as it was published.
    static let permissionsVersion = Migration(version: 6, name: "permissions version", sql: """
        ALTER TABLE ballots ADD COLUMN IF NOT EXISTS permissions_version text;
        """)
}

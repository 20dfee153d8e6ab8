import Contracts
import Foundation
import Messaging
import ParseWire
import Query
import Storage

/// Applies ballots from the `votes` service to counters, each exactly once: the ids of applied ballots are kept in
/// `vote_applied`, written in the transaction that changes the counter. All ballots of a command share one
/// transaction, and each class costs a fixed number of statements whatever its number of objects and ballots (one
/// lock of all its rows, one read of earlier ballots, one write per table), so a hot object costs one row lock per
/// batch, not per vote, and ballots spread over many objects cost one round trip per table, not per object. On
/// counters this process applied votes to before, the lock and the read are skipped (`applyRemembered`).
struct ApplyBallotsHandler: Sendable {
    let pool: PostgresPool
    /// What this process committed to its counters (one per process, made at start).
    let counters: CounterCache
    /// The service's schemas read so far, shared with its request handlers.
    let schemas: SchemaCache

    /// How a round's transaction plans (see `apply`).
    static let planSettings = PostgresStatement(
        "SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)")

    static func register(_ router: inout CommandRouter, _ pool: PostgresPool, schemas: SchemaCache) {
        let handler = ApplyBallotsHandler(pool: pool, counters: CounterCache(), schemas: schemas)
        router.register(ApplyBallots.type, ApplyBallots.self) { command, _ in
            try await handler.apply(command.payload)
        }
    }

    /// One transaction for the whole batch. Classes are taken in name order and each class's rows are locked in
    /// one statement in id order, so two batches never wait for each other in a cycle. A class whose table lost a
    /// column this process still had in its schema fails the round: it runs once more with the schema read afresh.
    func apply(_ batch: ApplyBallots) async throws -> BallotsApplied {
        for group in batch.groups where !group.ballots.allSatisfy({ UUID(uuidString: $0.ballotId) != nil }) {
            throw ParseError(.invalidJSON, "Invalid ballot id.")
        }
        let byClass = Dictionary(grouping: batch.groups, by: \.className)
        do {
            do {
                return try await apply(byClass)
            } catch let error as PostgresError where error.sqlState == "42703" || error.sqlState == "42P01" {
                for className in byClass.keys { schemas.remove(className) }
                return try await apply(byClass)
            }
        } catch let lost as CommitOutcomeUnknown {
            // Applying a ballot again answers what it got the first time (`vote_applied`): whether the COMMIT
            // landed or not, the batch can simply run again, as after any lost connection.
            throw lost.cause
        }
    }

    private func apply(_ byClass: [String: [CounterBallots]]) async throws -> BallotsApplied {
        try await pool.withConnection { connection in
            if let applied = try await applyRemembered(byClass, on: connection) { return applied }
            let (applied, remembered) = try await connection.pipelinedTransaction { connection, begin in
                // One plan per statement and session, made without sequential scans: every statement of a round
                // reaches its rows through a primary key or `vote_applied_sequence`. A generic plan made while
                // `vote_applied` or a class was nearly empty chose a sequential scan and kept it until the table
                // was next analyzed, many times dearer per vote; planning every round afresh instead made planning the
                // largest part of posts' database work per vote (docs/development.md, "A cached generic plan").
                var queued = begin + [Self.planSettings]
                var outcomes: [BallotResult] = []
                var remembered: [CounterCache.Key: CounterCache.Entry] = [:]
                for className in byClass.keys.sorted() {
                    let update = try await CounterUpdate(className: className, groups: byClass[className] ?? [], schemas: schemas)
                        .apply(on: connection, sending: queued)
                    outcomes += update.outcomes
                    queued = update.queued
                    remembered.merge(update.remembered) { _, latest in latest }
                }
                return ((BallotsApplied(outcomes: outcomes), remembered), queued)
            }
            counters.store(remembered)
            return applied
        }
    }

    /// The batch in one round trip, decided from what this process remembers of its counters (`CounterCache`,
    /// `CounterUpdate.cachedRound`): nil when a class's round cannot be, or when a counter no longer holds what was
    /// remembered (a plain update, another process's votes, a retried ballot). Its counters are distrusted then
    /// (not remembered for a while), and the batch runs as usual, reading them. Two such writes can lock the same rows in different orders:
    /// PostgreSQL breaks the deadlock, and the batch that lost it also runs as usual, locking in id order.
    private func applyRemembered(_ byClass: [String: [CounterBallots]],
                                 on connection: PostgresConnection) async throws -> BallotsApplied? {
        var updates: [CounterUpdate.CachedUpdate] = []
        for className in byClass.keys.sorted() {
            guard let update = CounterUpdate(className: className, groups: byClass[className] ?? [], schemas: schemas).cachedUpdate(from: counters) else {
                return nil
            }
            updates.append(update)
        }
        let writes = updates.map(\.write)
        do {
            try await connection.pipelinedTransaction { _, begin in ((), begin + [Self.planSettings] + writes) }
        } catch let error as PostgresError
                    where [CounterUpdate.changedState, "23505", "40P01"].contains(error.sqlState ?? "") {
            counters.distrust(updates.flatMap { $0.remembered.keys })
            return nil
        }
        for update in updates { counters.store(update.remembered) }
        return BallotsApplied(outcomes: updates.flatMap(\.outcomes))
    }
}

import Contracts
import Foundation
import Messaging
import ParseWire
import Storage
import Runtime
import ServiceKit

/// The ledger's statements. A ballot is recorded `pending` before it is sent to `posts`, and marked `applied`
/// (with its event in the outbox, in the same transaction) only after `posts` committed it.
struct BallotLedger: Sendable {
    let pool: PostgresPool

    /// A ballot already in the ledger under the same request id.
    enum Existing: Sendable, Equatable {
        case pending(Ballot)
        case applied(Ballot, AppliedBallot)
        case rejected(Ballot, ParseError)
    }

    /// What `posts` answered for a round, to be marked in the ledger, and the events of the ballots it applied.
    struct Settlement: Sendable {
        var ballots: [Ballot]
        var outcomes: [BallotResult]
        /// One per applied outcome (a sequence: a like that changed nothing has none), in the outcomes' order. Each
        /// event's id is its ballot's: a ballot marked later by a retry or the recovery gets the same event, so the
        /// events can leave before the mark commits (`publishEarly`) and still be one event per applied ballot.
        let applied: [(outcome: BallotResult, event: EventPublisher.EncodedEvent)]

        init(ballots: [Ballot], outcomes: [BallotResult], at time: Date = Date()) {
            self.ballots = ballots
            self.outcomes = outcomes
            let byId = Dictionary(ballots.map { ($0.ballotId, $0) }, uniquingKeysWith: { first, _ in first })
            let timeText = ParseDate.string(from: time)
            applied = outcomes.filter { $0.error == nil && $0.total != nil && $0.sequence != nil }.compactMap { outcome in
                byId[outcome.ballotId].map { ballot in
                    let id = ballot.ballotId.lowercased()
                    let event = ballot.event(amount: outcome.amount ?? 0, total: outcome.total ?? 0, sequence: outcome.sequence ?? 0,
                                             permissionsVersion: outcome.permissionsVersion)
                    return (outcome, EventPublisher.EncodedEvent(id: id, type: event.eventType, routingKey: event.routingKey,
                                                                 body: Array(event.cloudEventText(id: id, time: timeText).utf8)))
                }
            }
        }

        var events: [EventPublisher.EncodedEvent] { applied.map(\.event) }
    }

    /// Hands the events of `settlement` to the broker now, before the trip that marks it: a vote's event reaches
    /// its consumers as its voter is answered, not a ledger commit later. Its row is written by that trip, and
    /// marked once the broker confirmed the copy sent now (`Outbox.BatchExit.sendEarly`).
    func publishEarly(_ settlement: Settlement) {
        Outbox.BatchExit(pool: pool).sendEarly(settlement.events)
    }

    /// In one round trip and one transaction: marks `settlement` (see `settleStatement`) and records `ballots`
    /// pending. Returns, for each ballot not recorded because its request id is there already, what is there,
    /// keyed by the ballot's id (absent: newly recorded). Either both commit or neither does.
    ///
    /// Keyed by ballot, not request: two ballots of one request id can meet in one round (a client's retry beside a
    /// redelivery of the first try), and only one of them is recorded; the other must not be applied as well.
    func record(_ ballots: [Ballot], settling settlement: Settlement? = nil) async throws -> [String: Existing] {
        var statements: [PostgresStatement] = []
        let exit = Outbox.BatchExit(pool: pool)
        let settle = settlement.map { Self.settleStatement($0, claim: exit.claim) }
        if let settle { statements.append(settle.statement) }
        if !ballots.isEmpty { statements.append(Self.recordStatement(ballots)) }
        guard !statements.isEmpty else { return [:] }
        let results: [PostgresResult]
        do {
            results = try await pool.withConnection { [statements] connection in
                let results = try await connection.pipeline(statements)
                // Committed with the pipeline: the events of the ballots marked now are in the outbox, and the settle
                // statement, sent first, returned their ids.
                if let settle, let added = results.first {
                    exit.send(settle.events, added: Set(added.rows.compactMap { $0["event_id"] }), afterCommitOf: connection)
                }
                return results
            }
        } catch {
            if let settle { exit.abandon(settle.events) }
            throw error
        }
        guard !ballots.isEmpty, let inserted = results.last else { return [:] }
        let fresh = Set(inserted.rows.compactMap { $0["ballot_id"] })
        let others = ballots.filter { !fresh.contains($0.ballotId.lowercased()) }
        guard !others.isEmpty else { return [:] }
        var byRequest: [String: Existing] = [:]
        for row in try await pool.query("\(Self.selectBallot) WHERE request_id = ANY($1::text[])",
                                        [PostgresArray.literal(others.map(\.requestId))]).rows {
            if let requestId = row["request_id"], let found = Self.existing(row) { byRequest[requestId] = found }
        }
        var existing: [String: Existing] = [:]
        for ballot in others {
            guard let found = byRequest[ballot.requestId] else { throw LedgerError.ballotVanished(ballot.requestId) }
            existing[ballot.ballotId] = found
        }
        return existing
    }

    /// Records `ballots` pending, each unless its request id is there already (or earlier in `ballots`); returns the
    /// ids of the ballots recorded.
    static func recordStatement(_ ballots: [Ballot]) -> PostgresStatement {
        let literal: ([String]) -> String = PostgresArray.literal
        return PostgresStatement("""
            INSERT INTO ballots (ballot_id, request_id, voter, voter_identity, class_name, object_id, field, kind, value)
            SELECT id, request, NULLIF(voter, ''), identity, class, object, field, kind, value
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[], $7::text[], $8::text[],
                        $9::double precision[]) AS x(id, request, voter, identity, class, object, field, kind, value)
            ON CONFLICT (request_id) DO NOTHING RETURNING ballot_id::text AS ballot_id
            """, [literal(ballots.map { $0.ballotId }), literal(ballots.map { $0.requestId }), literal(ballots.map { $0.voter.userId ?? "" }),
                  literal(ballots.map { Self.identityText($0.voter) }), literal(ballots.map { $0.vote.className }),
                  literal(ballots.map { $0.vote.objectId }), literal(ballots.map { $0.vote.field }),
                  literal(ballots.map { $0.vote.kind.rawValue }), literal(ballots.map { String($0.vote.value) })])
    }

    /// Pending ballots older than `age`: left behind by a crash or a `posts` that did not answer.
    func pending(olderThan age: Duration, limit: Int = 500) async throws -> [Ballot] {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        return try await pool.query(
            "\(Self.selectBallot) WHERE state = 'pending' AND created_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT \(limit)",
            [seconds]).rows.compactMap(Self.ballot)
    }

    /// Marks what `posts` answered, in one statement (all or nothing): applied ballots get their total, sequence
    /// and event; refused ones their error; a like that changed nothing (no sequence) is `unchanged`, with the
    /// total it was answered with and no event. A ballot already marked (by a concurrent retry) is left alone, and
    /// only the ballots marked now have their event written to the outbox, so none gets a second event. Returns the
    /// events too, for `Outbox.BatchExit.send`; `claim` is `BatchExit.claim`.
    static func settleStatement(_ settlement: Settlement, claim: String?)
        -> (statement: PostgresStatement, events: [EventPublisher.EncodedEvent]) {
        let ballotIds = Set(settlement.ballots.map(\.ballotId)), outcomes = settlement.outcomes
        let refused = outcomes.filter { $0.error != nil && ballotIds.contains($0.ballotId) }
        let unchanged = outcomes.filter {
            $0.error == nil && $0.total != nil && $0.sequence == nil && ballotIds.contains($0.ballotId)
        }
        // One event per applied outcome, in the same order: its id goes with the ballot's row.
        let applied = settlement.applied
        let literal: ([String]) -> String = PostgresArray.literal
        let statement = PostgresStatement(settleSQL, [
                  literal(refused.map { $0.ballotId }), literal(refused.map { String($0.error?.code.rawValue ?? 1) }),
                  literal(refused.map { $0.error?.message ?? "" }),
                  literal(unchanged.map { $0.ballotId }), literal(unchanged.map { String($0.total ?? 0) }),
                  literal(unchanged.map { $0.updatedAt ?? "" }),
                  literal(applied.map { $0.outcome.ballotId }), literal(applied.map { String($0.outcome.amount ?? 0) }),
                  literal(applied.map { String($0.outcome.total ?? 0) }), literal(applied.map { String($0.outcome.sequence ?? 0) }),
                  literal(applied.map { $0.outcome.updatedAt ?? "" }), literal(applied.map { $0.event.id }),
                  literal(applied.map { $0.event.routingKey }),
                  literal(applied.map { String(decoding: $0.event.body, as: UTF8.self) }), "pending", claim,
                  literal(applied.map { $0.outcome.permissionsVersion ?? "" })])
        return (statement, settlement.events)
    }

    /// The statement `settleStatement` makes. Every part runs whether or not the final INSERT reads it; the outbox rows are
    /// added by `Outbox.addAllSQL`. Each part finds its ballots by `ballot_id = ANY(...)` on the primary key, whatever the join order the
    /// plan picks: a generic plan made while the ledger looked empty (the statistics of a fresh database) read
    /// the whole table at every round, joined to the batch. `pending` is a parameter ($15): with the literal,
    /// the plan read the whole `ballots_pending` index (every pending ballot, and the entries of every ballot
    /// settled since the last vacuum) into a hash at every round.
    static let settleSQL = """
        WITH refused AS (
            UPDATE ballots AS b SET state = 'rejected', error_code = x.code, error_message = x.message
            FROM unnest($1::uuid[], $2::integer[], $3::text[]) AS x(id, code, message)
            WHERE b.ballot_id = ANY($1::uuid[]) AND b.ballot_id = x.id AND b.state = $15 RETURNING 1
        ), unchanged AS (
            UPDATE ballots AS b SET state = 'unchanged', amount = 0, total = x.total, updated_at = x.updated,
                applied_at = now()
            FROM unnest($4::uuid[], $5::double precision[], $6::text[]) AS x(id, total, updated)
            WHERE b.ballot_id = ANY($4::uuid[]) AND b.ballot_id = x.id AND b.state = $15 RETURNING 1
        ), marked AS (
            UPDATE ballots AS b SET state = 'applied', amount = x.amount, total = x.total, sequence = x.sequence,
                updated_at = x.updated, event_id = x.event, applied_at = now(),
                permissions_version = NULLIF(x.permissions, '')
            FROM unnest($7::uuid[], $8::double precision[], $9::double precision[], $10::bigint[], $11::text[], $12::uuid[],
                        $17::text[])
                AS x(id, amount, total, sequence, updated, event, permissions)
            WHERE b.ballot_id = ANY($7::uuid[]) AND b.ballot_id = x.id AND b.state = $15 RETURNING b.event_id
        )
        \(Outbox.addAllSQL(ids: "$12::uuid[]", routingKeys: "$13::text[]", payloads: "$14::jsonb[]",
                           onlyIds: "SELECT event_id FROM marked", claim: "$16::interval"))
        """

    static let selectBallot = """
        SELECT ballot_id::text AS ballot_id, request_id, voter_identity::text AS voter_identity, class_name, object_id, field,
               kind, value, state, total, updated_at, error_code, error_message FROM ballots
        """

    static func existing(_ row: PostgresRow) -> Existing? {
        guard let ballot = ballot(row) else { return nil }
        switch row["state"] {
        case "applied", "unchanged":
            return .applied(ballot, AppliedBallot(total: row.double("total") ?? 0, updatedAt: row["updated_at"] ?? ""))
        case "rejected":
            return .rejected(ballot, ParseError(.init(rawValue: row.int("error_code") ?? 1), row["error_message"] ?? ""))
        default:
            return .pending(ballot)
        }
    }

    static func ballot(_ row: PostgresRow) -> Ballot? {
        guard let id = row["ballot_id"], let requestId = row["request_id"], let className = row["class_name"],
              let objectId = row["object_id"], let field = row["field"],
              let kind = row["kind"].flatMap(CastVote.Kind.init(rawValue:)), let value = row.double("value"),
              let voter = row["voter_identity"].flatMap({ try? JSONDecoder().decode(Identity.self, from: Data($0.utf8)) })
        else { return nil }
        return Ballot(ballotId: id, requestId: requestId, voter: voter,
                      vote: CastVote(className: className, objectId: objectId, field: field, kind: kind, value: value))
    }

    /// The voter as `posts` needs it to check permissions, as `Identity`'s Codable form with sorted keys; the
    /// session token is not kept. Written by hand: it is written for every ballot.
    static func identityText(_ identity: Identity) -> String {
        if identity == .anonymous { return anonymousText }
        var json = JSONObjectWriter(capacity: 96)
        json.object { json in
            json.member("isMaster", bool: identity.isMaster)
            json.member("isReadOnlyMaster", bool: identity.isReadOnlyMaster)
            json.member("roles", strings: identity.roles)
            if let userId = identity.userId { json.member("userId", string: userId) }
        }
        return json.text
    }

    private static let anonymousText = #"{"isMaster":false,"isReadOnlyMaster":false,"roles":[]}"#
}

enum LedgerError: Error { case ballotVanished(String) }

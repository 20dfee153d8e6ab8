import Contracts
import Foundation
import ParseWire
import Storage

/// `votes.replay.v1`: the events of applied ballots, rebuilt from the ledger as `VoteCast`s with the ids and
/// sequences they were published with, so that tools read the ledger through the votes service and never its
/// tables. Each event's time is the moment the ledger marked its ballot applied (within milliseconds of the live
/// event's).
struct ReplayVotesHandler: Sendable {
    let pool: PostgresPool

    static let largestPage = 5000

    func handle(_ command: Command<ReplayVotes>) async throws -> ReplayedVotes {
        guard command.identity.isMaster else {
            throw ParseError(.operationForbidden, "Replaying vote events requires the master key.")
        }
        let request = command.payload
        guard let from = ParseDate.date(from: request.from) else { throw ParseError(.invalidJSON, "Invalid from date.") }
        let limit = min(max(request.limit, 1), Self.largestPage)
        var parameters: [(any PostgresBindable)?] = [from]
        // The literal state lets the plan use the partial index `ballots_applied_time`.
        var conditions = ["state = 'applied'", "applied_at >= $1::timestamptz"]
        if let to = request.to {
            guard let date = ParseDate.date(from: to) else { throw ParseError(.invalidJSON, "Invalid to date.") }
            parameters.append(date)
            conditions.append("applied_at < $\(parameters.count)::timestamptz")
        }
        if let className = request.className {
            parameters.append(className)
            conditions.append("class_name = $\(parameters.count)")
        }
        if let after = request.after {
            let first = parameters.count + 1
            parameters += [after.className, after.objectId, after.field, after.sequence]
            conditions.append("(class_name, object_id, field, sequence) > ($\(first), $\(first + 1), $\(first + 2), $\(first + 3)::bigint)")
        }
        let rows = try await pool.query("""
            SELECT event_id::text AS event_id, ballot_id::text AS ballot_id, request_id, voter, class_name, object_id,
                   field, amount, total, sequence, permissions_version,
                   (extract(epoch FROM applied_at) * 1000)::bigint AS applied_ms
            FROM ballots WHERE \(conditions.joined(separator: " AND "))
            ORDER BY class_name, object_id, field, sequence LIMIT \(limit)
            """, parameters).rows
        let events = rows.compactMap(Self.event)
        let next = events.count == limit ? events.last.map {
            VoteReplayCursor(className: $0.vote.className, objectId: $0.vote.objectId, field: $0.vote.field,
                             sequence: $0.vote.sequence)
        } : nil
        return ReplayedVotes(events: events, next: next)
    }

    static func event(_ row: PostgresRow) -> ReplayedVotes.Event? {
        guard let id = row["event_id"], let ballotId = row["ballot_id"], let requestId = row["request_id"],
              let className = row["class_name"], let objectId = row["object_id"], let field = row["field"],
              let amount = row.double("amount"), let total = row.double("total"), let sequence = row.int("sequence"),
              let milliseconds = row.double("applied_ms") else { return nil }
        let vote = VoteCast(ballotId: ballotId, className: className, objectId: objectId, field: field, amount: amount,
                            total: total, sequence: sequence, voter: row["voter"], requestId: requestId,
                            permissionsVersion: row["permissions_version"])
        return ReplayedVotes.Event(id: id, time: ParseDate.string(from: Date(timeIntervalSince1970: milliseconds / 1000)),
                                   vote: vote)
    }
}

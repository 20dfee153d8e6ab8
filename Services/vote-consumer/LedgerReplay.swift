import Foundation
import Runtime
import Storage

/// Rebuilds, from the ledger, the events of the ballots applied in a time range: the same ids, types, routing
/// data and sequence numbers as the live events, so a consumer that missed some (or starts fresh) can replay and
/// dedupe by id. Reads the votes database only.
struct LedgerReplay: Sendable {
    let options: VoteConsumerOptions
    let databaseURL: String
    let logger: Logger

    func run() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(url: databaseURL, poolSize: 1), logger: logger)
        var conditions = ["state = 'applied'", "applied_at >= $1::timestamptz"]
        var parameters: [(any PostgresBindable)?] = [options.from ?? Date(timeIntervalSince1970: 0)]
        if let to = options.to { parameters.append(to); conditions.append("applied_at < $\(parameters.count)::timestamptz") }
        if let className = options.className { parameters.append(className); conditions.append("class_name = $\(parameters.count)") }
        // The event is rebuilt in SQL so that its JSON is exactly the outbox's shape.
        let rows = try await pool.query("""
            SELECT jsonb_build_object(
                'specversion', '1.0', 'id', event_id::text, 'source', '/parse/votes',
                'type', CASE WHEN amount < 0 THEN 'vote.retracted.v1' ELSE 'vote.cast.v1' END,
                'time', to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                'subject', class_name || '/' || object_id, 'datacontenttype', 'application/json',
                'data', jsonb_build_object('ballotId', ballot_id::text, 'className', class_name, 'objectId', object_id,
                    'field', field, 'amount', amount, 'total', total, 'sequence', sequence, 'voter', voter,
                    'requestId', request_id))::text AS event
            FROM ballots WHERE \(conditions.joined(separator: " AND "))
            ORDER BY class_name, object_id, field, sequence
            """, parameters).rows
        for row in rows { print(row["event"] ?? "") }
        await pool.close()
        logger.info("replayed", ["events": String(rows.count)])
    }
}

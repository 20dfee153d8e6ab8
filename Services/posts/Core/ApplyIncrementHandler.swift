import Contracts
import Foundation
import Messaging
import ParseWire
import Query
import Storage

/// Applies ballots from the `votes` service to one object's counter, each exactly once: the ids of applied ballots
/// are kept in `vote_applied`, written in the transaction that changes the counter. All ballots of a command share
/// one transaction and one `UPDATE` of the object's row, so a hot object costs one row lock per batch, not per vote.
struct ApplyIncrementHandler: Sendable {
    let pool: PostgresPool

    static func register(_ router: inout CommandRouter, _ pool: PostgresPool) {
        let handler = ApplyIncrementHandler(pool: pool)
        router.register(ApplyIncrementBatch.type, ApplyIncrementBatch.self) { command, _ in
            try await handler.apply(command.payload)
        }
    }

    /// One transaction for the whole batch; counters are locked in a fixed order so that two batches never wait
    /// for each other in a cycle.
    func apply(_ batch: ApplyIncrementBatch) async throws -> AppliedIncrements {
        let groups = batch.groups.sorted { ($0.className, $0.objectId, $0.field) < ($1.className, $1.objectId, $1.field) }
        return try await pool.transaction { connection in
            var outcomes: [AppliedIncrements.Outcome] = []
            for group in groups {
                if let refusal = Self.invalidNames(group) {
                    outcomes += group.ballots.map { .init(ballotId: $0.ballotId, error: refusal) }
                } else {
                    outcomes += try await Self.apply(group, on: connection).outcomes
                }
            }
            return AppliedIncrements(outcomes: outcomes)
        }
    }

    private static func invalidNames(_ group: ApplyIncrements) -> ParseError? {
        do {
            try Names.requireClassName(group.className)
        } catch {
            return error
        }
        return Names.isValidFieldName(group.field) ? nil : ParseError(.invalidKeyName, "Invalid field name: \(group.field).")
    }

    private static func apply(_ request: ApplyIncrements, on connection: PostgresConnection) async throws -> AppliedIncrements {
        let ids = request.ballots.map(\.ballotId)
        guard ids.allSatisfy({ UUID(uuidString: $0) != nil }) else { throw ParseError(.invalidJSON, "Invalid ballot id.") }
        let refuseAll = { (error: ParseError) in AppliedIncrements(outcomes: ids.map { .init(ballotId: $0, error: error) }) }
        let notFound = ParseError(.objectNotFound, "Object not found.")
        guard var schema = try await SchemaStore.load(request.className, on: connection) else { return refuseAll(notFound) }
        let number = FieldType(.number)
        if let type = schema.type(of: request.field), type != number {
            return refuseAll(ParseError(.incorrectType,
                                        "schema mismatch for \(request.className).\(request.field); expected \(type.description) but got Number"))
        }

        var parameters = SQLParameters()
        let table = Names.table(request.className), column = Names.quoted(request.field)
        // The row lock orders every ballot of this object; reading the applied ids after taking it sees all earlier ones.
        let valueColumn = schema.fields[request.field] == nil ? "NULL" : column
        let row = try await connection.query(
            "SELECT \"_wperm\", \(valueColumn)::text AS value FROM \(table) WHERE \"objectId\" = \(parameters.bind(request.objectId)) FOR UPDATE",
            parameters.values).first
        guard let row else { return refuseAll(notFound) }
        let writers = row["_wperm"].map(TextArray.parse)
        let previous = try await connection.query(
            "SELECT ballot_id::text AS ballot_id, amount, total, sequence, updated_at FROM vote_applied WHERE ballot_id = ANY($1::uuid[])",
            [SQLParameters.arrayLiteral(ids)])
        var earlier: [String: AppliedIncrements.Outcome] = [:]
        for stored in previous.rows {
            guard let id = stored["ballot_id"] else { continue }
            earlier[id] = .init(ballotId: id, amount: stored.double("amount"), total: stored.double("total"),
                                sequence: stored.int("sequence"), updatedAt: stored["updated_at"])
        }

        let start = row.double("value") ?? 0
        var running = start
        var sequence = try await connection.query(
            "SELECT COALESCE(max(sequence), 0) AS last FROM vote_applied WHERE class_name = $1 AND object_id = $2 AND field = $3",
            [request.className, request.objectId, request.field]).first?.int("last") ?? 0
        let updatedAt = ParseDate.string(from: ObjectWriter.now())
        var outcomes: [AppliedIncrements.Outcome] = []
        var fresh: [AppliedIncrements.Outcome] = []
        var seen = Set<String>()
        for ballot in request.ballots {
            if let done = earlier[ballot.ballotId] { outcomes.append(done); continue }
            guard seen.insert(ballot.ballotId).inserted else { continue }
            if let refusal = refusal(for: ballot.voter, schema: schema, writers: writers) {
                outcomes.append(.init(ballotId: ballot.ballotId, error: refusal))
                continue
            }
            let amount = ballot.kind == .increment ? ballot.value : ballot.value - running
            running += amount
            sequence += 1
            let outcome = AppliedIncrements.Outcome(ballotId: ballot.ballotId, amount: amount, total: running,
                                                    sequence: sequence, updatedAt: updatedAt)
            outcomes.append(outcome)
            fresh.append(outcome)
        }
        guard !fresh.isEmpty else { return AppliedIncrements(outcomes: outcomes) }

        if schema.fields[request.field] == nil {
            schema = try await SchemaStore.ensure(request.className, fields: [request.field: number], current: schema, on: connection)
        }
        _ = try await connection.query(
            "UPDATE \(table) SET \(column) = $2::double precision, \"updatedAt\" = $3::timestamptz WHERE \"objectId\" = $1",
            [request.objectId, running, updatedAt])
        _ = try await connection.query("""
            INSERT INTO vote_applied (ballot_id, class_name, object_id, field, amount, total, sequence, updated_at)
            SELECT b, $2, $3, $4, a, t, s, $8 FROM unnest($1::uuid[], $5::double precision[], $6::double precision[], $7::bigint[]) AS x(b, a, t, s)
            """, [SQLParameters.arrayLiteral(fresh.map(\.ballotId)), request.className, request.objectId, request.field,
                  SQLParameters.arrayLiteral(fresh.map { String($0.amount ?? 0) }), SQLParameters.arrayLiteral(fresh.map { String($0.total ?? 0) }),
                  SQLParameters.arrayLiteral(fresh.map { String($0.sequence ?? 0) }), updatedAt])
        return AppliedIncrements(outcomes: outcomes)
    }

    /// The voter's right to write the object: the read-only master key never; class-level `update`; the ACL, where
    /// a refusal looks like a missing object, as for any other update.
    private static func refusal(for voter: Identity, schema: ClassSchema, writers: [String]?) -> ParseError? {
        do {
            try ClassPermissions.refuseReadOnlyMaster(voter, "update")
            try ClassPermissions.check("update", schema: schema, identity: voter)
        } catch {
            return error
        }
        guard !voter.isMaster, let writers else { return nil }
        let groups = AccessControl.groups(voter)
        return writers.contains(where: groups.contains) ? nil : ParseError(.objectNotFound, "Object not found.")
    }
}

/// PostgreSQL's text form of a one-dimensional array, for binding lists as one parameter.
enum TextArray {
    /// Reads `{a,b,"c d"}` as PostgreSQL prints a text[] (the ACL entries are ids and `role:` names).
    static func parse(_ text: String) -> [String] {
        let inner = text.dropFirst().dropLast()
        guard !inner.isEmpty else { return [] }
        return inner.split(separator: ",").map { item in
            var value = String(item)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
        }
    }
}

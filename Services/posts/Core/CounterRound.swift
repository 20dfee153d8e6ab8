import Contracts
import ParseWire
import Storage

/// The ballots of one class in one `votes.apply.v1` batch, applied with a fixed number of statements whatever the
/// number of objects: one lock of every row concerned, one read each of the earlier ballots, the last sequences and
/// the likes, then one write per changed field and per table. Must run inside a transaction.
struct CounterRound {
    typealias Outcome = AppliedIncrements.Outcome
    typealias Target = CounterTally.Target

    let className: String
    let groups: [ApplyIncrements]

    func apply(on connection: PostgresConnection) async throws -> [Outcome] {
        do {
            try Names.requireClassName(className)
        } catch {
            return Self.refuse(groups, error)
        }
        var outcomes: [Outcome] = []
        var live: [ApplyIncrements] = []
        for group in groups {
            if Names.isValidFieldName(group.field) {
                live.append(group)
            } else {
                outcomes += Self.refuse([group], ParseError(.invalidKeyName, "Invalid field name: \(group.field)."))
            }
        }
        guard !live.isEmpty else { return outcomes }
        guard let schema = try await SchemaStore.load(className, on: connection) else {
            return outcomes + Self.refuse(live, CounterTally.notFound)
        }
        let number = FieldType(.number)
        var counted: [ApplyIncrements] = []
        for group in live {
            if let type = schema.type(of: group.field), type != number {
                outcomes += Self.refuse([group], ParseError(
                    .incorrectType, "schema mismatch for \(className).\(group.field); expected \(type.description) but got Number"))
            } else {
                counted.append(group)
            }
        }
        guard !counted.isEmpty else { return outcomes }

        // The row locks order every ballot of these objects; what is read after taking them includes all earlier ones.
        let fields = Array(Set(counted.map(\.field))).sorted()
        let rows = try await lockRows(Array(Set(counted.map(\.objectId))).sorted(), fields: fields, schema: schema, on: connection)
        let present = counted.filter { rows[$0.objectId] != nil }
        var tally = CounterTally(
            schema: schema, rows: rows,
            earlier: try await earlierOutcomes(counted.flatMap { $0.ballots.map(\.ballotId) }, on: connection),
            lastSequences: try await lastSequences(present.map { Target(objectId: $0.objectId, field: $0.field) }, on: connection),
            likes: try await currentLikes(present.filter(\.oncePerUser), on: connection),
            updatedAt: ParseDate.string(from: ObjectWriter.now()))
        for group in counted { tally.decide(group) }
        outcomes += tally.outcomes

        let newFields = Set(tally.totals.keys.map(\.field)).filter { schema.fields[$0] == nil }
        if !newFields.isEmpty {
            _ = try await SchemaStore.ensure(className, fields: Dictionary(uniqueKeysWithValues: newFields.map { ($0, number) }),
                                         current: schema, on: connection)
        }
        try await write(tally, on: connection)
        return outcomes
    }

    private static func refuse(_ groups: [ApplyIncrements], _ error: ParseError) -> [Outcome] {
        groups.flatMap { $0.ballots.map { Outcome(ballotId: $0.ballotId, error: error) } }
    }

    private var table: String { Names.table(className) }

    /// `SELECT ... FOR UPDATE` of every object in id order; a counter column the class does not have yet reads NULL.
    private func lockRows(_ objectIds: [String], fields: [String], schema: ClassSchema,
                          on connection: PostgresConnection) async throws -> [String: CounterTally.LockedRow] {
        let counters = fields.map { schema.fields[$0] == nil ? "NULL" : Names.quoted($0) + "::text" }
        let result = try await connection.query("""
            SELECT "objectId", "_wperm", \(ValueCodec.dateText("\"updatedAt\"")), \(counters.joined(separator: ", "))
            FROM \(table) WHERE "objectId" = ANY($1::text[]) ORDER BY "objectId" FOR UPDATE
            """, [SQLParameters.arrayLiteral(objectIds)])
        var rows: [String: CounterTally.LockedRow] = [:]
        for row in result.rows {
            guard let objectId = row[0] else { continue }
            var values: [String: Double] = [:]
            for (index, field) in fields.enumerated() {
                if let value = row[3 + index].flatMap(Double.init) { values[field] = value }
            }
            rows[objectId] = .init(writers: row[1].map(TextArray.parse), updatedAt: row[2] ?? "", values: values)
        }
        return rows
    }

    private func earlierOutcomes(_ ballotIds: [String], on connection: PostgresConnection) async throws -> [String: Outcome] {
        let previous = try await connection.query(
            "SELECT ballot_id::text, amount, total, sequence, updated_at FROM vote_applied WHERE ballot_id = ANY($1::uuid[])",
            [SQLParameters.arrayLiteral(ballotIds)])
        var earlier: [String: Outcome] = [:]
        for stored in previous.rows {
            guard let id = stored[0] else { continue }
            earlier[id] = Outcome(ballotId: id, amount: stored[1].flatMap(Double.init), total: stored[2].flatMap(Double.init),
                                  sequence: stored[3].flatMap { Int($0) }, updatedAt: stored[4])
        }
        return earlier
    }

    private func lastSequences(_ targets: [Target], on connection: PostgresConnection) async throws -> [Target: Int] {
        guard !targets.isEmpty else { return [:] }
        let result = try await connection.query("""
            SELECT x.o, x.f, (SELECT max(v.sequence) FROM vote_applied v
                              WHERE v.class_name = $1 AND v.object_id = x.o AND v.field = x.f)
            FROM unnest($2::text[], $3::text[]) AS x(o, f)
            """, [className, SQLParameters.arrayLiteral(targets.map(\.objectId)), SQLParameters.arrayLiteral(targets.map(\.field))])
        var last: [Target: Int] = [:]
        for row in result.rows {
            guard let objectId = row[0], let field = row[1] else { continue }
            last[Target(objectId: objectId, field: field)] = row[2].flatMap { Int($0) } ?? 0
        }
        return last
    }

    /// The likes already given by the voters of these ballots, for the counters under the one-vote-per-user rule.
    private func currentLikes(_ groups: [ApplyIncrements], on connection: PostgresConnection) async throws -> Set<CounterTally.Like> {
        let asked = groups.flatMap { group in
            group.ballots.compactMap { ballot in
                ballot.voter.userId.map { CounterTally.Like(target: Target(objectId: group.objectId, field: group.field), voter: $0) }
            }
        }
        guard !asked.isEmpty else { return [] }
        let result = try await connection.query("""
            SELECT l.object_id, l.field, l.voter FROM vote_likes l
            JOIN unnest($2::text[], $3::text[], $4::text[]) AS x(o, f, v) ON l.object_id = x.o AND l.field = x.f AND l.voter = x.v
            WHERE l.class_name = $1
            """, [className, SQLParameters.arrayLiteral(asked.map(\.target.objectId)),
                  SQLParameters.arrayLiteral(asked.map(\.target.field)), SQLParameters.arrayLiteral(asked.map(\.voter))])
        return Set(result.rows.compactMap { row in
            guard let objectId = row[0], let field = row[1], let voter = row[2] else { return nil }
            return CounterTally.Like(target: Target(objectId: objectId, field: field), voter: voter)
        })
    }

    private func write(_ tally: CounterTally, on connection: PostgresConnection) async throws {
        let literal = SQLParameters.arrayLiteral
        let changed = tally.totals.sorted { ($0.key.field, $0.key.objectId) < ($1.key.field, $1.key.objectId) }
        for field in Set(changed.map(\.key.field)).sorted() {
            let counters = changed.filter { $0.key.field == field }
            _ = try await connection.query("""
                UPDATE \(table) AS t SET \(Names.quoted(field)) = x.v, "updatedAt" = $3::timestamptz
                FROM unnest($1::text[], $2::double precision[]) AS x(id, v) WHERE t."objectId" = x.id
                """, [literal(counters.map(\.key.objectId)), TextArray.numbers(counters.map(\.value)), tally.updatedAt])
        }
        let recorded = tally.recorded
        if !recorded.isEmpty {
            _ = try await connection.query("""
                INSERT INTO vote_applied (ballot_id, class_name, object_id, field, amount, total, sequence, updated_at)
                SELECT b, $1, o, f, a, t, s, u FROM unnest($2::uuid[], $3::text[], $4::text[], $5::double precision[],
                                                         $6::double precision[], $7::bigint[], $8::text[]) AS x(b, o, f, a, t, s, u)
                """, [className, literal(recorded.map(\.outcome.ballotId)), literal(recorded.map(\.target.objectId)),
                      literal(recorded.map(\.target.field)), TextArray.numbers(recorded.map { $0.outcome.amount ?? 0 }),
                      TextArray.numbers(recorded.map { $0.outcome.total ?? 0 }), TextArray.numbers(recorded.map(\.outcome.sequence)),
                      literal(recorded.map { $0.outcome.updatedAt ?? "" })])
        }
        // The primary key of `vote_likes` backs the decisions: a like counted twice would fail the transaction.
        let added = tally.likesAdded
        if !added.isEmpty {
            _ = try await connection.query("""
                INSERT INTO vote_likes (class_name, object_id, field, voter, ballot_id)
                SELECT $1, o, f, v, b FROM unnest($2::text[], $3::text[], $4::text[], $5::uuid[]) AS x(o, f, v, b)
                """, [className, literal(added.map(\.like.target.objectId)), literal(added.map(\.like.target.field)),
                      literal(added.map(\.like.voter)), literal(added.map(\.ballotId))])
        }
        let removed = tally.likesRemoved
        if !removed.isEmpty {
            _ = try await connection.query("""
                DELETE FROM vote_likes l USING unnest($2::text[], $3::text[], $4::text[]) AS x(o, f, v)
                WHERE l.class_name = $1 AND l.object_id = x.o AND l.field = x.f AND l.voter = x.v
                """, [className, literal(removed.map(\.target.objectId)), literal(removed.map(\.target.field)),
                      literal(removed.map(\.voter))])
        }
    }
}

import Contracts
import ParseWire
import Query
import Storage

/// The ballots of one class in one `votes.apply.v1` batch, applied with a fixed number of statements whatever the
/// number of objects: one lock of every row concerned, one read each of the earlier ballots, the last sequences and
/// the likes, then one write per changed field and per table; or, on counters this process remembers, the write
/// alone (`CounterUpdate+Cached.swift`). Must run inside a transaction.
struct CounterUpdate {
    typealias Target = CounterTally.Target

    let className: String
    let groups: [CounterBallots]

    /// What a round applied: its outcomes, the statements left to send (its write, which goes out with the COMMIT
    /// or the next class's first trip), and what its counters hold once it commits, for `CounterCache`.
    struct Applied {
        var outcomes: [BallotResult]
        var queued: [PostgresStatement]
        var remembered: [CounterCache.Key: CounterCache.Entry] = [:]
    }

    /// Applies the class's ballots on `connection`, inside a transaction. `sending` are statements still to send
    /// (the transaction's BEGIN, the previous class's write): they go out with this round's first, so a round costs
    /// one round trip (the schema, the row locks and the earlier ballots) when this process has the class's schema,
    /// two when not.
    func apply(on connection: PostgresConnection, sending queued: [PostgresStatement]) async throws -> Applied {
        do {
            try Names.requireClassName(className)
        } catch {
            return Applied(outcomes: Self.refuse(groups, error), queued: queued)
        }
        var outcomes: [BallotResult] = []
        var live: [CounterBallots] = []
        for group in groups {
            if Names.isValidFieldName(group.field) {
                live.append(group)
            } else {
                outcomes += Self.refuse([group], ParseError(.invalidKeyName, "Invalid field name: \(group.field)."))
            }
        }
        guard !live.isEmpty else { return Applied(outcomes: outcomes, queued: queued) }

        // The schema is read in the transaction, and in the same round trip the rows are locked and the earlier
        // ballots read (after the locks: the server runs the statements in order), with the columns of the schema
        // this process read last; those results are kept only if the schema read now is that one.
        let cached = SchemaCache.shared.get(className)
        let guessed = cached.map { lockAndReadStatements(countable(live, schema: $0).counted, schema: $0) } ?? []
        let firstResults = try await connection.pipeline(queued + [SchemaStore.loadStatement(className)] + guessed)
        guard let schema = SchemaStore.loaded(className, firstResults[queued.count]) else {
            return Applied(outcomes: outcomes + Self.refuse(live, CounterTally.notFound), queued: [])
        }
        let (counted, refused) = countable(live, schema: schema)
        outcomes += refused
        guard !counted.isEmpty else { return Applied(outcomes: outcomes, queued: []) }
        let read = !guessed.isEmpty && cached?.fingerprint == schema.fingerprint && !schema.fingerprint.isEmpty
            ? Array(firstResults.suffix(2)) : try await connection.pipeline(lockAndReadStatements(counted, schema: schema))
        let rows = lockedRows(read[0], fields: fields(counted))
        let earlier = Self.earlier(read[1])
        var tally = CounterTally(schema: schema, rows: rows, earlier: earlier.outcomes, lastSequences: earlier.lastSequences,
                                 likes: earlier.likes, updatedAt: ParseDate.string(from: ObjectWriter.now()))
        for group in counted { tally.decide(group) }
        outcomes += tally.outcomes

        let newFields = Set(tally.totals.keys.map { $0.field }).filter { schema.fields[$0] == nil }
        if !newFields.isEmpty {
            let number = FieldType(.number)
            _ = try await SchemaStore.ensure(className, fields: Dictionary(uniqueKeysWithValues: newFields.map { ($0, number) }),
                                         current: schema, on: connection)
        }
        return Applied(outcomes: outcomes, queued: write(tally).map { [$0] } ?? [],
                       remembered: remembered(counted, tally: tally))
    }

    /// The groups whose field is a Number or not there yet (counted from 0), and refusals for the others.
    private func countable(_ live: [CounterBallots], schema: ClassSchema) -> (counted: [CounterBallots], refused: [BallotResult]) {
        let number = FieldType(.number)
        var counted: [CounterBallots] = []
        var refused: [BallotResult] = []
        for group in live {
            if let type = schema.type(of: group.field), type != number {
                refused += Self.refuse([group], ParseError(
                    .incorrectType, "schema mismatch for \(className).\(group.field); expected \(type.description) but got Number"))
            } else {
                counted.append(group)
            }
        }
        return (counted, refused)
    }

    private func fields(_ groups: [CounterBallots]) -> [String] { Array(Set(groups.map { $0.field })).sorted() }

    private static func refuse(_ groups: [CounterBallots], _ error: ParseError) -> [BallotResult] {
        groups.flatMap { $0.ballots.map { BallotResult(ballotId: $0.ballotId, error: error) } }
    }

    private var table: String { Names.table(className) }

    /// `SELECT ... FOR UPDATE` of every object of `groups` in id order; a counter column the class does not have
    /// yet reads NULL. Nil when there is nothing to lock.
    private func lockStatement(_ groups: [CounterBallots], schema: ClassSchema) -> PostgresStatement? {
        guard !groups.isEmpty else { return nil }
        let counters = fields(groups).map { schema.fields[$0] == nil ? "NULL" : Names.quoted($0) + "::text" }
        return PostgresStatement("""
            SELECT "objectId", "_wperm", \(ValueCodec.dateText("\"updatedAt\"")), \(counters.joined(separator: ", "))
            FROM \(table) WHERE "objectId" = ANY($1::text[]) ORDER BY "objectId" FOR UPDATE
            """, [PostgresArray.literal(Array(Set(groups.map { $0.objectId })).sorted())])
    }

    private func lockedRows(_ result: PostgresResult, fields: [String]) -> [String: CounterTally.LockedRow] {
        var rows: [String: CounterTally.LockedRow] = [:]
        for row in result.rows {
            guard let objectId = row[0] else { continue }
            var values: [String: Double] = [:]
            for (index, field) in fields.enumerated() {
                if let value = row[3 + index].flatMap(Double.init) { values[field] = value }
            }
            rows[objectId] = .init(writers: row[1].map(PostgresArray.strings), updatedAt: row[2] ?? "", values: values)
        }
        return rows
    }

    /// The row locks, then what the locked counters have already seen; none when nothing is counted.
    private func lockAndReadStatements(_ counted: [CounterBallots], schema: ClassSchema) -> [PostgresStatement] {
        guard let lock = lockStatement(counted, schema: schema) else { return [] }
        return [lock, earlierStatement(counted)]
    }

    /// What the counters of `counted` have already seen: the outcomes of ballots applied before (a retry), each
    /// counter's last sequence, and which of the voters already like it. One statement: the three reads are the
    /// branches of one UNION ALL, told apart by their first column, with the other columns reused per branch. (A
    /// counter of an object that does not exist reads no sequence and no like, and is never used.) Each like is
    /// looked up by its whole key (the `LIMIT` keeps the lookup per asked like, in any plan): joined, a plan made
    /// while `vote_likes` looked empty walked all the class's likes.
    func earlierStatement(_ counted: [CounterBallots]) -> PostgresStatement {
        let literal: ([String]) -> String = PostgresArray.literal
        let likes = Self.askedLikes(counted.filter { $0.oncePerUser })
        return PostgresStatement("""
            SELECT 'applied' AS kind, ballot_id::text AS a, NULL::text AS b, NULL::text AS c, amount, total, sequence, updated_at
            FROM vote_applied WHERE ballot_id = ANY($2::uuid[])
            UNION ALL
            SELECT 'last', x.o, x.f, NULL, NULL, NULL,
                   (SELECT max(v.sequence) FROM vote_applied v WHERE v.class_name = $1 AND v.object_id = x.o AND v.field = x.f), NULL
            FROM unnest($3::text[], $4::text[]) AS x(o, f)
            UNION ALL
            SELECT 'like', l.object_id, l.field, l.voter, NULL, NULL, NULL, NULL
            FROM unnest($5::text[], $6::text[], $7::text[]) AS x(o, f, v),
                 LATERAL (SELECT * FROM vote_likes l
                          WHERE l.class_name = $1 AND l.object_id = x.o AND l.field = x.f AND l.voter = x.v LIMIT 1) AS l
            """, [className, literal(counted.flatMap { $0.ballots.map { $0.ballotId } }),
                  literal(counted.map { $0.objectId }), literal(counted.map { $0.field }),
                  literal(likes.map { $0.target.objectId }), literal(likes.map { $0.target.field }), literal(likes.map { $0.voter })])
    }

    private static func earlier(_ result: PostgresResult)
        -> (outcomes: [String: BallotResult], lastSequences: [Target: Int], likes: Set<CounterTally.Like>) {
        var outcomes: [String: BallotResult] = [:]
        var last: [Target: Int] = [:]
        var liked = Set<CounterTally.Like>()
        for row in result.rows {
            guard let first = row[1] else { continue }
            switch row[0] {
            case "applied":
                outcomes[first] = BallotResult(ballotId: first, amount: row[4].flatMap(Double.init), total: row[5].flatMap(Double.init),
                                          sequence: row[6].flatMap { Int($0) }, updatedAt: row[7])
            case "last":
                if let field = row[2] { last[Target(objectId: first, field: field)] = row[6].flatMap { Int($0) } ?? 0 }
            default:
                if let field = row[2], let voter = row[3] {
                    liked.insert(CounterTally.Like(target: Target(objectId: first, field: field), voter: voter))
                }
            }
        }
        return (outcomes, last, liked)
    }

    /// The likes to look up: each voter's, on the counters under the one-vote-per-user rule.
    private static func askedLikes(_ groups: [CounterBallots]) -> [CounterTally.Like] {
        groups.flatMap { group in
            group.ballots.compactMap { ballot in
                ballot.voter.userId.map { CounterTally.Like(target: Target(objectId: group.objectId, field: group.field), voter: $0) }
            }
        }
    }

    /// Every change in one statement: the counters and `updatedAt` (one UPDATE for all objects and fields of the
    /// class, a field an object does not change kept by COALESCE, as PostgreSQL applies only one of two updates
    /// of a row in one statement), the likes added and removed, and the ballots recorded in `vote_applied`. Nil
    /// when there is nothing to write. Each join to a batch also names the batch's keys with `= ANY`, so that the
    /// table is reached through its primary key whichever join order the plan takes: a generic plan made while a
    /// table looked empty would otherwise walk all of it, joined to the batch, until the plan is made again.
    ///
    /// With `fingerprint` (a round decided from `CounterCache`), the write also checks what the decisions assumed:
    /// a counter changes only where the row still holds the value and the write ACL of the tally's rows, and the
    /// statement fails with `changedState` unless every object changed and the class's schema has that fingerprint.
    /// A sequence taken already, or a ballot applied before (a retry), fails it on a unique index.
    func write(_ tally: CounterTally, checkingAgainst fingerprint: String? = nil) -> PostgresStatement? {
        let literal: ([String]) -> String = PostgresArray.literal
        var parameters = SQLParameters()
        var parts: [String] = []
        var check = "", checked: String?
        let className = parameters.bind(self.className)
        let fields = Set(tally.totals.keys.map { $0.field }).sorted()
        if !fields.isEmpty {
            let objects = Set(tally.totals.keys.map { $0.objectId }).sorted()
            let ids = parameters.bind(literal(objects)) + "::text[]"
            var columns = ["id"], sources = [ids], sets: [String] = [], holds: [String] = []
            for (index, field) in fields.enumerated() {
                let values = objects.map { tally.totals[Target(objectId: $0, field: field)] }
                sources.append(parameters.bind(PostgresArray.literal(numbers: values)) + "::double precision[]")
                columns.append("v\(index)")
                sets.append("\(Names.quoted(field)) = COALESCE(x.v\(index), t.\(Names.quoted(field)))")
                if fingerprint != nil {
                    let held = objects.map { tally.rows[$0]?.values[field] }
                    sources.append(parameters.bind(PostgresArray.literal(numbers: held)) + "::double precision[]")
                    columns.append("h\(index)")
                    holds.append("(x.v\(index) IS NULL OR t.\(Names.quoted(field)) IS NOT DISTINCT FROM x.h\(index))")
                }
            }
            if let fingerprint {
                // '' for no ACL: an array literal is never empty text.
                let writers = objects.map { tally.rows[$0]?.writers.map(literal) ?? "" }
                sources.append(parameters.bind(literal(writers)) + "::text[]")
                columns.append("w")
                holds.append("t.\"_wperm\" IS NOT DISTINCT FROM NULLIF(x.w, '')::text[]")
                check = "WHERE (SELECT holds FROM checked)"
                checked = """
                    checked AS (SELECT vote_round_holds((SELECT count(*) FROM counters) = \(parameters.bind(objects.count))
                        AND (SELECT \(SchemaStore.fingerprintSQL) FROM parse_schema WHERE class_name = \(className))
                            = \(parameters.bind(fingerprint))) AS holds)
                    """
            }
            let updatedAt = parameters.bind(tally.updatedAt)
            parts.append("""
                counters AS (UPDATE \(table) AS t SET \(sets.joined(separator: ", ")), "updatedAt" = \(updatedAt)::timestamptz
                    FROM unnest(\(sources.joined(separator: ", "))) AS x(\(columns.joined(separator: ", ")))
                    WHERE t."objectId" = ANY(\(ids)) AND t."objectId" = x.id\(holds.map { " AND " + $0 }.joined()) RETURNING 1)
                """)
            if let checked { parts.append(checked) }
        }
        // The primary key of `vote_likes` backs the decisions: a like counted twice would fail the transaction.
        let added = tally.likesAdded
        if !added.isEmpty {
            parts.append("""
                liked AS (INSERT INTO vote_likes (class_name, object_id, field, voter, ballot_id)
                    SELECT \(className), o, f, v, b FROM unnest(\(parameters.bind(literal(added.map { $0.like.target.objectId })))::text[],
                        \(parameters.bind(literal(added.map { $0.like.target.field })))::text[], \(parameters.bind(literal(added.map { $0.like.voter })))::text[],
                        \(parameters.bind(literal(added.map { $0.ballotId })))::uuid[]) AS x(o, f, v, b) RETURNING 1)
                """)
        }
        let removed = tally.likesRemoved
        if !removed.isEmpty {
            let objects = parameters.bind(literal(removed.map { $0.target.objectId })) + "::text[]"
            parts.append("""
                unliked AS (DELETE FROM vote_likes l USING unnest(\(objects),
                        \(parameters.bind(literal(removed.map { $0.target.field })))::text[], \(parameters.bind(literal(removed.map { $0.voter })))::text[]) AS x(o, f, v)
                    WHERE l.class_name = \(className) AND l.object_id = ANY(\(objects)) AND l.object_id = x.o AND l.field = x.f
                        AND l.voter = x.v RETURNING 1)
                """)
        }
        let recorded = tally.recorded
        let insert = """
            INSERT INTO vote_applied (ballot_id, class_name, object_id, field, amount, total, sequence, updated_at)
            SELECT b, \(className), o, f, a, t, s, u FROM unnest(
                \(parameters.bind(literal(recorded.map { $0.outcome.ballotId })))::uuid[], \(parameters.bind(literal(recorded.map { $0.target.objectId })))::text[],
                \(parameters.bind(literal(recorded.map { $0.target.field })))::text[],
                \(parameters.bind(PostgresArray.literal(numbers: recorded.map { $0.outcome.amount ?? 0 })))::double precision[],
                \(parameters.bind(PostgresArray.literal(numbers: recorded.map { $0.outcome.total ?? 0 })))::double precision[],
                \(parameters.bind(PostgresArray.literal(numbers: recorded.map { $0.outcome.sequence })))::bigint[],
                \(parameters.bind(literal(recorded.map { $0.outcome.updatedAt ?? "" })))::text[]) AS x(b, o, f, a, t, s, u)
            \(check)
            """
        guard !parts.isEmpty || !recorded.isEmpty else { return nil }
        return PostgresStatement((parts.isEmpty ? "" : "WITH " + parts.joined(separator: ",\n") + "\n") + insert,
                                 parameters.values)
    }
}

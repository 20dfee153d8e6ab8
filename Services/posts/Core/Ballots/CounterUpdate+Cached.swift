import Contracts
import ParseWire
import Query
import Storage

/// Rounds on counters this process applied votes to before (`CounterCache`): decided from what it remembers, and
/// written in one statement that checks, under the rows' locks, that they still hold it (`write(_:checkingAgainst:)`).
extension CounterUpdate {
    /// A round decided from `CounterCache`: its outcomes, and its write, which checks what the decisions assumed.
    struct CachedUpdate {
        var outcomes: [BallotResult]
        var write: PostgresStatement
        var remembered: [CounterCache.Key: CounterCache.Entry]
    }

    /// The SQLSTATE of a write whose counters no longer hold what `CounterCache` said (`PostsMigrations.cachedRounds`).
    static let changedState = "PV001"

    /// The round decided from `CounterCache` alone, with a write that checks what it assumed (`write(_:checkingAgainst:)`),
    /// so it costs no read: when this process has the class's schema, every counter is a plain one (no likes) of a
    /// Number field it has applied votes to, and every ballot counts. Nil otherwise: `apply` reads what it needs.
    func cachedUpdate(from counters: CounterCache) -> CachedUpdate? {
        guard (try? Names.requireClassName(className)) != nil, let schema = schemas.get(className),
              !schema.fingerprint.isEmpty else { return nil }
        let number = FieldType(.number)
        var rows: [String: CounterTally.LockedRow] = [:]
        var lastSequences: [Target: Int] = [:]
        for group in groups {
            guard !group.oncePerUser, Names.isValidFieldName(group.field), schema.type(of: group.field) == number,
                  let entry = counters.get(.init(className: className, objectId: group.objectId, field: group.field))
            else { return nil }
            if let row = rows[group.objectId], row.writers != entry.writers { return nil }
            var row = rows[group.objectId] ?? .init(writers: entry.writers, updatedAt: "", values: [:])
            row.values[group.field] = entry.value
            rows[group.objectId] = row
            let target = Target(objectId: group.objectId, field: group.field)
            lastSequences[target] = entry.lastSequence
        }
        var tally = CounterTally(schema: schema, rows: rows, earlier: [:], lastSequences: lastSequences, likes: [],
                                 updatedAt: ParseDate.string(from: ObjectWriter.now()))
        for group in groups { tally.decide(group) }
        guard tally.outcomes.count == groups.reduce(0, { $0 + $1.ballots.count }),
              tally.outcomes.allSatisfy({ $0.error == nil && $0.sequence != nil }),
              let write = write(tally, checkingAgainst: schema.fingerprint) else { return nil }
        return CachedUpdate(outcomes: tally.outcomes, write: write, remembered: remembered(groups, tally: tally))
    }

    /// What the counters of `groups` hold once the round commits (the plain ones: counters under the
    /// one-vote-per-user rule always read their likes).
    func remembered(_ groups: [CounterBallots], tally: CounterTally) -> [CounterCache.Key: CounterCache.Entry] {
        var entries: [CounterCache.Key: CounterCache.Entry] = [:]
        for group in groups where !group.oncePerUser {
            guard let row = tally.rows[group.objectId] else { continue }
            let target = Target(objectId: group.objectId, field: group.field)
            entries[.init(className: className, objectId: group.objectId, field: group.field)] = .init(
                value: tally.totals[target] ?? row.values[group.field], lastSequence: tally.lastSequences[target] ?? 0,
                writers: row.writers)
        }
        return entries
    }
}

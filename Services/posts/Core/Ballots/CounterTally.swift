import Contracts
import ParseWire

/// What each ballot of one class does to its counter, decided in memory once the class's rows are locked and the
/// earlier ballots, sequences and likes are read (see `CounterUpdate`): nobody else can change them meanwhile.
struct CounterTally {

    /// A locked object: who may write it, its `updatedAt` as clients read it, and its counters by field (absent:
    /// not set yet, counted from 0).
    struct LockedRow {
        var writers: [String]?
        var updatedAt: String
        var values: [String: Double]
    }

    struct Target: Hashable {
        var objectId: String
        var field: String
    }

    /// One user's like of one counter.
    struct Like: Hashable {
        var target: Target
        var voter: String
    }

    let schema: ClassSchema
    /// The schema's `permissionsVersion`, given with every ballot that counts: its vote event names it.
    let permissionsVersion: String
    let rows: [String: LockedRow]
    let earlier: [String: BallotResult]
    var lastSequences: [Target: Int]
    /// This batch's `updatedAt` for the objects it changes.
    let updatedAt: String

    private(set) var outcomes: [BallotResult] = []
    /// The new rows of `vote_applied`: applied ballots, and those that changed nothing (so a retry of one is
    /// answered the same, whatever happened since).
    private(set) var recorded: [(target: Target, outcome: BallotResult)] = []
    /// Each changed counter's value after the batch.
    private(set) var totals: [Target: Double] = [:]
    private var likes: Set<Like>
    private let likesBefore: Set<Like>
    /// Which ballot made each like, for `vote_likes`.
    private var likedBy: [Like: String] = [:]
    private var seen = Set<String>()

    init(schema: ClassSchema, rows: [String: LockedRow], earlier: [String: BallotResult], lastSequences: [Target: Int],
         likes: Set<Like>, updatedAt: String) {
        self.schema = schema
        self.permissionsVersion = schema.permissionsVersion
        self.rows = rows
        self.earlier = earlier
        self.lastSequences = lastSequences
        self.likes = likes
        self.likesBefore = likes
        self.updatedAt = updatedAt
    }

    /// Likes to add (with the ballot that made each) and to remove, compared with before the batch.
    var likesAdded: [(like: Like, ballotId: String)] {
        likes.subtracting(likesBefore).map { ($0, likedBy[$0] ?? "") }.sorted { $0.ballotId < $1.ballotId }
    }

    var likesRemoved: [Like] { Array(likesBefore.subtracting(likes)) }

    static let notFound = ParseError(.objectNotFound, "Object not found.")
    /// What posts answers when PostgreSQL finds a number out of range (`PostgresError.queryError`).
    static let outOfRange = ParseError(.incorrectType, "Number out of range.")

    mutating func decide(_ group: CounterBallots) {
        let target = Target(objectId: group.objectId, field: group.field)
        guard let row = rows[group.objectId] else {
            outcomes += group.ballots.map { earlierOutcome($0) ?? BallotResult(ballotId: $0.ballotId, error: Self.notFound) }
            return
        }
        var running = totals[target] ?? row.values[group.field] ?? 0
        var sequence = lastSequences[target] ?? 0
        for ballot in group.ballots {
            if let done = earlierOutcome(ballot) { outcomes.append(done); continue }
            guard seen.insert(ballot.ballotId.lowercased()).inserted else { continue }
            if let refusal = Self.refusal(for: ballot.voter, schema: schema, writers: row.writers)
                ?? (group.oncePerUser ? Self.likeRefusal(ballot) : nil) {
                outcomes.append(BallotResult(ballotId: ballot.ballotId, error: refusal))
                continue
            }
            let amount = ballot.kind == .increment ? ballot.value : ballot.value - running
            guard amount.isFinite, (running + amount).isFinite else {
                // A double holds no more: PostgreSQL refuses such a sum (22003) for an Increment through posts, and
                // an infinite counter could be neither stored sensibly nor sent in an event.
                outcomes.append(BallotResult(ballotId: ballot.ballotId, error: Self.outOfRange))
                continue
            }
            if group.oncePerUser, let voter = ballot.voter.userId {
                let like = Like(target: target, voter: voter)
                let counts = ballot.value > 0 ? likes.insert(like).inserted : likes.remove(like) != nil
                guard counts else {
                    let unchanged = BallotResult(ballotId: ballot.ballotId, amount: 0, total: running, sequence: nil,
                                            updatedAt: totals[target] == nil ? row.updatedAt : updatedAt,
                                            permissionsVersion: permissionsVersion)
                    outcomes.append(unchanged)
                    recorded.append((target, unchanged))
                    continue
                }
                if ballot.value > 0 { likedBy[like] = ballot.ballotId }
            }
            running += amount
            sequence += 1
            let outcome = BallotResult(ballotId: ballot.ballotId, amount: amount, total: running, sequence: sequence,
                                  updatedAt: updatedAt, permissionsVersion: permissionsVersion)
            outcomes.append(outcome)
            recorded.append((target, outcome))
            totals[target] = running
        }
        lastSequences[target] = sequence
    }

    /// What the ballot got when it was applied before, under the id as this batch spells it: `earlier` is keyed
    /// by PostgreSQL's text of the uuid (lower case), and a sender may write it in upper case. Its event, written
    /// now, is judged under the permissions of now.
    private func earlierOutcome(_ ballot: BallotToApply) -> BallotResult? {
        guard var done = earlier[ballot.ballotId.lowercased()] else { return nil }
        done.ballotId = ballot.ballotId
        if done.error == nil { done.permissionsVersion = permissionsVersion }
        return done
    }

    /// `votes` checks these before it records a like; checked again here, where the rule is enforced.
    private static func likeRefusal(_ ballot: BallotToApply) -> ParseError? {
        guard ballot.voter.userId != nil else {
            return ParseError(.objectNotFound, "Permission denied, user needs to be authenticated.")
        }
        guard ballot.kind == .increment, ballot.value == 1 || ballot.value == -1 else {
            return ParseError(.invalidJSON, "A like is an Increment of 1 or -1.")
        }
        return nil
    }

    /// The voter's right to write the object: the read-only master key never; class-level `update`; the ACL, where
    /// a refusal looks like a missing object, as for any other update.
    static func refusal(for voter: Identity, schema: ClassSchema, writers: [String]?) -> ParseError? {
        do throws(ParseError) {
            try ClassPermissions.refuseReadOnlyMaster(voter, "update")
            try ClassPermissions.check("update", schema: schema, identity: voter)
            // A vote round reads no pointer fields: an update that only pointer permissions grant is refused.
            if PointerPermissions.fields("update", schema: schema, identity: voter) != nil {
                throw ParseError(.operationForbidden, "Permission denied for action update on class \(schema.className).")
            }
        } catch {
            return error
        }
        guard !voter.isMaster, let writers else { return nil }
        let groups = AccessControl.groups(voter)
        return writers.contains(where: groups.contains) ? nil : notFound
    }
}

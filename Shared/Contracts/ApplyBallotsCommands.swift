import ParseWire

/// `votes.apply.v1`: `votes` asks `posts` to apply ballots to counters, in one transaction. Each ballot is keyed
/// by its id, so a ballot sent again (a retry, a recovery) is applied once and answered with what it got the first
/// time. The answer is a `BallotsApplied` with one outcome per ballot.
public struct ApplyBallots: Codable, Sendable, Equatable {
    public static let type = "votes.apply.v1"

    public var groups: [CounterBallots]

    public init(groups: [CounterBallots]) { self.groups = groups }
}

/// One ballot as `posts` applies it: the votes service's ballot id, the change and whose permission it needs.
public struct BallotToApply: Codable, Sendable, Equatable {
    public var ballotId: String
    public var kind: CastVote.Kind
    public var value: Double
    /// Whose write permission (ACL, class-level permissions) the ballot needs.
    public var voter: Identity

    public init(ballotId: String, kind: CastVote.Kind, value: Double, voter: Identity) {
        self.ballotId = ballotId
        self.kind = kind
        self.value = value
        self.voter = voter
    }
}

/// The ballots of one counter (class, object, field) in an `ApplyBallots`.
public struct CounterBallots: Codable, Sendable, Equatable {
    public var className: String
    public var objectId: String
    public var field: String
    /// "One vote per user" (a like): each ballot is +1 or -1 of a user; +1 counts only when the user has no like
    /// here yet and -1 only when they have one, otherwise the ballot changes nothing. Decided beside the counter,
    /// under its row lock, so likes and counter always agree.
    public var oncePerUser: Bool
    /// Applied in this order, each one's total following the previous one's.
    public var ballots: [BallotToApply]

    public init(className: String, objectId: String, field: String, oncePerUser: Bool = false, ballots: [BallotToApply]) {
        self.className = className
        self.objectId = objectId
        self.field = field
        self.oncePerUser = oncePerUser
        self.ballots = ballots
    }

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey { case ballots, className, field, objectId, oncePerUser }

    /// `oncePerUser` may be absent (a sender from before the rule): plain counting.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        className = try container.decode(String.self, forKey: .className)
        objectId = try container.decode(String.self, forKey: .objectId)
        field = try container.decode(String.self, forKey: .field)
        oncePerUser = try container.decodeIfPresent(Bool.self, forKey: .oncePerUser) ?? false
        ballots = try container.decode([BallotToApply].self, forKey: .ballots)
    }
}

/// What `posts` did with each ballot of an `ApplyBallots`.
public struct BallotsApplied: Codable, Sendable, Equatable {
    public var outcomes: [BallotResult]

    public init(outcomes: [BallotResult]) { self.outcomes = outcomes }
}

/// What `posts` did with one ballot.
public struct BallotResult: Codable, Sendable, Equatable {
    public var ballotId: String
    /// Nil when applied (now or before); else the refusal the voter gets (ACL, missing object, wrong type).
    public var error: ParseError?
    /// The change made to the counter (for a plain set: the difference to the previous total).
    public var amount: Double?
    /// The counter right after this ballot.
    public var total: Double?
    /// The ballot's rank among the ballots applied to this (class, object, field), from 1, without gaps; nil
    /// (with an amount of 0) for a ballot that changed nothing: a second like, or a retraction without a like.
    public var sequence: Int?
    public var updatedAt: String?
    /// The version of the class's permissions when the ballot was answered (`PermissionsVersion`), for the vote
    /// event; nil on a refusal, or from a `posts` older than the field.
    public var permissionsVersion: String?

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey { case amount, ballotId, error, permissionsVersion, sequence, total, updatedAt }

    public init(ballotId: String, error: ParseError? = nil, amount: Double? = nil, total: Double? = nil,
                sequence: Int? = nil, updatedAt: String? = nil, permissionsVersion: String? = nil) {
        self.ballotId = ballotId
        self.error = error
        self.amount = amount
        self.total = total
        self.sequence = sequence
        self.updatedAt = updatedAt
        self.permissionsVersion = permissionsVersion
    }
}

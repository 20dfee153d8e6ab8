/// `votes.replay.v1` (an operator's tool to votes, master identity only): the events of the ballots the ledger
/// applied in [from, to), rebuilt with their ids, times and sequences, so a consumer that missed some can replay
/// them and dedupe by id. They come in order of (class, object, field, sequence), `limit` at a time; `after` is the
/// previous page's `next`.
public struct ReplayVotes: Codable, Sendable, Equatable {
    public static let type = "votes.replay.v1"

    /// Parse dates (`2026-11-30T14:00:00.000Z`).
    public var from: String
    public var to: String?
    public var className: String?
    public var after: VoteReplayCursor?
    public var limit: Int

    public init(from: String, to: String? = nil, className: String? = nil, after: VoteReplayCursor? = nil, limit: Int = 1000) {
        self.from = from
        self.to = to
        self.className = className
        self.after = after
        self.limit = limit
    }
}

/// Where a page of `ReplayVotes` ended: its last event's counter and sequence.
public struct VoteReplayCursor: Codable, Sendable, Equatable {
    public var className: String
    public var objectId: String
    public var field: String
    public var sequence: Int

    public init(className: String, objectId: String, field: String, sequence: Int) {
        self.className = className
        self.objectId = objectId
        self.field = field
        self.sequence = sequence
    }
}

/// One page of replayed events; `next` is nil on the last page.
public struct ReplayedVotes: Codable, Sendable, Equatable {
    public struct Event: Codable, Sendable, Equatable {
        public var id: String
        /// The time the ballot was marked applied, as the live event has it.
        public var time: String
        public var vote: VoteCast

        public init(id: String, time: String, vote: VoteCast) {
            self.id = id
            self.time = time
            self.vote = vote
        }
    }

    public var events: [Event]
    public var next: VoteReplayCursor?

    public init(events: [Event], next: VoteReplayCursor?) {
        self.events = events
        self.next = next
    }
}

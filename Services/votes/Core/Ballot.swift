import Contracts
import ParseWire

/// One vote as the ledger records it before it is applied.
struct Ballot: Sendable, Equatable {
    var ballotId: String
    var requestId: String
    var voter: Identity
    var vote: CastVote

    var target: BallotTarget { BallotTarget(className: vote.className, objectId: vote.objectId, field: vote.field) }

    /// The event of this ballot once applied (`VoteCast`, or a retraction for a negative amount), sent as `posts`
    /// answers and written to the outbox in the transaction that marks it (`BallotLedger.Settlement`), with the
    /// version of the class's permissions `posts` answered under.
    func event(amount: Double, total: Double, sequence: Int, permissionsVersion: String? = nil) -> VoteCast {
        VoteCast(ballotId: ballotId, className: vote.className, objectId: vote.objectId, field: vote.field,
                 amount: amount, total: total, sequence: sequence, voter: voter.userId, requestId: requestId,
                 permissionsVersion: permissionsVersion)
    }
}

/// The counter a ballot changes; ballots of one target are batched together.
struct BallotTarget: Hashable, Sendable {
    var className: String
    var objectId: String
    var field: String
}

/// What an applied ballot got; the client's answer is built from it, the first time and on every replay.
struct AppliedBallot: Sendable, Equatable {
    var total: Double
    var updatedAt: String

    /// `{"votes":11,"updatedAt":"..."}`, as parse-server answers an Increment, or `{"updatedAt":"..."}` for a plain
    /// set, which parse-server does not echo. The field name is a checked identifier and the date a Parse date, so
    /// neither needs escaping.
    func response(to vote: CastVote) -> RESTResponse {
        guard vote.kind == .increment else { return RESTResponse(status: 200, body: "{\"updatedAt\":\"\(updatedAt)\"}") }
        return RESTResponse(status: 200, body: "{\"\(vote.field)\":\(Self.number(total)),\"updatedAt\":\"\(updatedAt)\"}")
    }

    /// Whole numbers without a fraction, as JavaScript prints them.
    static func number(_ value: Double) -> String { JSONText.format(value) }
}

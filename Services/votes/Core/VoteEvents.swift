import Contracts
import Foundation
import ParseWire

/// The event of a ballot marked applied (`VoteCast`), written to the outbox in the transaction that marks it
/// (see `BallotLedger.settleStatement`).
enum VoteEvents {
    /// The event's id, routing key and JSON text (`VoteCast.cloudEventText`).
    static func encoded(eventId: String, ballot: Ballot, amount: Double, total: Double,
                        sequence: Int, time: Date = Date()) -> (id: String, routingKey: String, payload: String) {
        encoded(eventId: eventId, ballot: ballot, amount: amount, total: total, sequence: sequence,
                time: ParseDate.string(from: time))
    }

    /// With the time already in Parse's date form: the events of one round share it, and formatting it once per
    /// event showed up in the votes service's profile.
    static func encoded(eventId: String, ballot: Ballot, amount: Double, total: Double,
                        sequence: Int, time: String) -> (id: String, routingKey: String, payload: String) {
        let vote = VoteCast(ballotId: ballot.ballotId, className: ballot.vote.className, objectId: ballot.vote.objectId,
                            field: ballot.vote.field, amount: amount, total: total, sequence: sequence,
                            voter: ballot.voter.userId, requestId: ballot.requestId)
        return (eventId, vote.routingKey, vote.cloudEventText(id: eventId, time: time))
    }
}

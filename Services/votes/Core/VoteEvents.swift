import Contracts
import Foundation
import ParseWire

/// `vote.cast.v1` (and `vote.retracted.v1` for a negative amount), written to the outbox in the transaction that
/// marks the ballot applied (see `BallotLedger.settle`). The contract is docs/vote-events.md.
enum VoteEvents {
    static let source = "/parse/votes"

    /// The event's id, routing key and JSON text: a `CloudEvent` with its keys sorted, as `Outbox.add` encodes
    /// events, written by hand because it is written for every ballot.
    static func encoded(eventId: String, ballot: Ballot, amount: Double, total: Double,
                        sequence: Int, time: Date = Date()) -> (id: String, routingKey: String, payload: String) {
        encoded(eventId: eventId, ballot: ballot, amount: amount, total: total, sequence: sequence,
                time: ParseDate.string(from: time))
    }

    /// With the time already in Parse's date form: the events of one round share it, and formatting it once per
    /// event showed up in the votes service's profile.
    static func encoded(eventId: String, ballot: Ballot, amount: Double, total: Double,
                        sequence: Int, time: String) -> (id: String, routingKey: String, payload: String) {
        let name = amount < 0 ? "retracted" : "cast"
        var json = JSONObjectWriter(capacity: 512)
        json.object { event in
            event.member("data") { data in
                data.object { data in
                    data.member("amount", number: amount)
                    data.member("ballotId", string: ballot.ballotId)
                    data.member("className", string: ballot.vote.className)
                    data.member("field", string: ballot.vote.field)
                    data.member("objectId", string: ballot.vote.objectId)
                    data.member("requestId", string: ballot.requestId)
                    data.member("sequence", number: Double(sequence))
                    data.member("total", number: total)
                    data.member("voter", string: ballot.voter.userId)
                }
            }
            event.member("datacontenttype", string: "application/json")
            event.member("id", string: eventId)
            event.member("source", string: source)
            event.member("specversion", string: "1.0")
            event.member("subject", string: "\(ballot.vote.className)/\(ballot.vote.objectId)")
            event.member("time", string: time)
            event.member("type", string: "vote.\(name).v1")
        }
        return (eventId, "vote.\(name).\(ballot.vote.className)", json.text)
    }
}

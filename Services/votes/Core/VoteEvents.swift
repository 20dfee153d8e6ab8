import Contracts
import Foundation
import ParseWire
import Storage

/// `vote.cast.v1` (and `vote.retracted.v1` for a negative amount), written to the outbox in the transaction that
/// marks the ballot applied (see `BallotLedger.settle`). The contract is docs/vote-events.md.
enum VoteEvents {
    static let source = "/parse/votes"

    /// The event's id, routing key and JSON text, encoded as `Outbox.add` encodes events.
    static func encoded(eventId: String, ballot: Ballot, amount: Double, total: Double,
                        sequence: Int) throws -> (id: String, routingKey: String, payload: String) {
        let name = amount < 0 ? "retracted" : "cast"
        let data: JSONValue = .object([
            "ballotId": .string(ballot.ballotId), "className": .string(ballot.vote.className),
            "objectId": .string(ballot.vote.objectId), "field": .string(ballot.vote.field),
            "amount": .number(amount), "total": .number(total), "sequence": .number(Double(sequence)),
            "voter": ballot.voter.userId.map(JSONValue.string) ?? .null, "requestId": .string(ballot.requestId),
        ])
        let event = CloudEvent(id: eventId, source: source, type: "vote.\(name).v1", time: ParseDate.string(from: Date()),
                               subject: "\(ballot.vote.className)/\(ballot.vote.objectId)", data: data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (eventId, "vote.\(name).\(ballot.vote.className)", String(decoding: try encoder.encode(event), as: UTF8.self))
    }
}

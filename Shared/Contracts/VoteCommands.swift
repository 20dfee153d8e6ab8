/// `votes.cast.v1`, the command (the event it leads to is `vote.cast.v1`, `VoteCast`): the gateway hands a vote (an Increment of a vote field, or the plain set old clients send) to
/// the `votes` service. The answer is the `RESTResponse` the client gets: `{"<field>": <total>, "updatedAt": ...}`.
/// The command's request id is the ballot's idempotency key.
public struct CastVote: Codable, Sendable, Equatable {
    public static let type = "votes.cast.v1"
    /// The name the command had before it was told apart from the event; still accepted, so that a gateway of the
    /// previous version can keep voting while the services are upgraded one by one.
    public static let previousType = "vote.cast.v1"

    public enum Kind: String, Codable, Sendable {
        /// `{"__op":"Increment","amount":N}`: `value` is the amount.
        case increment
        /// A plain number saved over the field (`votes = votes + 1` from older code): `value` is the new value; the
        /// ballot's amount is the difference to the stored total, computed under the object's row lock.
        case set
    }

    public var className: String
    public var objectId: String
    public var field: String
    public var kind: Kind
    public var value: Double

    public init(className: String, objectId: String, field: String, kind: Kind, value: Double) {
        self.className = className
        self.objectId = objectId
        self.field = field
        self.kind = kind
        self.value = value
    }
}

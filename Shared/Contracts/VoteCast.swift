import ParseWire

/// The data of the vote events, `vote.cast.v1` and, for a negative amount, `vote.retracted.v1`
/// (`VoteRetracted`): one counted ballot. The contract is docs/vote-events.md and docs/vote-events.yaml. The votes
/// service writes it to its outbox when it marks a ballot applied and rebuilds it from its ledger for a replay;
/// consumers decode it as `CloudEvent<VoteCast>`.
public struct VoteCast: Codable, Sendable, Equatable {
    public static let type = "vote.cast.v1"
    public static let source = "/parse/votes"

    public var ballotId: String
    public var className: String
    public var objectId: String
    public var field: String
    /// The change to the counter; negative for a retraction.
    public var amount: Double
    /// The counter right after this ballot.
    public var total: Double
    /// The rank of the ballot among the counted ballots of (class, object, field), from 1, without gaps.
    public var sequence: Int
    /// The voter's user objectId; nil for a vote without a user (the master key, an anonymous caller).
    public var voter: String?
    public var requestId: String
    /// The version of the class's permissions when `posts` applied the ballot (`PermissionsVersion`), as object
    /// events carry it: `live` judges the event under those permissions. The ledger keeps it for replays.
    public var permissionsVersion: String?

    public init(ballotId: String, className: String, objectId: String, field: String, amount: Double, total: Double,
                sequence: Int, voter: String?, requestId: String, permissionsVersion: String? = nil) {
        self.ballotId = ballotId
        self.className = className
        self.objectId = objectId
        self.field = field
        self.amount = amount
        self.total = total
        self.sequence = sequence
        self.voter = voter
        self.requestId = requestId
        self.permissionsVersion = permissionsVersion
    }

    /// `vote.cast.v1`, or `vote.retracted.v1` for a negative amount.
    public var eventType: String { amount < 0 ? VoteRetracted.type : Self.type }

    /// `vote.cast.<ClassName>` or `vote.retracted.<ClassName>`.
    public var routingKey: String { amount < 0 ? "vote.retracted.\(className)" : "vote.cast.\(className)" }

    public func cloudEvent(id: String, time: String) -> CloudEvent<VoteCast> {
        CloudEvent(id: id, source: Self.source, type: eventType, time: time, subject: "\(className)/\(objectId)", data: self)
    }

    /// `cloudEvent(id:time:)` as the outbox stores and the broker carries it: compact, keys sorted (as
    /// `Outbox.add` encodes events), written without an encoder because the votes service writes one per ballot.
    public func cloudEventText(id: String, time: String) -> String {
        var json = JSONObjectWriter(capacity: 512)
        json.object { event in
            // The envelope's correlation id: the vote's request id, which `data` carries too.
            event.member("correlationid", string: requestId)
            event.member("data") { data in
                data.object { data in
                    data.member("amount", number: amount)
                    data.member("ballotId", string: ballotId)
                    data.member("className", string: className)
                    data.member("field", string: field)
                    data.member("objectId", string: objectId)
                    if let permissionsVersion { data.member("permissionsVersion", string: permissionsVersion) }
                    data.member("requestId", string: requestId)
                    data.member("sequence", number: Double(sequence))
                    data.member("total", number: total)
                    data.member("voter", string: voter)
                }
            }
            event.member("datacontenttype", string: "application/json")
            event.member("id", string: id)
            event.member("source", string: Self.source)
            event.member("specversion", string: "1.0")
            event.member("subject", string: "\(className)/\(objectId)")
            event.member("time", string: time)
            event.member("type", string: eventType)
        }
        return json.text
    }
}

/// `vote.retracted.v1`: a like taken back, or any ballot with a negative amount. Its data is a `VoteCast` with
/// that amount, so consumers read both events alike.
public enum VoteRetracted {
    public static let type = "vote.retracted.v1"
}

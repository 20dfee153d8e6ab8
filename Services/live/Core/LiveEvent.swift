import Contracts
import Foundation
import ParseWire

/// The events `live` consumes, read from their CloudEvents JSON and routing keys.
enum LiveEvent: Sendable {
    /// `object.created|updated|deleted.<Class>` from posts, with the version of the class's permissions it was
    /// written under (`PermissionsVersion`).
    case object(kind: String, className: String, objectId: String, object: [String: JSONValue]?, original: [String: JSONValue]?,
                permissionsVersion: String?)
    /// `vote.cast|retracted.<Class>` from votes: a counter moved to `total`, with the version of the class's
    /// permissions the ballot was applied under (absent from events of an older votes service).
    case vote(className: String, objectId: String, field: String, amount: Double, total: Double, time: String?,
              permissionsVersion: String?)
    /// `session.revoked` from auth.
    case sessionRevoked(userId: String)
    /// `role.changed` from auth: any session's roles may be different now.
    case roleChanged
    /// `hooks.changed` from cloud: the registered triggers may be different now.
    case hooksChanged

    static let routingKeys = [ObjectChanged.everyChange, "vote.*.*", AuthEventPayloads.SessionRevoked.routingKey,
                              AuthEventPayloads.RoleChanged.routingKey, ListTriggers.changedRoutingKey]

    init?(routingKey: String, body: [UInt8]) {
        guard let event = JSONValue.parse(body), let data = event["data"] else { return nil }
        let parts = routingKey.split(separator: ".", maxSplits: 2).map(String.init)
        switch parts.first {
        case "object":
            guard parts.count == 3, ObjectChanged.Kind(rawValue: parts[1]) != nil,
                  let className = data["className"]?.stringValue, let objectId = data["objectId"]?.stringValue else { return nil }
            self = .object(kind: parts[1], className: className, objectId: objectId, object: data["object"]?.objectValue,
                           original: data["original"]?.objectValue, permissionsVersion: data["permissionsVersion"]?.stringValue)
        case "vote":
            guard let className = data["className"]?.stringValue, let objectId = data["objectId"]?.stringValue,
                  let field = data["field"]?.stringValue, let total = data["total"]?.numberValue,
                  let amount = data["amount"]?.numberValue else { return nil }
            self = .vote(className: className, objectId: objectId, field: field, amount: amount, total: total,
                         time: event["time"]?.stringValue, permissionsVersion: data["permissionsVersion"]?.stringValue)
        case "session":
            guard routingKey == AuthEventPayloads.SessionRevoked.routingKey, let userId = data["userId"]?.stringValue else { return nil }
            self = .sessionRevoked(userId: userId)
        case "role":
            self = .roleChanged
        case "hooks":
            self = .hooksChanged
        default:
            return nil
        }
    }
}

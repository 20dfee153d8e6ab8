import Contracts
import Foundation
import ParseWire
import ServiceKit
import Storage
import Runtime

/// `object.created`, `object.updated`, `object.deleted`, written to the outbox in the transaction of the change.
/// `object` is the object after the change (before it, for a delete); an update also carries `original`, the
/// object before it, so a consumer such as `live` can tell an object entering a query from one leaving it.
enum ObjectEvents {
    typealias Kind = ObjectChanged.Kind

    /// `schema`: the class as the change's transaction read it, whose permissions' version the event carries
    /// (`PermissionsVersion`).
    static func add(_ kind: Kind, className: String, objectId: String, object: [String: JSONValue]?,
                    original: [String: JSONValue]? = nil, schema: ClassSchema?, on connection: PostgresConnection) async throws {
        let data = ObjectChanged(className: className, objectId: objectId, object: object.map { .object($0) },
                                 original: original.map { .object($0) }, permissionsVersion: schema?.permissionsVersion)
        let event = CloudEvent(id: RandomUUID.string(), source: "posts", type: ObjectChanged.type(kind),
                               time: ParseDate.string(from: Date()), subject: "\(className)/\(objectId)", data: data)
        try await Outbox.add(event, routingKey: ObjectChanged.routingKey(kind, className: className), on: connection)
    }
}

import Contracts
import Foundation
import ParseWire
import ServiceKit
import Storage
import Runtime

/// `object.created`, `object.updated`, `object.deleted`, written to the outbox in the transaction of the change.
enum ObjectEvents {
    enum Kind: String { case created, updated, deleted }

    static func add(_ kind: Kind, className: String, objectId: String, object: [String: JSONValue]?,
                    on connection: PostgresConnection) async throws {
        var data: [String: JSONValue] = ["className": .string(className), "objectId": .string(objectId)]
        if let object { data["object"] = .object(object) }
        let event = CloudEvent(id: RandomUUID.string(), source: "posts", type: "object.\(kind.rawValue).v1",
                               time: ParseDate.string(from: Date()), subject: "\(className)/\(objectId)",
                               data: JSONValue.object(data))
        try await Outbox.add(event, routingKey: "object.\(kind.rawValue).\(className)", on: connection)
    }
}

import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Storage

/// after* triggers as outbox rows: the row is a `cloud.trigger.run.v1` command, written in the transaction of the
/// change, which the outbox relay publishes (with confirms) to the events exchange after commit under
/// `cloud.trigger.<service>.<trigger>.<class>`, to the service's own queue, from which `AfterTriggerDispatcher`
/// sends it on to `cloud`. So the trigger runs only for a committed change, and at least once.
public enum TriggerOutbox {
    public static func routingKey(_ key: TriggerKey, service: ServiceName) -> String {
        "cloud.trigger.\(service.rawValue).\(key.triggerName.rawValue).\(key.className)"
    }

    static func add(_ trigger: RunTrigger, service: ServiceName, requestId: String, identity: Identity,
                    on connection: PostgresConnection) async throws {
        let id = RandomUUID.string()
        var trigger = trigger
        trigger.eventId = id
        let command = Command(type: RunTrigger.type, requestId: requestId, identity: identity, payload: trigger)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(command), as: UTF8.self)
        try await Outbox.add(json: json, id: id, type: RunTrigger.type, routingKey: routingKey(trigger.key, service: service),
                             on: connection)
    }
}

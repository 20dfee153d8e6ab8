import Contracts
import Foundation
import ParseWire
import ServiceKit
import Storage
import Runtime

/// `file.stored` and `file.deleted`, always added inside the transaction that makes the change.
enum FileEvents {
    static let source = "parse/files"

    static func stored(_ file: FileEvent, on connection: PostgresConnection) async throws {
        try await add(FileEvent.storedRoutingKey, file, on: connection)
    }

    static func deleted(_ file: FileEvent, on connection: PostgresConnection) async throws {
        try await add(FileEvent.deletedRoutingKey, file, on: connection)
    }

    private static func add(_ name: String, _ file: FileEvent, on connection: PostgresConnection) async throws {
        let event = CloudEvent(id: RandomUUID.string(), source: source, type: name + ".v1",
                               time: ParseDate.string(from: Date()), subject: file.name, data: file)
        try await Outbox.add(event, routingKey: name, on: connection)
    }
}

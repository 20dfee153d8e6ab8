import Contracts
import Foundation
import Storage

/// The transactional outbox: an event is written in the same transaction as the change it describes, so it is
/// published if and only if the change is committed. The service's `OutboxRelay` publishes it afterwards.
public enum Outbox {
    /// Call inside the transaction that makes the change (`pool.transaction { connection in ... }`).
    public static func add<Payload: Codable & Sendable>(_ event: CloudEvent<Payload>, routingKey: String,
                                                        on connection: PostgresConnection) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = String(decoding: try encoder.encode(event), as: UTF8.self)
        _ = try await connection.query(
            "INSERT INTO outbox (event_id, routing_key, payload) VALUES ($1::uuid, $2, $3::jsonb)",
            [event.id, routingKey, payload])
    }

    /// The same for an event already written as CloudEvents JSON (`id` is its id), for a caller that writes many
    /// large ones and makes their text faster than Foundation's encoder.
    public static func add(json: String, id: String, routingKey: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            "INSERT INTO outbox (event_id, routing_key, payload) VALUES ($1::uuid, $2, $3::jsonb)", [id, routingKey, json])
    }
}

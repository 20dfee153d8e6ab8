import Contracts
import Foundation
import ParseWire
import ServiceKit
import Storage
import Runtime

/// The events the auth service publishes, always from inside the transaction that makes the change.
/// Revocations and role changes are also gathered for the gateways' session caches (`SessionEvictions`), which
/// hear of them before the request is answered.
enum AuthEvents {
    static let source = "parse/auth"

    typealias Payloads = AuthEventPayloads

    static func userSignedUp(_ userId: String, username: String, at date: Date, on connection: PostgresConnection) async throws {
        try await add(Payloads.UserSignedUp.routingKey, subject: userId,
                      Payloads.UserSignedUp(userId: userId, username: username, createdAt: ParseDate.string(from: date)),
                      on: connection)
    }

    static func sessionCreated(_ sessionId: String, userId: String, action: String, on connection: PostgresConnection) async throws {
        try await add(Payloads.SessionCreated.routingKey, subject: sessionId,
                      Payloads.SessionCreated(sessionId: sessionId, userId: userId, action: action), on: connection)
    }

    static func sessionRevoked(_ sessionId: String, userId: String, reason: String, on connection: PostgresConnection) async throws {
        SessionEvictions.current?.sessionRevoked(userId: userId)
        try await add(Payloads.SessionRevoked.routingKey, subject: sessionId,
                      Payloads.SessionRevoked(sessionId: sessionId, userId: userId, reason: reason), on: connection)
    }

    /// A role's membership or existence changed: the roles resolved for cached sessions may be out of date.
    static func roleChanged(_ roleId: String, change: String, on connection: PostgresConnection) async throws {
        SessionEvictions.current?.rolesChanged()
        try await add(Payloads.RoleChanged.routingKey, subject: roleId, Payloads.RoleChanged(roleId: roleId, change: change),
                      on: connection)
    }

    /// An app left the registry: every replica closes what it holds of it.
    static func appDeleted(_ applicationId: String, on connection: PostgresConnection) async throws {
        let event = CloudEvent(id: RandomUUID.string(), source: source, type: AppDeleted.type, time: ParseDate.string(from: Date()),
                               subject: applicationId, data: AppDeleted(applicationId: applicationId))
        try await Outbox.add(event, routingKey: AppDeleted.routingKey, on: connection)
    }

    private static func add<Payload: Codable & Sendable>(_ name: String, subject: String, _ data: Payload,
                                                         on connection: PostgresConnection) async throws {
        let event = CloudEvent(id: RandomUUID.string(), source: source, type: name + ".v1",
                               time: ParseDate.string(from: Date()), subject: subject, data: data)
        try await Outbox.add(event, routingKey: name, on: connection)
    }
}

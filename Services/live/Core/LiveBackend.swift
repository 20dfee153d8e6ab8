import Contracts
import ParseWire

/// What the hub asks other services: who a session token is, and an object as it is stored now.
public protocol LiveBackend: Sendable {
    /// The identity of a session, with its roles; a `ParseError` 209 for an unknown or expired token.
    func identity(sessionToken: String) async throws -> Identity
    /// The object as a master-key read returns it, nil when it does not exist.
    func object(className: String, objectId: String) async throws -> [String: JSONValue]?
    /// The class's `/schemas` entry, nil when the class has none yet.
    func schema(className: String) async throws -> [String: JSONValue]?
    /// The Cloud Code triggers registered now.
    func triggerKeys() async throws -> Set<TriggerKey>
    /// Runs a trigger in cloud as `identity`; a refusal throws the trigger's `ParseError`.
    func runTrigger(_ run: RunTrigger, identity: Identity) async throws -> TriggerResult
    /// A Parse REST read (`GET path`) as `identity`, answered by the service that owns the route: what GraphQL
    /// subscriptions read their schema and their relations with.
    func read(_ path: String, query: [String: String], identity: Identity) async throws -> RESTResponse
}

import Contracts
import ParseWire
@testable import LiveCore

/// A test's backend that answers only what its test asks of it: every other call finds nothing or fails.
protocol LiveBackendDouble: LiveBackend {}

extension LiveBackendDouble {
    func identity(sessionToken: String) async throws -> Identity {
        throw ParseError(.invalidSessionToken, "Invalid session token")
    }
    func object(className: String, objectId: String) async throws -> [String: JSONValue]? { nil }
    func schema(className: String) async throws -> [String: JSONValue]? { nil }
    func triggerKeys() async throws -> Set<TriggerKey> { [] }
    func runTrigger(_ run: RunTrigger, identity: Identity) async throws -> TriggerResult {
        throw ParseError(.scriptFailed, "unused")
    }
    func read(_ path: String, query: [String: String], identity: Identity) async throws -> RESTResponse {
        throw ParseError(.invalidJSON, "unused")
    }
}

import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime

/// The hub's questions as commands: `session.resolve.v1` to auth, `rest.v1` reads to the route's owner; each as
/// a command of the hub's app (`AppContext`; nil, the stack's own).
struct MessagingLiveBackend: LiveBackend {
    let client: RPCClient
    let timeout: Duration
    var app: String? = nil

    func identity(sessionToken: String) async throws -> Identity {
        guard !sessionToken.isEmpty, sessionToken.utf8.count <= 256 else {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        return try await AppContext.$current.withValue(app) {
            try await client.send(ResolveSession.type, Empty(), to: .auth, requestId: UUID().uuidString.lowercased(),
                                  identity: Identity(sessionToken: sessionToken), timeout: timeout)
        }
    }

    func object(className: String, objectId: String) async throws -> [String: JSONValue]? {
        try await read("classes/\(className)/\(objectId)")
    }

    func schema(className: String) async throws -> [String: JSONValue]? {
        try await read("schemas/\(className)")
    }

    func triggerKeys() async throws -> Set<TriggerKey> {
        let list: TriggerRegistrations = try await AppContext.$current.withValue(app) {
            try await client.send(ListTriggers.type, ListTriggers(), to: .cloud, requestId: UUID().uuidString.lowercased(),
                                  identity: .master, timeout: timeout)
        }
        return Set(list.triggers)
    }

    func runTrigger(_ run: RunTrigger, identity: Identity) async throws -> TriggerResult {
        try await AppContext.$current.withValue(app) {
            try await client.send(RunTrigger.type, run, to: .cloud, requestId: UUID().uuidString.lowercased(),
                                  identity: identity, timeout: timeout)
        }
    }

    func read(_ path: String, query: [String: String], identity: Identity) async throws -> RESTResponse {
        guard let owner = ServiceRoute.owner(of: path) else { throw ParseError(.invalidJSON, "cannot route \(path)") }
        let request = RESTRequest(method: "GET", path: path, query: query, body: nil, serverURL: "http://127.0.0.1/parse")
        return try await AppContext.$current.withValue(app) {
            try await client.send(RESTRequest.type, request, to: owner, requestId: UUID().uuidString.lowercased(),
                                  identity: identity, timeout: timeout, safeToRunTwice: true)
        }
    }

    private func read(_ path: String) async throws -> [String: JSONValue]? {
        let response = try await read(path, query: [:], identity: .master)
        guard response.status == 200 else { return nil }
        return JSONValue.parse(response.body)?.objectValue
    }
}

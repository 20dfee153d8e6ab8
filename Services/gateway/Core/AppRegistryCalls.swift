import Contracts
import Messaging
import ParseWire
import Runtime

/// The app registry's commands (auth's `apps.*`), as the stack's own app's master: what the admin API and the
/// dashboard do with apps, and the drop of a deleted app's data in every service that keeps some.
struct AppRegistryCalls {
    /// The services that keep an app's data, each in a database of its own.
    static let dataOwners: [ServiceName] = [.auth, .posts, .votes, .files, .cloud]

    let client: RPCClient
    let timeout: Duration
    let requestId: String

    func list() async throws -> AppList { try await call(ListApps.type, Empty()) }
    func create(_ request: CreateApp) async throws -> AppRecord { try await call(CreateApp.type, request) }
    func resolve(_ applicationId: String) async throws -> AppRecord {
        try await client.resolveApp(applicationId, timeout: timeout, requestId: requestId)
    }
    /// The app named `name` (the stack's own included); 101 for none.
    func named(_ name: String) async throws -> AppSummary {
        guard let app = try await list().apps.first(where: { $0.name == name }) else {
            throw ParseError(.objectNotFound, "No app is named \(name).")
        }
        return app
    }

    func rotateKeys(_ applicationId: String) async throws -> AppRecord {
        try await call(RotateAppKeys.type, RotateAppKeys(applicationId: applicationId))
    }

    func rename(_ applicationId: String, to name: String) async throws -> AppRecord {
        try await call(RenameApp.type, RenameApp(applicationId: applicationId, name: name))
    }

    func setPushEndpoints(_ applicationId: String, _ endpoints: String) async throws -> AppRecord {
        try await call(SetAppPushEndpoints.type, SetAppPushEndpoints(applicationId: applicationId, endpoints: endpoints))
    }

    /// Stops the app being served, has every service drop its data, then removes it from the registry; the app as
    /// it was. A failure half-way leaves it marked deleted, and deleting it again finishes the work.
    func delete(named name: String) async throws -> AppRecord {
        let app: AppRecord = try await call(DeleteApp.type, DeleteApp(name: name))
        for service in Self.dataOwners {
            let _: Empty = try await AppContext.$current.withValue(nil) {
                try await client.send(DropAppData.type, DropAppData(applicationId: app.applicationId), to: service,
                                      requestId: requestId, identity: .master, timeout: timeout, safeToRunTwice: true)
            }
        }
        let _: Empty = try await call(PurgeApp.type, PurgeApp(applicationId: app.applicationId))
        return app
    }

    /// A change waits out the lease before it answers (`AppLease`), so its call may take that much longer.
    private func call<Payload: Codable & Sendable, Result: Codable & Sendable>(_ type: String, _ payload: Payload) async throws -> Result {
        try await AppContext.$current.withValue(nil) {
            try await client.send(type, payload, to: .auth, requestId: requestId, identity: .master,
                                  timeout: timeout + AppLease.duration, safeToRunTwice: false)
        }
    }
}

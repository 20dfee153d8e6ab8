import Contracts
import Runtime

extension RPCClient {
    /// The registry's entry of the app `applicationId` names (`apps.resolve.v1` to auth), asked as the stack's own
    /// app, whose registry it is, whatever app the caller works for; 101 when no app has that id.
    public func resolveApp(_ applicationId: String, timeout: Duration,
                           requestId: String = RandomUUID.string()) async throws -> AppRecord {
        try await AppContext.$current.withValue(nil) {
            try await send(ResolveApp.type, ResolveApp(applicationId: applicationId), to: .auth, requestId: requestId,
                           identity: .master, timeout: timeout)
        }
    }
}

import Contracts
import Messaging
import ParseWire
import Runtime

/// Tells each service that caches the trigger list (posts, auth, files) the registrations' new generation, and
/// returns once each has stored it: a change is answered only then, so any request made after the answer, to any
/// replica, finds its service's list older than the generation its database holds and reloads it
/// (`TriggerRegistry.requireCurrent`).
struct GenerationAnnouncer: Sendable {
    static let cachingServices: [ServiceName] = [.posts, .auth, .files]

    let calls: RPCClient
    let timeout: Duration

    /// `generation`: nil when nothing changed.
    func announce(_ generation: Int64?, requestId: String) async throws {
        guard let generation else { return }
        let wait = min(Deadline.current?.remaining ?? timeout, timeout)
        let advance = AdvanceCacheGeneration(cache: AdvanceCacheGeneration.hooks, generation: generation)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in Self.cachingServices {
                group.addTask { [calls] in
                    do {
                        _ = try await calls.send(AdvanceCacheGeneration.type, advance, to: service, requestId: requestId,
                                                 identity: .master, timeout: wait, expecting: Empty.self)
                    } catch let error as MessagingError {
                        throw ParseError(.connectionFailed, "The change is stored, but the \(service.rawValue) service "
                                         + "has not confirmed it yet (\(error.description)): it applies there once it "
                                         + "has. Retry later.")
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

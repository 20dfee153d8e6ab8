import Contracts
import Messaging
import ParseWire
import Runtime
import Synchronization

/// The apps this gateway serves besides the stack's own, as the registry (`auth`) answers for them. An answer (an
/// app's keys, or that no app has an id) is used for at most `AppLease.duration` from the moment it was asked for:
/// the registry answers a creation or a deletion only after that long, so every later request sees it.
final class AppDirectory: Sendable {
    private struct Entry: Sendable {
        let record: AppRecord?
        let expires: ContinuousClock.Instant
    }

    /// Ids remembered at once, so a client sending random ids cannot grow the gateway's memory.
    static let capacity = 10_000

    private let client: RPCClient
    private let timeout: Duration
    private let entries = Mutex<[String: Entry]>([:])

    init(client: RPCClient, timeout: Duration) {
        self.client = client
        self.timeout = timeout
    }

    /// The app `applicationId` names; nil when the registry has none.
    func app(_ applicationId: String, requestId: String) async throws -> AppRecord? {
        guard AppContext.isValidId(applicationId) else { return nil }
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[applicationId] }), entry.expires > now { return entry.record }
        let record: AppRecord?
        do {
            record = try await client.resolveApp(applicationId, timeout: timeout, requestId: requestId)
        } catch let error as ParseError where error.code == .objectNotFound {
            record = nil
        }
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.expires > now } }
            if entries.count < Self.capacity { entries[applicationId] = Entry(record: record, expires: now + AppLease.duration) }
        }
        return record
    }
}

import Contracts
import Messaging
import ParseWire
import Runtime

/// `CloudTriggerRunner` over the broker: commands to the `cloud` queue, answered by the cloud service.
public struct CloudTriggerClient: CloudTriggerRunner {
    /// Cloud Code's command queue.
    public static let queue = "cloud"

    let calls: RPCClient

    public init(calls: RPCClient) { self.calls = calls }

    public func listTriggers(timeout: Duration) async throws -> TriggerRegistrations {
        try await calls.send(ListTriggers.type, ListTriggers(), toQueue: Self.queue, requestId: RandomUUID.string(),
                             identity: .master, timeout: timeout)
    }

    public func run(_ trigger: RunTrigger, requestId: String, identity: Identity, timeout: Duration) async throws -> TriggerResult {
        do {
            return try await calls.send(RunTrigger.type, trigger, toQueue: Self.queue, requestId: requestId,
                                        identity: identity, timeout: timeout)
        } catch let error as MessagingError {
            throw TriggerFailure.unreachable(trigger.key, error)
        }
    }
}

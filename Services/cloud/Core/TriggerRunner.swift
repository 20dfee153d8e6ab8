import Contracts
import ParseWire

/// `cloud.trigger.run.v1`: runs the trigger registered for a class, for the service about to write (or having
/// written) it, and says what the trigger changed. A trigger that is no longer registered changes nothing: the
/// sender's cache was older than the registration.
struct TriggerRunner: Sendable {
    let directory: TargetDirectory
    let caller: TargetCaller
    let users: CallerUsers
    let timeout: Duration

    func run(_ run: RunTrigger, requestId: String, identity: Identity) async throws -> TriggerResult {
        guard let target = try await directory.snapshot().triggers[run.key] else { return TriggerResult() }
        let context = CallContext(identity: identity, user: try await users.user(for: identity, requestId: requestId),
                                  headers: run.headers, ip: run.ip)
        let call = CloudWorkerCall(kind: .trigger, name: run.key.triggerName.rawValue, className: run.key.className,
                                   request: WebhookRequest.trigger(run, context: context))
        let label = "\(run.key.triggerName.rawValue) of \(run.key.className)"
        do {
            let value = try await caller.call(target, call, label: label, timeout: timeout, requestId: requestId,
                                              identity: identity).value
            return WebhookAnswer.triggerResult(value, for: run.key.triggerName)
        } catch var error as ParseError where error.code == .scriptFailed && error.message == "Script failed." {
            error.message = "Script failed. Unknown error."
            throw error
        }
    }

    func list() async throws -> TriggerRegistrations {
        let snapshot = try await directory.fresh()
        return TriggerRegistrations(triggers: snapshot.triggerKeys, generation: snapshot.generation)
    }
}

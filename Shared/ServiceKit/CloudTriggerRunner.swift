import Contracts
import ParseWire

/// What the writing services need of Cloud Code: the registered triggers, and running one of them. `cloud` serves
/// both over AMQP (`CloudTriggerClient`); unit tests use a double.
public protocol CloudTriggerRunner: Sendable {
    /// Every registered trigger, with the generation of the registrations (`cloud.triggers.list.v1`).
    func listTriggers(timeout: Duration) async throws -> TriggerRegistrations

    /// Runs one trigger for the caller `identity`. A refusal (the trigger's own error, or Cloud Code not answering)
    /// is thrown as the `ParseError` the client gets.
    func run(_ trigger: RunTrigger, requestId: String, identity: Identity, timeout: Duration) async throws -> TriggerResult
}

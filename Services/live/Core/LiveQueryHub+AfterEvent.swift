import Contracts
import GraphQL
import ParseGraphQL
import ParseWire

/// parse-server's `afterLiveQueryEvent` (`afterEvent`): one call per frame an event would send, which may stop
/// the frame (`{"sendEvent": false}`), change its `event`, or send another `object` or `original`; a refusal is
/// sent to that subscription as an `error` frame, as parse-server's `pushError`. Frames of one class wait for
/// each other, an event's calls running together, so every subscription still gets its class's events in the
/// order they happened; other classes' frames never wait for them.
extension LiveQueryHub {
    /// One frame an event would send, held while its trigger runs. The client is held here, not through the
    /// subscription, which does not keep it.
    struct HeldFrame {
        let client: LiveClient
        let subscription: LiveSubscription
        let op: LiveMessages.EventOp
        let identity: Identity?
    }

    struct HeldEvent {
        let className: String
        let current: [String: JSONValue]
        let original: [String: JSONValue]?
        let deleted: Bool
        let rules: ClassRules
        let frames: [HeldFrame]
    }

    /// The answers of one event's calls, on the hub's thread.
    final class AfterEventRound {
        var answers: [Result<TriggerResult, ParseError>?]
        var left: Int

        init(count: Int) {
            answers = Array(repeating: nil, count: count)
            left = count
        }
    }


    /// Events of one class held at most; past it an event's frames are dropped (and logged), as the hub drops
    /// events it cannot keep up with: a trigger that never answers cannot grow the process without bound.
    static let maxHeldEvents = 10_000

    func holdForAfterEvent(_ event: HeldEvent) {
        guard !event.frames.isEmpty else { return }
        guard (afterEventBacklog[event.className]?.count ?? 0) < Self.maxHeldEvents else {
            logger.warning("too many events wait for afterEvent triggers; one dropped", ["class": event.className])
            return
        }
        afterEventBacklog[event.className, default: []].append(event)
        if !afterEventBusy.contains(event.className) { runNextAfterEvent(event.className) }
    }

    private func runNextAfterEvent(_ className: String) {
        guard var backlog = afterEventBacklog[className], !backlog.isEmpty else {
            afterEventBusy.remove(className)
            afterEventBacklog[className] = nil
            return
        }
        let event = backlog.removeFirst()
        afterEventBacklog[className] = backlog
        afterEventBusy.insert(className)
        let round = AfterEventRound(count: event.frames.count)
        let counts: [String: JSONValue] = [
            "clients": .number(Double(clients.count)),
            "subscriptions": .number(Double(byClass.values.map(\.count).reduce(0, +))),
        ]
        for (index, frame) in event.frames.enumerated() {
            let client = frame.client
            var details = counts
            details["event"] = .string(frame.op.rawValue)
            details["requestId"] = frame.subscription.requestId
            details["useMasterKey"] = .bool(client.hasMasterKey)
            if let installationId = client.installationId { details["installationId"] = .string(installationId) }
            if let token = frame.subscription.sessionToken { details["sessionToken"] = .string(token) }
            let run = RunTrigger(key: TriggerKey(className: className, triggerName: .afterEvent),
                                 object: .object(event.current), original: event.original.map(JSONValue.object),
                                 details: details)
            runTrigger(run, identity: Self.triggerIdentity(frame.identity, hasMasterKey: client.hasMasterKey,
                                                           sessionToken: frame.subscription.sessionToken)) { [self] result in
                round.answers[index] = result
                round.left -= 1
                guard round.left == 0 else { return }
                for (frame, answer) in zip(event.frames, round.answers) {
                    if let answer { send(frame, of: event, answered: answer) }
                }
                runNextAfterEvent(className)
            }
        }
    }

    private func send(_ frame: HeldFrame, of event: HeldEvent, answered result: Result<TriggerResult, ParseError>) {
        let client = frame.client, subscription = frame.subscription
        // A subscription ended or a client gone meanwhile gets nothing.
        guard clients[client.connection] === client, client.subscriptions[subscription.requestId] === subscription else { return }
        let answer: [String: JSONValue]
        switch result {
        case .failure(let error):
            // A GraphQL operation goes on after it, as a LiveQuery subscription does: the refusal is one result.
            if subscription.graphQL != nil, let id = subscription.requestId.stringValue {
                return send(client.connection, GraphQLTransportMessages.next(id: id, GraphQLResponse(
                    data: nil, errors: [ParseGraphQLErrors.reported(error)])))
            }
            return refuse(client, requestId: subscription.requestId, error)
        case .success(let triggerResult):
            answer = triggerResult.object?.objectValue ?? [:]
        }
        if answer["sendEvent"] == .bool(false) { return }
        let op = answer["event"]?.stringValue.flatMap(LiveMessages.EventOp.init(rawValue:)) ?? frame.op
        var current = answer["object"]?.objectValue ?? event.current
        var original = answer["original"]?.objectValue ?? event.original
        current["className"] = .string(event.className)
        original?["className"] = .string(event.className)
        let hidden = event.rules.protectedFields(identity: frame.identity, hasMasterKey: client.hasMasterKey)
        if subscription.graphQL != nil {
            return queueGraphQLEvent(subscription, op: op, current: current, original: op == .delete ? nil : original,
                                     hidden: hidden, identity: frame.identity)
        }
        var encoded = EncodedObjects(current: current, original: original)
        let encodedShape = encoded.bytes(keys: subscription.keys, hidden: hidden)
        send(client.connection, frame: LiveMessages.eventFrame(op, head: subscription.eventHead, object: encodedShape.current,
                                                               original: op == .delete ? nil : encodedShape.original))
    }
}

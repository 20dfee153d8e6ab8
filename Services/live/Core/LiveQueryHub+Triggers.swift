import Contracts
import ParseWire

/// LiveQuery's Cloud Code triggers, run in cloud like every other (`cloud.trigger.run.v1`): `beforeConnect` (on
/// `@Connect`) may refuse a connection, `beforeSubscribe` may refuse a subscription or answer the query to
/// subscribe to instead, `afterEvent` may stop or change a frame (`LiveQueryHub+AfterEvent`). Which are registered comes from cloud's list (`cloud.triggers.list.v1`), loaded at start
/// and again on every `hooks.changed` event, so a connection or subscription costs no call when there is none.
/// Until a list has been loaded (cloud not reachable since start) none is run, as the other services do.
extension LiveQueryHub {
    /// Asks cloud for the registered triggers; the answer replaces the list on the hub's thread.
    /// A load under way is not started twice; a connection made while no list has ever loaded asks again.
    func reloadTriggers() {
        guard !loadingTriggers else { return }
        loadingTriggers = true
        let backend = self.backend
        backendCalls.spawn { [self] in
            let keys: Set<TriggerKey>?
            do {
                keys = try await backend.triggerKeys()
            } catch {
                logger.warning("cannot load the LiveQuery triggers; the list stays as it was", ["error": "\(error)"])
                keys = nil
            }
            onHub { [self] in
                loadingTriggers = false
                if let keys { liveTriggers = keys.filter { Self.liveTriggerNames.contains($0.triggerName) } }
            }
        }
    }

    static let liveTriggerNames: Set<TriggerName> = [.beforeConnect, .beforeSubscribe, .afterEvent]

    func hasTrigger(_ name: TriggerName, on className: String) -> Bool {
        guard let liveTriggers else {
            reloadTriggers()
            return false
        }
        return liveTriggers.contains(TriggerKey(className: className, triggerName: name))
    }

    /// Runs `run` in cloud as `identity` and calls `body` on the hub's thread with what it answered, or its refusal.
    func runTrigger(_ run: RunTrigger, identity: Identity, _ body: @escaping (Result<TriggerResult, ParseError>) -> Void) {
        let backend = self.backend
        // The callback stays on the hub's thread, kept by number until the answer comes back there.
        triggerCalls += 1
        let call = triggerCalls
        waitingForTriggers[call] = body
        backendCalls.spawn { [self] in
            let result: Result<TriggerResult, ParseError>
            do {
                result = .success(try await backend.runTrigger(run, identity: identity))
            } catch let error as ParseError {
                result = .failure(error)
            } catch {
                // A connection or subscription a trigger guards is not let through without it.
                result = .failure(ParseError(.scriptFailed, "Cloud Code is not reachable, so the \(run.key.triggerName.rawValue) "
                                             + "trigger could not run."))
            }
            onHub { [self] in waitingForTriggers.removeValue(forKey: call)?(result) }
        }
    }

    /// Who the trigger runs for: the session's user, or the master key.
    static func triggerIdentity(_ identity: Identity?, hasMasterKey: Bool, sessionToken: String?) -> Identity {
        if hasMasterKey { return .master }
        var caller = identity ?? Identity()
        caller.sessionToken = sessionToken
        return caller
    }
}

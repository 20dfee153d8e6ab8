import Contracts
import ParseWire

/// LiveQuery's Cloud Code triggers, run in cloud like every other (`cloud.trigger.run.v1`): `beforeConnect` (on
/// `@Connect`) may refuse a connection, `beforeSubscribe` may refuse a subscription or answer the query to
/// subscribe to instead, `afterEvent` may stop or change a frame (`LiveQueryHub+AfterEvent`). Which are registered
/// comes from cloud's list (`cloud.triggers.list.v1`), loaded at start and again on every `hooks.changed` event, so
/// a connection or subscription costs no call when there is none. Until a list has been loaded (cloud not reachable
/// since start) none is run, as the other services do.
extension LiveQueryHub {
    /// Asks cloud for the registered triggers; the answer replaces the list on the hub's thread. A change announced
    /// while a load is under way loads again once it ends, since that load may have read the list before the
    /// change; a load cloud does not answer is tried again later, so a missed answer cannot keep an old list.
    func reloadTriggers() {
        guard !triggerLoad.loading else {
            triggerLoad.changedMeanwhile = true
            return
        }
        triggerLoad.loading = true
        triggerLoad.changedMeanwhile = false
        let backend = self.backend
        backendCalls.spawn { [self] in
            let keys: Set<TriggerKey>?
            do {
                keys = try await backend.triggerKeys()
            } catch {
                logger.warning("cannot load the LiveQuery triggers; the list stays as it was", ["error": "\(error)"])
                keys = nil
            }
            onHub { [self] in triggersLoaded(keys) }
        }
    }

    private func triggersLoaded(_ keys: Set<TriggerKey>?) {
        triggerLoad.loading = false
        if let keys {
            liveTriggers = keys.filter { Self.liveTriggerNames.contains($0.triggerName) }
            triggerLoad.failures = 0
        } else {
            triggerLoad.failures += 1
        }
        if triggerLoad.changedMeanwhile {
            reloadTriggers()
        } else if keys == nil, !triggerLoad.retryDue {
            // Each unanswered list request expires into `cloud.dead`, so a stack without Cloud Code is asked rarely.
            triggerLoad.retryDue = true
            let delay = triggerRetryDelay * Double(1 << min(triggerLoad.failures - 1, 8))
            backendCalls.spawn { [self] in
                try? await Task.sleep(for: min(delay, .seconds(30)))
                onHub { [self] in
                    triggerLoad.retryDue = false
                    reloadTriggers()
                }
            }
        }
    }

    static let liveTriggerNames: Set<TriggerName> = [.beforeConnect, .beforeSubscribe, .afterEvent]

    func hasTrigger(_ name: TriggerName, on className: String) -> Bool {
        guard let liveTriggers else {
            // No list yet: ask again now, unless a load is already asking.
            if !triggerLoad.loading { reloadTriggers() }
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

extension LiveQueryHub {
    /// Where the loading of the trigger list stands (`reloadTriggers`).
    struct TriggerLoad {
        var loading = false
        /// A change was announced while the load under way ran.
        var changedMeanwhile = false
        /// Loads cloud did not answer since the last that it did.
        var failures = 0
        /// A load is to be tried again after a delay.
        var retryDue = false
    }
}

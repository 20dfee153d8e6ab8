import ParseWire

/// A piece of work waiting for a class's permissions, in the order it arrived.
struct RulesWaiter {
    /// The permissions' version the work needs (an object or vote event's `permissionsVersion`), nil for any that are current.
    let version: String?
    /// When it was queued, on the hub's `rulesClock`: a read that began later has seen the change its event names.
    let queuedAt: UInt64
    let body: (ClassRules) -> Void
}

extension LiveQueryHub {
    /// How long a class's permissions are trusted for work that names no version (subscriptions, events of an
    /// older service). Object and vote events name the version they were written under, so a change of permissions
    /// applies to the first event after it.
    static let rulesLifetime: Duration = .seconds(5)

    /// Calls `body` on the hub's thread with the class's rules, reading them from posts first when they are unknown,
    /// older than `version` says or (without a version) older than `rulesLifetime`. Work for a class keeps its order:
    /// while a read is under way, whatever arrives for the class waits behind it.
    func withRules(_ className: String, version: String? = nil, _ body: @escaping (ClassRules) -> Void) {
        if waitingForRules[className] == nil, let known = rules[className] {
            let current = version.map { $0 == known.rules.version }
                ?? (ContinuousClock.now - known.loaded <= Self.rulesLifetime)
            if current { return body(known.rules) }
        }
        rulesClock += 1
        let loading = waitingForRules[className] != nil
        waitingForRules[className, default: []].append(RulesWaiter(version: version, queuedAt: rulesClock, body: body))
        if !loading { loadRules(className) }
    }

    private func loadRules(_ className: String) {
        rulesClock += 1
        let started = rulesClock
        let backend = self.backend
        backendCalls.spawn { [self] in
            let loaded: ClassRules?
            do {
                loaded = try await backend.schema(className: className).map(ClassRules.init(schema:)) ?? .open
            } catch {
                logger.warning("cannot read a class's permissions", ["class": className, "error": "\(error)"])
                loaded = nil
            }
            onHub { [self] in rulesLoaded(className, loaded, started: started) }
        }
    }

    private func rulesLoaded(_ className: String, _ loaded: ClassRules?, started: UInt64) {
        // A failed read keeps what was known; with nothing known the class is closed to all but the master key.
        let result = loaded ?? rules[className]?.rules ?? ClassRules.closed
        if let loaded { rules[className] = (loaded, .now) }
        let waiting = waitingForRules.removeValue(forKey: className) ?? []
        for (index, waiter) in waiting.enumerated() {
            if loaded != nil, let version = waiter.version, version != result.version, waiter.queuedAt > started {
                // The read began before this event arrived, so it may predate the change the event names.
                waitingForRules[className] = Array(waiting[index...])
                loadRules(className)
                return
            }
            waiter.body(result)
        }
    }
}

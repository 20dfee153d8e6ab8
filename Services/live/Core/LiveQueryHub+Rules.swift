import ParseWire

extension LiveQueryHub {
    /// How long a class's permissions are trusted before they are read again (in the background, on the next event).
    static let rulesLifetime: Duration = .seconds(5)

    /// Calls `body` on the hub's thread with the class's rules, reading them from posts first when unknown.
    func withRules(_ className: String, _ body: @escaping (ClassRules) -> Void) {
        if let known = rules[className] { return body(known.rules) }
        waitingForRules[className, default: []].append(body)
        if waitingForRules[className]?.count == 1 { loadRules(className) }
    }

    /// The class's rules for an event now, refreshed in the background when they are old.
    func currentRules(_ className: String) -> ClassRules {
        guard let known = rules[className] else { return .open }
        if ContinuousClock.now - known.loaded > Self.rulesLifetime && waitingForRules[className] == nil {
            waitingForRules[className] = []
            loadRules(className)
        }
        return known.rules
    }

    private func loadRules(_ className: String) {
        let backend = self.backend
        Task { [self] in
            let loaded: ClassRules?
            do {
                loaded = try await backend.schema(className: className).map(ClassRules.init(schema:)) ?? .open
            } catch {
                logger.warning("cannot read a class's permissions", ["class": className, "error": "\(error)"])
                loaded = nil
            }
            onHub { [self] in
                let waiting = waitingForRules.removeValue(forKey: className) ?? []
                // A failed read keeps what was known; with nothing known the class is closed to all but the master key.
                let result = loaded ?? rules[className]?.rules ?? ClassRules.closed
                if loaded != nil { rules[className] = (result, .now) }
                for body in waiting { body(result) }
            }
        }
    }
}

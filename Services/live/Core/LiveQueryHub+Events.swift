import Contracts
import ParseWire

extension LiveQueryHub {
    /// The events sent while the event queue was gone (a lost broker connection) are missed for good: a revoked
    /// session, a role, a trigger registered, an object's other fields. What was kept from them is read again: the
    /// sessions are checked again, the trigger list reloaded, and the objects and class rules known are dropped.
    func eventsResumed() {
        refreshRoles()
        reloadTriggers()
        objects = ObjectCache(capacity: objects.capacity)
        rules = [:]
    }

    func handle(_ event: LiveEvent) {
        switch event {
        case .sessionRevoked(let userId): revoke(userId: userId)
        case .roleChanged: refreshRoles()
        case .hooksChanged: reloadTriggers()
        case .object(let kind, let className, let objectId, let object, let original, let version):
            let key = ObjectCache.key(className, objectId)
            guard byClass[className] != nil else {
                objects[key] = nil
                return
            }
            withRules(className, version: version) { [self] rules in
                if kind == "deleted" {
                    objects[key] = nil
                    if let object { deliver(className, current: object, original: nil, deleted: true, rules: rules) }
                } else if let object {
                    objects[key] = object
                    deliver(className, current: object, original: kind == "created" ? nil : original, deleted: false,
                            rules: rules)
                }
            }
        case .vote(let className, _, _, _, _, _, let version):
            guard byClass[className] != nil else { return }
            withRules(className, version: version) { [self] _ in handleVote(event) }
        }
    }

    private func handleVote(_ event: LiveEvent) {
        guard case .vote(let className, let objectId, _, _, _, _, _) = event else { return }
        let key = ObjectCache.key(className, objectId)
        if fetching[key] != nil {
            fetching[key]?.append(event)
        } else if objects[key] != nil {
            applyVote(event)
        } else {
            fetching[key] = [event]
            fetch(className, objectId)
        }
    }

    private func fetch(_ className: String, _ objectId: String) {
        let backend = self.backend
        backendCalls.spawn { [self] in
            let object: [String: JSONValue]?
            do {
                object = try await backend.object(className: className, objectId: objectId)
            } catch {
                logger.warning("cannot read a voted object; its vote events are not sent", ["error": "\(error)"])
                object = nil
            }
            onHub { [self] in
                let key = ObjectCache.key(className, objectId)
                let waiting = fetching.removeValue(forKey: key) ?? []
                guard let object else { return }
                if objects[key] == nil { objects[key] = object }
                waiting.forEach(applyVote)
            }
        }
    }

    /// A counter moved: the object before (the total less the vote's amount) and after, as an update would give.
    private func applyVote(_ event: LiveEvent) {
        guard case .vote(let className, let objectId, let field, let amount, let total, let time, _) = event else { return }
        let key = ObjectCache.key(className, objectId)
        guard var current = objects[key] else { return }
        var original = current
        original[field] = .number(total - amount)
        current[field] = .number(total)
        if let time { current["updatedAt"] = .string(time) }
        objects[key] = current
        // The rules were read for this class before the vote was handled (`withRules`); none known means that read failed.
        deliver(className, current: current, original: original, deleted: false, rules: rules[className]?.rules ?? .closed)
    }

    /// Sends the event to every subscription of the class it concerns, as parse-server decides its type: matched
    /// and readable before and after is `update`, only before `leave`, only after `enter` (`create` when new).
    func deliver(_ className: String, current: [String: JSONValue], original: [String: JSONValue]?, deleted: Bool,
                 rules: ClassRules) {
        guard let subscriptions = byClass[className] else { return }
        var current = current, original = original
        current["className"] = .string(className)
        original?["className"] = .string(className)
        var encoded = EncodedObjects(current: current, original: original)
        let afterEvent = hasTrigger(.afterEvent, on: className)
        var held: [HeldFrame] = []
        defer {
            if afterEvent {
                holdForAfterEvent(HeldEvent(className: className, current: current, original: original, deleted: deleted,
                                            rules: rules, frames: held))
            }
        }
        for subscription in subscriptions.values {
            let client = subscription.client
            let identity = sessions.current(subscription.sessionToken)
            guard rules.allows(subscription.operation, identity: identity, hasMasterKey: client.hasMasterKey) else { continue }
            let isCurrent = subscription.matcher.matches(current)
                && ObjectVisibility.mayRead(current, hasMasterKey: client.hasMasterKey, identity: identity)
            let wasMatched = !deleted && original.map {
                subscription.matcher.matches($0)
                    && ObjectVisibility.mayRead($0, hasMasterKey: client.hasMasterKey, identity: identity)
            } ?? false
            if subscription.matcher.exceededLimit {
                drop(subscription, because: "its $regex is too costly to match: it gave up at its limit on an object")
                continue
            }
            let op: LiveMessages.EventOp
            if deleted {
                guard isCurrent else { continue }
                op = .delete
            } else {
                switch (wasMatched, isCurrent) {
                case (true, true): op = .update
                case (true, false): op = .leave
                case (false, true): op = original == nil ? .create : .enter
                case (false, false): continue
                }
                if op == .update || op == .create, let watch = subscription.watch,
                   !watch.contains(where: { current[$0] != original?[$0] }) {
                    continue
                }
            }
            if let stream = subscription.graphQL, !stream.wants(op) { continue }
            if afterEvent {
                held.append(HeldFrame(client: client, subscription: subscription, op: op, identity: identity))
                continue
            }
            if subscription.graphQL != nil {
                let hidden = rules.protectedFields(identity: identity, hasMasterKey: client.hasMasterKey)
                queueGraphQLEvent(subscription, op: op, current: current, original: deleted ? nil : original, hidden: hidden,
                                  identity: identity)
                continue
            }
            let shape = encoded.bytes(keys: subscription.keys,
                                      hidden: rules.protectedFields(identity: identity, hasMasterKey: client.hasMasterKey))
            send(client.connection, frame: LiveMessages.eventFrame(op, head: subscription.eventHead, object: shape.current,
                                                                   original: deleted ? nil : shape.original))
        }
    }
}

extension LiveQueryHub {
    /// Ends a subscription the server cannot serve any more and tells its client why (parse-server's `error` op,
    /// with the subscription's request id); the connection and its other subscriptions stay.
    func drop(_ subscription: LiveSubscription, because reason: String) {
        let client = subscription.client
        if client.subscriptions[subscription.requestId] === subscription { client.subscriptions[subscription.requestId] = nil }
        remove(subscription)
        logger.info("subscription dropped", ["class": subscription.className, "reason": reason])
        refuse(client, requestId: subscription.requestId, ParseError(.invalidQuery, "The subscription is dropped: \(reason)."))
    }
}

/// An event's object and original as JSON text (UTF-8, ready for a frame), encoded once per distinct `keys` and
/// protected fields among the subscriptions.
struct EncodedObjects {
    struct Shape: Hashable {
        var keys: [String]?
        var hidden: Set<String>
    }

    let current: [String: JSONValue]
    let original: [String: JSONValue]?
    private var byShape: [Shape: (current: [UInt8], original: [UInt8]?)] = [:]

    init(current: [String: JSONValue], original: [String: JSONValue]?) {
        self.current = current
        self.original = original
    }

    mutating func bytes(keys: [String]?, hidden: Set<String>) -> (current: [UInt8], original: [UInt8]?) {
        let shape = Shape(keys: keys, hidden: hidden)
        if let known = byShape[shape] { return known }
        func text(_ object: [String: JSONValue]) -> [UInt8] {
            Array(JSONValue.object(ObjectVisibility.shaped(object, keys: keys).filter { !hidden.contains($0.key) }).compactText.utf8)
        }
        let texts = (text(current), original.map(text))
        byShape[shape] = texts
        return texts
    }
}

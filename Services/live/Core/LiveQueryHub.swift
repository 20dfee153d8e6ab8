import Contracts
import Foundation
import GraphQL
import ParseGraphQL
import ParseWire
import Query
import Runtime
import Synchronization

/// The LiveQuery protocol over the loop's connections: `connect`, `subscribe`, `update`, `unsubscribe`, and the
/// events fanned out to matching subscriptions; and GraphQL subscriptions over graphql-transport-ws, the same
/// subscriptions with their events executed as GraphQL operations (`LiveQueryHub+GraphQL`). Subscriptions are indexed by class, so an event costs the
/// subscriptions of its class only. Runs on a thread of its own (`queue`: the loop's reports, the events and every
/// asynchronous answer are queued there), which is why it needs no lock; the frames it makes go to the loop thread
/// together at the end of each piece of work. Matching never runs on the loop thread, so a costly match delays the
/// events behind it, never another client's frames, pings or the health answer.
public final class LiveQueryHub: SocketLoopDelegate, @unchecked Sendable {
    let loop: SocketLoop
    let backend: any LiveBackend
    /// Changed on the hub's thread only (an app's keys rotated: `LiveHubs`).
    var keys: LiveKeys
    /// `PARSE_SERVER_REQUEST_COMPLEXITY_QUERY_DEPTH` applies to subscriptions too.
    let limits: RequestComplexity
    let logger: Logger
    var clients: [UInt64: LiveClient] = [:]
    var byClass: [String: [ObjectIdentifier: LiveSubscription]] = [:]
    var sessions = SessionStates()
    /// The checks of sessions with auth under way and waiting (`SessionChecks`).
    var sessionChecks = SessionChecks(limit: LiveQueryHub.sessionChecksAtOnce)
    /// At most this many session checks at once per hub: enough to keep auth busy, few enough that a role change
    /// seen by thousands of subscribers does not queue thousands of commands ahead of everyone else's.
    static let sessionChecksAtOnce = 8
    var objects = ObjectCache(capacity: 50_000)
    var fetching: [String: [LiveEvent]] = [:]
    var rules: [String: (rules: ClassRules, loaded: ContinuousClock.Instant)] = [:]
    var waitingForRules: [String: [RulesWaiter]] = [:]
    /// Orders the waits for permissions and their reads (`RulesWaiter.queuedAt`).
    var rulesClock: UInt64 = 0
    /// The LiveQuery triggers registered, nil until cloud's list has been loaded (`LiveQueryHub+Triggers`).
    var liveTriggers: Set<TriggerKey>?
    /// Connections whose `connect` waits for its beforeConnect trigger.
    var connecting: Set<UInt64> = []
    /// What to do with each trigger's answer, by call number (`runTrigger`).
    var waitingForTriggers: [UInt64: (Result<TriggerResult, ParseError>) -> Void] = [:]
    var triggerCalls: UInt64 = 0
    var triggerLoad = TriggerLoad()
    /// How long after a first unanswered trigger list load it is tried again (doubled after each one after that).
    let triggerRetryDelay: Duration
    /// Events of classes with an `afterEvent` trigger waiting for the one before them (`LiveQueryHub+AfterEvent`).
    var afterEventBacklog: [String: [HeldEvent]] = [:]
    var afterEventBusy: Set<String> = []
    /// The GraphQL schema and its reads, for subscriptions over graphql-transport-ws.
    let graphQL: ParseGraphQLEndpoint
    let graphQLLimits: GraphQLLimits
    /// Connections that agreed on graphql-transport-ws, those that sent `connection_init`, and the subscribe ids
    /// whose operation is being checked.
    var graphQLSockets: Set<UInt64> = []
    var graphQLInitialised: Set<UInt64> = []
    var graphQLPreparing: [UInt64: Set<String>] = [:]
    /// GraphQL subscriptions made so far: each one's serial number.
    var graphQLStreams: UInt64 = 0
    /// The calls to auth, posts and cloud under way, each answered back on the hub's thread.
    let backendCalls = OwnedTasks("live backend calls")
    /// The hub's thread: every piece of state above is touched on it alone.
    private let queue = DispatchQueue(label: "live-hub")
    /// Frames made by the piece of work under way, sent when it ends, then the connections it closes.
    private var outgoing: [(connection: UInt64, frame: [UInt8])] = []
    private var closing: [(connection: UInt64, code: WebSocketCloseCode, reason: String)] = []
    /// Events received and not yet handled. Past `maxPendingEvents`, new ones are dropped (and logged): a hub held
    /// up cannot grow the process without bound, and subscribers would rather miss a moment than lag ever more.
    private let pendingEvents = Atomic<Int>(0)
    static let maxPendingEvents = 100_000

    public init(loop: SocketLoop, backend: any LiveBackend, keys: LiveKeys, limits: RequestComplexity = .unlimited,
                graphQLLimits: GraphQLLimits = .none, triggerRetryDelay: Duration = .milliseconds(500), logger: Logger) {
        self.loop = loop
        self.backend = backend
        self.keys = keys
        self.limits = limits
        self.graphQLLimits = graphQLLimits
        self.triggerRetryDelay = triggerRetryDelay
        graphQL = ParseGraphQLEndpoint()
        self.logger = logger
    }

    /// Stops the calls still under way (at shutdown, once the sockets are closed) and waits for them.
    public func stop() async {
        await backendCalls.stop()
    }

    /// Hands an event over from any thread.
    public func receive(routingKey: String, body: [UInt8]) {
        guard let event = LiveEvent(routingKey: routingKey, body: body) else {
            logger.warning("unreadable event", ["routing.key": routingKey])
            return
        }
        guard pendingEvents.add(1, ordering: .relaxed).newValue <= Self.maxPendingEvents else {
            pendingEvents.subtract(1, ordering: .relaxed)
            logger.warning("too many events waiting for the hub; one dropped", ["routing.key": routingKey])
            return
        }
        onHub { [self] in
            pendingEvents.subtract(1, ordering: .relaxed)
            handle(event)
        }
    }

    /// Runs `work` on the hub's thread, then hands the frames it made to the loop thread at once.
    func onHub(_ work: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            work()
            guard !outgoing.isEmpty || !closing.isEmpty else { return }
            let frames = outgoing, closes = closing, loop = self.loop
            outgoing = []
            closing = []
            loop.post {
                for frame in frames { loop.send(frame.connection, frame: frame.frame) }
                for close in closes { loop.close(close.connection, close.code, reason: close.reason) }
            }
        }
    }

    // MARK: SocketLoopDelegate

    public func socketOpened(_ connection: UInt64, subprotocol: String?) {
        guard subprotocol == WebSocketHandshake.graphQLTransportWS else { return }
        onHub { [self] in graphQLSockets.insert(connection) }
    }

    public func socketClosed(_ connection: UInt64) {
        onHub { [self] in closed(connection) }
    }

    public func socketReceived(_ connection: UInt64, text: String) {
        onHub { [self] in received(connection, text: text) }
    }

    private func closed(_ connection: UInt64) {
        connecting.remove(connection)
        graphQLSockets.remove(connection)
        graphQLInitialised.remove(connection)
        graphQLPreparing[connection] = nil
        guard let client = clients.removeValue(forKey: connection) else { return }
        for subscription in client.subscriptions.values { remove(subscription) }
        if let token = client.sessionToken { sessions.release(token) }
    }

    private func received(_ connection: UInt64, text: String) {
        if graphQLSockets.contains(connection) { return receivedGraphQL(connection, text: text) }
        guard let message = JSONValue.parse(text) else {
            // parse-server drops a message that is not JSON without a word; an answer tells the developer why.
            send(connection, LiveMessages.error(code: 1, "Invalid JSON", reconnect: true, requestId: nil))
            return
        }
        switch LiveRequestSchema.validate(message) {
        case .failure(let reason):
            send(connection, LiveMessages.error(code: 1, reason, reconnect: true, requestId: nil))
        case .success("connect"): handleConnect(connection, (message.objectValue ?? [:]).compactMapValues(\.stringValue))
        case .success("unsubscribe"): handleUnsubscribe(connection, message, notify: true)
        case .success("update"):
            handleUnsubscribe(connection, message, notify: false)
            handleSubscribe(connection, message)
        case .success: handleSubscribe(connection, message)
        }
    }

    /// Queues a message; it leaves when the piece of work under way ends (`onHub`). Framed here, on the hub's
    /// thread, so the socket loop only copies bytes.
    func send(_ connection: UInt64, _ text: String) { outgoing.append((connection, WebSocketFrameWriter.text(text))) }

    /// Queues a frame already made (`LiveMessages.eventFrame`).
    func send(_ connection: UInt64, frame: [UInt8]) { outgoing.append((connection, frame)) }

    /// Closes the connection once the frames queued before have left.
    func close(_ connection: UInt64, _ code: WebSocketCloseCode, reason: String) { closing.append((connection, code, reason)) }

    // MARK: operations

    /// `fields`: `connect`'s (or those GraphQL's `connection_init` gave, by the same names).
    func handleConnect(_ connection: UInt64, _ fields: [String: String]) {
        let speaksGraphQL = graphQLSockets.contains(connection)
        guard keys.accepts(fields) else {
            if speaksGraphQL { return close(connection, .forbidden, reason: "Forbidden: the keys are not valid") }
            send(connection, LiveMessages.error(code: 4, "Key in request is not valid", reconnect: true, requestId: nil))
            return
        }
        if !speaksGraphQL { closed(connection) }
        let client = LiveClient(connection: connection, clientId: UUID().uuidString.lowercased(),
                                hasMasterKey: keys.hasMasterKey(fields), sessionToken: fields["sessionToken"],
                                installationId: fields["installationId"], speaksGraphQL: speaksGraphQL)
        guard hasTrigger(.beforeConnect, on: TriggerName.connectClassName) else { return accept(client) }
        connecting.insert(connection)
        var details: [String: JSONValue] = [
            "event": .string("connect"), "useMasterKey": .bool(client.hasMasterKey),
            "clients": .number(Double(clients.count)), "subscriptions": .number(Double(byClass.values.map(\.count).reduce(0, +))),
        ]
        if let installationId = client.installationId { details["installationId"] = .string(installationId) }
        if let token = client.sessionToken { details["sessionToken"] = .string(token) }
        let run = RunTrigger(key: TriggerKey(className: TriggerName.connectClassName, triggerName: .beforeConnect), details: details)
        withSession(client.sessionToken) { [self] identity in
            runTrigger(run, identity: Self.triggerIdentity(identity, hasMasterKey: client.hasMasterKey,
                                                           sessionToken: client.sessionToken)) { [self] result in
                guard connecting.remove(connection) != nil else { return }
                switch result {
                case .success: accept(client)
                case .failure(let error) where speaksGraphQL: close(connection, .forbidden, reason: error.message)
                case .failure(let error):
                    send(connection, LiveMessages.error(code: error.code.rawValue, error.message, reconnect: false, requestId: nil))
                }
            }
        }
    }

    private func accept(_ client: LiveClient) {
        clients[client.connection] = client
        if let token = client.sessionToken { sessions.retain(token) }
        if client.speaksGraphQL { return send(client.connection, GraphQLTransportMessages.connectionAck) }
        send(client.connection, LiveMessages.event("connected", clientId: client.clientId, installationId: client.installationId))
    }

    private func handleSubscribe(_ connection: UInt64, _ message: JSONValue) {
        guard let client = clients[connection] else {
            send(connection, LiveMessages.error(
                code: 2, "Can not find this client, make sure you connect to server before subscribing",
                reconnect: true, requestId: nil))
            return
        }
        let requestId = message["requestId"] ?? .null
        let query = message["query"] ?? .null
        let className = query["className"]?.stringValue ?? ""
        let matcher: WhereMatcher
        do throws(ParseError) {
            // System classes (`_User`, `_Session`, `_Role`) start with an underscore.
            let plainName = className.hasPrefix("_") ? String(className.dropFirst()) : className
            guard Names.isValidClassName(plainName) else { throw ParseError(.invalidClassName, "Invalid class name: \(className)") }
            if !client.hasMasterKey { try limits.check(subscription: query["where"]?.objectValue ?? [:]) }
            matcher = try WhereMatcher(query["where"]?.objectValue ?? [:])
        } catch {
            send(connection, LiveMessages.error(code: error.code.rawValue, error.message, reconnect: false, requestId: requestId))
            return
        }
        let token = message["sessionToken"]?.stringValue ?? client.sessionToken
        guard requestId.numberValue != nil else { return }
        admit(client, requestId: requestId, className: className, query: query, matcher: matcher, token: token)
    }

    /// What a subscription passes before it is added, LiveQuery's and GraphQL's alike: the session (`_Session` needs
    /// one), the class's permissions read, and the beforeSubscribe trigger, whose query replaces the client's.
    func admit(_ client: LiveClient, requestId: JSONValue, className: String, query: JSONValue, matcher: WhereMatcher,
               token: String?, graphQL: GraphQLEventStream? = nil) {
        let connection = client.connection
        withSession(token) { [self] identity in withRules(className) { [self] _ in
            guard clients[connection] === client else { return }
            if className == "_Session" && identity?.userId == nil && !client.hasMasterKey {
                return refuse(client, requestId: requestId, ParseError(.invalidSessionToken, "Invalid session token"))
            }
            guard hasTrigger(.beforeSubscribe, on: className) else {
                return subscribe(client, requestId: requestId, className: className, query: query, matcher: matcher, token: token,
                                 graphQL: graphQL)
            }
            var details: [String: JSONValue] = ["requestId": requestId, "useMasterKey": .bool(client.hasMasterKey)]
            if let installationId = client.installationId { details["installationId"] = .string(installationId) }
            if let token { details["sessionToken"] = .string(token) }
            let run = RunTrigger(key: TriggerKey(className: className, triggerName: .beforeSubscribe), query: query,
                                 details: details)
            runTrigger(run, identity: Self.triggerIdentity(identity, hasMasterKey: client.hasMasterKey,
                                                           sessionToken: token)) { [self] result in
                guard clients[connection] === client else { return }
                do throws(ParseError) {
                    // The members of the trigger's query replace the client's; those it leaves out stay.
                    var changed = query.objectValue ?? [:]
                    for (name, value) in try result.get().query?.objectValue ?? [:] where name != "className" {
                        changed[name] = value
                    }
                    let answered = JSONValue.object(changed)
                    let changedMatcher = answered["where"] == query["where"]
                        ? matcher : try WhereMatcher(answered["where"]?.objectValue ?? [:])
                    subscribe(client, requestId: requestId, className: className, query: answered, matcher: changedMatcher,
                              token: token, graphQL: graphQL)
                } catch {
                    refuse(client, requestId: requestId, error)
                }
            }
        } }
    }

    /// A subscription not made, told in the client's protocol: LiveQuery's `error` with the request id, or
    /// GraphQL's `error` for the operation.
    func refuse(_ client: LiveClient, requestId: JSONValue, _ error: ParseError) {
        if client.speaksGraphQL, let id = requestId.stringValue {
            graphQLPreparing[client.connection]?.remove(id)
            return send(client.connection, GraphQLTransportMessages.error(id: id, [ParseGraphQLErrors.reported(error)]))
        }
        send(client.connection, LiveMessages.error(code: error.code.rawValue, error.message, reconnect: false, requestId: requestId))
    }

    /// Adds the subscription (replacing one with the same request id) and answers `subscribed`.
    private func subscribe(_ client: LiveClient, requestId: JSONValue, className: String, query: JSONValue,
                           matcher: WhereMatcher, token: String?, graphQL: GraphQLEventStream?) {
        // A GraphQL subscription completed while it was being admitted is not added.
        if graphQL != nil, let id = requestId.stringValue, graphQLPreparing[client.connection]?.remove(id) == nil { return }
        let keys = (query["keys"] ?? query["fields"])?.arrayValue?.compactMap(\.stringValue)
        let watch = query["watch"]?.arrayValue?.compactMap(\.stringValue)
        if let previous = client.subscriptions[requestId] { remove(previous) }
        // parse-server checks `get` for a query on one objectId alone, `find` otherwise.
        let whereClause = query["where"]?.objectValue ?? [:]
        let operation = whereClause.count == 1 && whereClause["objectId"]?.stringValue != nil ? "get" : "find"
        let subscription = LiveSubscription(client: client, requestId: requestId, className: className, matcher: matcher,
                                            keys: keys, watch: watch, sessionToken: token, operation: operation,
                                            graphQL: graphQL)
        client.subscriptions[requestId] = subscription
        byClass[className, default: [:]][ObjectIdentifier(subscription)] = subscription
        if let token { sessions.retain(token) }
        // graphql-transport-ws has no answer to `subscribe` but the events.
        guard !client.speaksGraphQL else { return }
        send(client.connection, LiveMessages.event("subscribed", clientId: client.clientId, installationId: client.installationId,
                                                   requestId: requestId))
    }

    private func handleUnsubscribe(_ connection: UInt64, _ message: JSONValue, notify: Bool) {
        guard let client = clients[connection] else {
            send(connection, LiveMessages.error(
                code: 2, "Can not find this client, make sure you connect to server before unsubscribing",
                reconnect: true, requestId: nil))
            return
        }
        let requestId = message["requestId"] ?? .null
        guard requestId.numberValue != nil, let subscription = client.subscriptions.removeValue(forKey: requestId) else {
            guard notify else { return }
            send(connection, LiveMessages.error(
                code: 2, "Cannot find subscription with clientId \(client.clientId) subscriptionId \(requestId.compactText)."
                    + " Make sure you subscribe to live query server before unsubscribing.",
                reconnect: true, requestId: nil))
            return
        }
        remove(subscription)
        if notify {
            send(connection, LiveMessages.event("unsubscribed", clientId: client.clientId, installationId: client.installationId,
                                                requestId: requestId))
        }
    }

    func remove(_ subscription: LiveSubscription) {
        byClass[subscription.className]?[ObjectIdentifier(subscription)] = nil
        if byClass[subscription.className]?.isEmpty == true { byClass[subscription.className] = nil }
        if let token = subscription.sessionToken { sessions.release(token) }
    }
}

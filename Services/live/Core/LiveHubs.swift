import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Synchronization

/// Every app's hub: the stack's own app's, and one for each other app a client has connected to, made then. A
/// connection belongs to the stack's hub unless its first message is a LiveQuery `connect` (or, over
/// graphql-transport-ws, a `connection_init`) naming another app the
/// registry (`auth`) knows: its messages then go to that app's hub, whose keys are that app's and whose reads and
/// trigger calls are that app's commands (`MessagingLiveBackend.app`). An app's events (`app.<id>.<key>`) go to its
/// hub only, so a subscription never hears of another app's objects.
final class LiveHubs: SocketLoopDelegate, @unchecked Sendable {
    let stack: LiveQueryHub
    private let loop: SocketLoop
    private let calls: RPCClient
    private let configuration: LiveConfiguration
    private let logger: Logger
    private let others = Mutex<[String: LiveQueryHub]>([:])
    /// The registry's answers, asked off the loop thread.
    private let lookups = OwnedTasks("live app look-ups")

    // Touched on the loop thread only (the delegate's calls, and the look-ups' answers posted to it).
    private var owners: [UInt64: LiveQueryHub] = [:]
    private var subprotocols: [UInt64: String] = [:]
    /// Messages of connections whose app is being looked up, in the order they came.
    private var waiting: [UInt64: [String]] = [:]

    init(stack: LiveQueryHub, loop: SocketLoop, calls: RPCClient, configuration: LiveConfiguration, logger: Logger) {
        self.stack = stack
        self.loop = loop
        self.calls = calls
        self.configuration = configuration
        self.logger = logger
    }

    /// Every hub, the stack's first.
    var all: [LiveQueryHub] { [stack] + others.withLock { Array($0.values) } }

    func stop() async {
        await lookups.stop()
        for hub in all { await hub.stop() }
    }

    /// The event queue came back after a loss of the broker's connection: every hub catches up on what it missed.
    func eventsResumed() {
        for hub in all { hub.onHub { hub.eventsResumed() } }
    }

    /// An event from the broker: to the hub of its app, under the routing key it has for that app.
    func receive(routingKey: String, body: [UInt8]) {
        if routingKey == AppDeleted.routingKey { return deleted(body) }
        guard let app = AppContext.app(ofRoutingKey: routingKey) else { return stack.receive(routingKey: routingKey, body: body) }
        // With no hub, no client of the app is connected here.
        guard let hub = others.withLock({ $0[app] }) else { return }
        hub.receive(routingKey: String(routingKey.dropFirst("app.\(app).".count)), body: body)
    }

    /// A deleted app's clients are disconnected and its hub forgotten: its keys no longer open anything.
    private func deleted(_ body: [UInt8]) {
        guard let app = (try? JSONDecoder().decode(CloudEvent<AppDeleted>.self, from: Data(body)))?.data.applicationId,
              let hub = others.withLock({ $0.removeValue(forKey: app) }) else { return }
        loop.post { [self] in
            for (connection, owner) in owners where owner === hub {
                loop.close(connection, .goingAway, reason: "This app was deleted.")
            }
        }
        _ = lookups.spawnDetached { await hub.stop() }
        logger.info("app closed", ["app": app])
    }

    // MARK: SocketLoopDelegate

    func socketOpened(_ connection: UInt64, subprotocol: String?) {
        if let subprotocol { subprotocols[connection] = subprotocol }
        stack.socketOpened(connection, subprotocol: subprotocol)
    }

    func socketReceived(_ connection: UInt64, text: String) {
        if let owner = owners[connection] { return owner.socketReceived(connection, text: text) }
        if waiting[connection] != nil { return waiting[connection]!.append(text) }
        guard let app = Self.connectingApp(text, subprotocol: subprotocols[connection]), app != configuration.keys.applicationId,
              AppContext.isValidId(app) else {
            // From its first message on, the stack's hub has the connection.
            owners[connection] = stack
            return stack.socketReceived(connection, text: text)
        }
        waiting[connection] = [text]
        let started = lookups.spawnDetached { [self] in
            let hub = await hub(of: app)
            loop.post { [self] in handOver(connection, to: hub) }
        }
        if !started { handOver(connection, to: nil) }
    }

    func socketClosed(_ connection: UInt64) {
        waiting[connection] = nil
        subprotocols[connection] = nil
        (owners.removeValue(forKey: connection) ?? stack).socketClosed(connection)
    }

    /// The connection's messages so far go to `hub`, or to the stack's (which refuses the keys) for no app.
    private func handOver(_ connection: UInt64, to hub: LiveQueryHub?) {
        guard let messages = waiting.removeValue(forKey: connection) else { return }
        let owner = hub ?? stack
        owners[connection] = owner
        if owner !== stack {
            stack.socketClosed(connection)
            owner.socketOpened(connection, subprotocol: subprotocols[connection])
        }
        for text in messages { owner.socketReceived(connection, text: text) }
    }

    /// The `applicationId` of a LiveQuery `connect`, or of a GraphQL `connection_init` on a graphql-transport-ws
    /// socket; nil for any other message.
    static func connectingApp(_ text: String, subprotocol: String?) -> String? {
        guard let message = JSONValue.parse(text) else { return nil }
        if subprotocol == WebSocketHandshake.graphQLTransportWS {
            guard message["type"]?.stringValue == "connection_init" else { return nil }
            return LiveQueryHub.connectFields(ofInit: message)["applicationId"]
        }
        guard subprotocol == nil, message["op"]?.stringValue == "connect" else { return nil }
        return message["applicationId"]?.stringValue
    }

    /// The hub of `app`, made the first time; nil when the registry has no such app (asked at every connect, so a
    /// deleted app's clients are refused from then on).
    private func hub(of app: String) async -> LiveQueryHub? {
        let record: AppRecord
        do {
            record = try await calls.resolveApp(app, timeout: configuration.requestTimeout)
        } catch {
            if !(error is ParseError) { logger.warning("the app registry did not answer", ["app": app, "error": "\(error)"]) }
            return nil
        }
        let keys = LiveKeys(applicationId: record.applicationId, masterKey: record.masterKey, clientKeys: [
            "clientKey": record.clientKey, "javascriptKey": record.javascriptKey, "restAPIKey": record.restApiKey,
            "windowsKey": record.dotNetKey,
        ])
        let (hub, made) = others.withLock { hubs -> (LiveQueryHub, Bool) in
            if let hub = hubs[app] { return (hub, false) }
            let hub = LiveQueryHub(loop: loop, backend: MessagingLiveBackend(client: calls, timeout: configuration.requestTimeout,
                                                                             app: app),
                                   keys: keys, limits: configuration.requestComplexity,
                                   graphQLLimits: configuration.graphQLLimits, logger: logger.with("app", app))
            hubs[app] = hub
            return (hub, true)
        }
        // The keys as the registry has them now (rotated, perhaps), in force before the connect that asked.
        if !made { hub.onHub { hub.keys = keys } }
        if made { hub.onHub { hub.reloadTriggers() } }
        return hub
    }
}

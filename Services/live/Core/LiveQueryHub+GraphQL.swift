import Contracts
import GraphQL
import ParseGraphQL
import ParseWire
import Query

/// GraphQL subscriptions over graphql-transport-ws (github.com/enisdenjo/graphql-ws, PROTOCOL.md): `connection_init`
/// is LiveQuery's `connect` (its payload carries the keys and the session token, by LiveQuery's names or the REST
/// headers'), `subscribe` a subscription checked against the GraphQL schema of the moment, whose class, `where`,
/// `events` and `watch` become a LiveQuery subscription admitted as any other (session, permissions,
/// beforeSubscribe), and each of its events is executed as the operation, off the hub's thread and one at a time,
/// then sent as `next`. `complete` ends one. Breaking the protocol closes the socket with its 44xx codes.
extension LiveQueryHub {
    /// Events of one GraphQL subscription waiting for their execution, at most: a client that cannot be sent to as
    /// fast as its class changes loses its subscription rather than grow the process.
    static let maxWaitingGraphQLEvents = 1_000

    /// The `connection_init` payload's members LiveQuery's `connect` has, by either name.
    private static let connectionFields: [String: String] = [
        "applicationid": "applicationId", "x-parse-application-id": "applicationId",
        "masterkey": "masterKey", "x-parse-master-key": "masterKey",
        "clientkey": "clientKey", "x-parse-client-key": "clientKey",
        "javascriptkey": "javascriptKey", "x-parse-javascript-key": "javascriptKey",
        "restapikey": "restAPIKey", "x-parse-rest-api-key": "restAPIKey",
        "windowskey": "windowsKey", "x-parse-windows-key": "windowsKey",
        "sessiontoken": "sessionToken", "x-parse-session-token": "sessionToken",
        "installationid": "installationId", "x-parse-installation-id": "installationId",
    ]

    /// A `connection_init`'s payload as LiveQuery's `connect` fields.
    static func connectFields(ofInit message: JSONValue) -> [String: String] {
        var fields: [String: String] = [:]
        let payload = message["payload"]?.objectValue ?? [:]
        for (name, value) in payload.merging(payload["headers"]?.objectValue ?? [:], uniquingKeysWith: { given, _ in given }) {
            if let field = connectionFields[name.lowercased()], let value = value.stringValue { fields[field] = value }
        }
        return fields
    }

    func receivedGraphQL(_ connection: UInt64, text: String) {
        guard let message = JSONValue.parse(text), let type = message["type"]?.stringValue else {
            return close(connection, .badRequest, reason: "Invalid message received")
        }
        switch type {
        case "connection_init":
            guard graphQLInitialised.insert(connection).inserted else {
                return close(connection, .tooManyInitialisationRequests, reason: "Too many initialisation requests")
            }
            handleConnect(connection, Self.connectFields(ofInit: message))
        case "ping": send(connection, GraphQLTransportMessages.pong)
        case "pong": break
        case "subscribe":
            guard let client = clients[connection] else { return close(connection, .unauthorized, reason: "Unauthorized") }
            guard let id = message["id"]?.stringValue, !id.isEmpty, let payload = message["payload"] else {
                return close(connection, .badRequest, reason: "Invalid message received")
            }
            guard client.subscriptions[.string(id)] == nil, graphQLPreparing[connection]?.contains(id) != true else {
                return close(connection, .subscriberAlreadyExists, reason: "Subscriber for \(id) already exists")
            }
            let request: GraphQLRequest
            do {
                request = try GraphQLHTTPRequest.operation(payload)
            } catch {
                return close(connection, .badRequest, reason: error.message)
            }
            prepareGraphQL(client, id: id, request)
        case "complete":
            guard let id = message["id"]?.stringValue else { return close(connection, .badRequest, reason: "Invalid message received") }
            graphQLPreparing[connection]?.remove(id)
            if let client = clients[connection], let subscription = client.subscriptions.removeValue(forKey: .string(id)) {
                remove(subscription)
            }
        default:
            close(connection, .badRequest, reason: "Invalid message received")
        }
    }

    /// Checks the operation against the schema (read through the services when the kept one does not know it),
    /// then admits the subscription it names.
    private func prepareGraphQL(_ client: LiveClient, id: String, _ request: GraphQLRequest) {
        let connection = client.connection, clientId = client.clientId
        graphQLPreparing[connection, default: []].insert(id)
        let endpoint = graphQL, schemaReader = LiveGraphQLBackend(backend: backend, identity: .master)
        let limits = client.hasMasterKey ? GraphQLLimits.none : graphQLLimits
        backendCalls.spawn { [self] in
            let outcome = await endpoint.subscribe(request, limits: limits) {
                try await ParseGraphQLInputs.read { path in try await schemaReader.rest("GET", path, query: [:], body: nil) }
            }
            onHub { [self] in
                // Completed, or the client gone, meanwhile: nothing to admit. The id stays taken until the
                // subscription is added or refused (`subscribe`, `refuse`).
                guard let client = clients[connection], client.clientId == clientId,
                      graphQLPreparing[connection]?.contains(id) == true else { return }
                admitGraphQL(client, id: id, outcome)
            }
        }
    }

    private func admitGraphQL(_ client: LiveClient, id: String, _ outcome: Result<ParseGraphQLSubscription, ParseGraphQLEndpoint.Refusal>) {
        let operation: ParseGraphQLSubscription
        switch outcome {
        case .failure(let refusal):
            graphQLPreparing[client.connection]?.remove(id)
            return send(client.connection, GraphQLTransportMessages.error(id: id, refusal.errors))
        case .success(let accepted): operation = accepted
        }
        let matcher: WhereMatcher
        do throws(ParseError) {
            if !client.hasMasterKey { try limits.check(subscription: operation.constraints) }
            matcher = try WhereMatcher(operation.constraints)
        } catch {
            return refuse(client, requestId: .string(id), error)
        }
        var query: [String: JSONValue] = ["className": .string(operation.className), "where": .object(operation.constraints)]
        if let watch = operation.watch { query["watch"] = .array(watch.map(JSONValue.string)) }
        graphQLStreams += 1
        admit(client, requestId: .string(id), className: operation.className, query: .object(query), matcher: matcher,
              token: client.sessionToken, graphQL: GraphQLEventStream(operation: operation, serial: graphQLStreams))
    }

    /// An event for a GraphQL subscription, its objects as the subscriber may see them: executed after those
    /// before it.
    func queueGraphQLEvent(_ subscription: LiveSubscription, op: LiveMessages.EventOp, current: [String: JSONValue],
                           original: [String: JSONValue]?, hidden: Set<String>, identity: Identity?) {
        guard let stream = subscription.graphQL, stream.wants(op) else { return }
        guard stream.waiting.count < Self.maxWaitingGraphQLEvents else {
            return drop(subscription, because: "its events arrive faster than they can be sent")
        }
        stream.waiting.append(GraphQLEventStream.Event(op: op, object: current.filter { !hidden.contains($0.key) },
                                                       original: original?.filter { !hidden.contains($0.key) }, identity: identity))
        if !stream.executing { executeNextGraphQLEvent(subscription) }
    }

    private func executeNextGraphQLEvent(_ subscription: LiveSubscription) {
        guard let stream = subscription.graphQL, !stream.waiting.isEmpty else {
            subscription.graphQL?.executing = false
            return
        }
        let event = stream.waiting.removeFirst()
        stream.executing = true
        let client = subscription.client, connection = client.connection, serial = stream.serial
        guard case .string(let id) = subscription.requestId else { return }
        let reader = LiveGraphQLBackend(backend: backend,
                                        identity: client.hasMasterKey ? .master : event.identity ?? .anonymous)
        let operation = stream.operation
        backendCalls.spawn { [self] in
            let result = await operation.result(event: event.op.rawValue, object: event.object, original: event.original,
                                                backend: reader)
            onHub { [self] in
                // A subscription completed meanwhile sends nothing more.
                guard let subscription = clients[connection]?.subscriptions[.string(id)], subscription.graphQL?.serial == serial else {
                    return
                }
                send(connection, GraphQLTransportMessages.next(id: id, result))
                executeNextGraphQLEvent(subscription)
            }
        }
    }
}

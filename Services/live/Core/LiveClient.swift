import Contracts
import ParseGraphQL
import ParseWire
import Query

/// One connected client: what it sent with `connect` (or GraphQL's `connection_init`) and its subscriptions by
/// request id (a number for LiveQuery, a string for GraphQL).
final class LiveClient {
    let connection: UInt64
    let clientId: String
    let hasMasterKey: Bool
    let sessionToken: String?
    let installationId: String?
    /// The connection speaks graphql-transport-ws rather than LiveQuery's protocol.
    let speaksGraphQL: Bool
    var subscriptions: [JSONValue: LiveSubscription] = [:]

    init(connection: UInt64, clientId: String, hasMasterKey: Bool, sessionToken: String?, installationId: String?,
         speaksGraphQL: Bool = false) {
        self.connection = connection
        self.clientId = clientId
        self.hasMasterKey = hasMasterKey
        self.sessionToken = sessionToken
        self.installationId = installationId
        self.speaksGraphQL = speaksGraphQL
    }
}

/// One `subscribe`: its query, the fields it asked for and the session whose access it sees with.
final class LiveSubscription {
    unowned let client: LiveClient
    let requestId: JSONValue
    let className: String
    let matcher: WhereMatcher
    let keys: [String]?
    /// parse-server 9's `watch`: `create` and `update` events only when one of these fields changed.
    let watch: [String]?
    /// The subscription's own token, else the client's.
    let sessionToken: String?
    /// The class-level permission its events need: `get` or `find`.
    let operation: String
    /// A GraphQL subscription's operation and the events waiting to be executed; nil for LiveQuery's.
    let graphQL: GraphQLEventStream?
    /// What each of its event frames repeats (`LiveMessages.eventHead`), encoded once.
    private(set) lazy var eventHead = LiveMessages.eventHead(clientId: client.clientId, installationId: client.installationId,
                                                             requestId: requestId)

    init(client: LiveClient, requestId: JSONValue, className: String, matcher: WhereMatcher, keys: [String]?,
         watch: [String]? = nil, sessionToken: String?, operation: String, graphQL: GraphQLEventStream? = nil) {
        self.client = client
        self.requestId = requestId
        self.className = className
        self.matcher = matcher
        self.keys = keys
        self.watch = watch
        self.sessionToken = sessionToken
        self.operation = operation
        self.graphQL = graphQL
    }
}

/// A GraphQL subscription's side of a `LiveSubscription`: the operation each event is executed with, and the events
/// waiting for it, executed one at a time so they reach the client in order.
final class GraphQLEventStream {
    struct Event {
        let op: LiveMessages.EventOp
        let object: [String: JSONValue]
        let original: [String: JSONValue]?
        let identity: Identity?
    }

    let operation: ParseGraphQLSubscription
    /// Tells this stream from a later one with the same id, when an execution's result comes back.
    let serial: UInt64
    var waiting: [Event] = []
    var executing = false

    init(operation: ParseGraphQLSubscription, serial: UInt64) {
        self.operation = operation
        self.serial = serial
    }

    /// Whether the subscription asked for events of this kind (`events:`).
    func wants(_ op: LiveMessages.EventOp) -> Bool { operation.events?.contains(op.rawValue) ?? true }
}

import Contracts
import ParseWire
import Query

/// One connected LiveQuery client: what it sent with `connect` and its subscriptions by request id.
final class LiveClient {
    let connection: UInt64
    let clientId: String
    let hasMasterKey: Bool
    let sessionToken: String?
    let installationId: String?
    var subscriptions: [Double: LiveSubscription] = [:]

    init(connection: UInt64, clientId: String, hasMasterKey: Bool, sessionToken: String?, installationId: String?) {
        self.connection = connection
        self.clientId = clientId
        self.hasMasterKey = hasMasterKey
        self.sessionToken = sessionToken
        self.installationId = installationId
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
    /// What each of its event frames repeats (`LiveMessages.eventHead`), encoded once.
    private(set) lazy var eventHead = LiveMessages.eventHead(clientId: client.clientId, installationId: client.installationId,
                                                             requestId: requestId)

    init(client: LiveClient, requestId: JSONValue, className: String, matcher: WhereMatcher, keys: [String]?,
         watch: [String]? = nil, sessionToken: String?, operation: String) {
        self.client = client
        self.requestId = requestId
        self.className = className
        self.matcher = matcher
        self.keys = keys
        self.watch = watch
        self.sessionToken = sessionToken
        self.operation = operation
    }
}

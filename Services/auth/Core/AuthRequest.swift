import Contracts
import Messaging
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit

/// One REST call as the auth service handles it: the route split into segments, the body as a JSON object,
/// and who is calling.
struct AuthRequest: Sendable {
    let method: String
    let segments: [String]
    let query: [String: String]
    /// The body; a beforeSave trigger may have changed it.
    var bodyText: String?
    let identity: Identity
    let serverURL: String
    let requestId: String
    let logger: Logger
    /// Cloud Code's triggers (nil where none run) and what they are given about the request.
    var cloud: CloudTriggers?
    let triggerRequest: TriggerRequestInfo
    /// Where this caller's subqueries go, to the owner of each inner class; nil where no bus is at hand.
    var foreign: ForeignSubqueries?
    /// How deep this request is in another's subqueries (0 for a client's own).
    let subqueryDepth: Int
    /// `PARSE_SERVER_REQUEST_COMPLEXITY_*`.
    var limits = RequestComplexity.unlimited

    init(_ command: Command<RESTRequest>, logger: Logger = Logger(service: "auth"), cloud: CloudTriggers? = nil,
         calls: RPCClient? = nil, requestTimeout: Duration = .seconds(10)) {
        method = command.payload.method.uppercased()
        segments = command.payload.path.split(separator: "/").map(String.init)
        query = command.payload.query
        bodyText = command.payload.body
        identity = command.identity
        serverURL = command.payload.serverURL
        requestId = command.requestId
        self.logger = logger
        self.cloud = cloud
        triggerRequest = TriggerRequestInfo(command.payload)
        subqueryDepth = command.payload.subqueryDepth ?? 0
        foreign = calls.map {
            ForeignSubqueries(calls: $0, identity: command.identity, requestId: command.requestId,
                              depth: command.payload.subqueryDepth ?? 0, timeout: requestTimeout)
        }
    }

    /// The triggers registered for `className`; empty without Cloud Code, and a look-up in memory with it.
    func triggers(of className: String) async -> Set<TriggerName> {
        await cloud?.triggers(of: className) ?? []
    }

    var groups: AccessGroups { AccessGroups(identity) }
    var isMaster: Bool { identity.isMaster }

    /// The body's fields; an absent or empty body is an empty object.
    func body() throws -> [String: JSONValue] {
        guard let text = bodyText, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [:] }
        guard let value = JSONValue.parse(text) else { throw ParseError(.invalidJSON, "invalid JSON") }
        guard let object = value.objectValue else { throw ParseError(.invalidJSON, "invalid JSON") }
        return object
    }

    /// The `include` parameter, from the query string or, as the SDKs may send a GET, the body.
    var include: String? {
        let value = query["include"] ?? (try? body())?["include"]?.stringValue
        return value.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }

    /// Writes are refused to the read-only master key, as parse-server does.
    func requireWritable(_ operation: String) throws {
        if identity.isReadOnlyMaster && !identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the \(operation) operation.")
        }
    }
}

import Contracts
import ParseWire

/// What every trigger of one client request is given besides its object: the client's headers and address, and
/// the `context` shared by the request's before* and after* triggers.
public struct TriggerRequestInfo: Sendable, Equatable {
    public var headers: [String: String]
    public var ip: String
    public var context: JSONValue?

    public init(headers: [String: String] = [:], ip: String = "", context: JSONValue? = nil) {
        self.headers = headers
        self.ip = ip
        self.context = context
    }

    public init(_ request: RESTRequest) {
        self.init(headers: request.headers ?? [:], ip: request.ip ?? "", context: request.context)
    }

    /// A trigger of `className` with this request's details.
    public func trigger(_ name: TriggerName, _ className: String, object: JSONValue? = nil, original: JSONValue? = nil,
                        query: JSONValue? = nil, objects: [JSONValue]? = nil) -> RunTrigger {
        RunTrigger(key: TriggerKey(className: className, triggerName: name), object: object, original: original,
                   query: query, objects: objects, context: context ?? .object([:]), headers: headers, ip: ip)
    }
}

import HTTPServer
import ParseWire

/// What the services hand Cloud Code triggers about a request: its headers (lower-cased names, as parse-server's
/// `request.headers`, less the keys that would let a trigger's target act as the master), its address, and its
/// `context` (the `X-Parse-Cloud-Context` header or the JavaScript SDK's `_context` body field, a JSON object).
struct CloudRequestDetails {
    static let withheld: Set<String> = ["x-parse-master-key", "x-parse-maintenance-key"]
    static let contextHeader = "X-Parse-Cloud-Context"
    /// parse-server's answer to a context that is not a JSON object.
    static let malformedContext = ParseError(.invalidJSON, "Invalid object for context.")

    var headers: [String: String]
    var context: JSONValue?

    init(_ request: HTTPRequest, bodyContext: JSONValue?) throws(ParseError) {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            let name = name.lowercased()
            if !Self.withheld.contains(name) { headers[name] = value }
        }
        self.headers = headers
        if let text = request.headers[Self.contextHeader] {
            guard case .object? = JSONValue.parse(text) else { throw Self.malformedContext }
            context = JSONValue.parse(text)
        }
        switch bodyContext {
        case nil: break
        case .object?: context = bodyContext
        case .string(let text)?:
            guard case .object? = JSONValue.parse(text) else { throw Self.malformedContext }
            context = JSONValue.parse(text)
        default: throw Self.malformedContext
        }
    }
}

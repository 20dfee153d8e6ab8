import ParseWire
import Runtime

/// What a function handler receives: parse-server's function request, and clients back into the API.
public struct FunctionRequest: Sendable {
    public var functionName: String
    public var params: JSONValue
    /// The caller's user as the server resolved it (with its `sessionToken`), nil for none.
    public var user: JSONValue?
    public var master: Bool
    public var installationId: String?
    public var headers: [String: String]
    public var ip: String
    public var context: JSONValue
    /// The REST API with the master key.
    public var api: ParseAPIClient
    /// The REST API as the caller: the caller's session, or no session at all.
    public var asCaller: ParseAPIClient
    /// The request exactly as it arrived.
    public var raw: JSONValue
    /// Cloud Code's `console.log`: lines written here go to standard error and to `/scriptlog`, with the
    /// request's id and trace.
    public var log: Logger
}

/// What a job handler receives.
public struct JobRequest: Sendable {
    public var jobName: String
    public var jobId: String
    public var params: JSONValue
    public var headers: [String: String]
    public var ip: String
    public var api: ParseAPIClient
    public var raw: JSONValue
    public var log: Logger
}

/// What a trigger handler receives: parse-server's trigger request.
public struct TriggerRequest: Sendable {
    public var triggerName: String
    public var className: String
    /// The object being saved or deleted (for file triggers, the file).
    public var object: JSONValue?
    /// The stored object before an update.
    public var original: JSONValue?
    /// beforeFind, afterFind: the query.
    public var query: JSONValue?
    /// afterFind: the objects found.
    public var objects: [JSONValue]?
    public var user: JSONValue?
    public var master: Bool
    public var context: JSONValue
    public var headers: [String: String]
    public var ip: String
    public var api: ParseAPIClient
    public var asCaller: ParseAPIClient
    public var raw: JSONValue
    public var log: Logger
}

/// A function's answer with the HTTP status and headers it chose (parse-server 9's `res.status(201)` and
/// `res.header("X-Name", "value")`); the client still gets `{"result": ...}`.
public struct FunctionResponse: Sendable, Equatable {
    public var result: JSONValue
    public var status: Int?
    public var headers: [String: String]

    public init(_ result: JSONValue, status: Int? = nil, headers: [String: String] = [:]) {
        self.result = result
        self.status = status
        self.headers = headers
    }

    /// The webhook answer that carries it.
    var answer: JSONValue {
        var fields: [String: JSONValue] = ["success": result]
        if let status { fields["status"] = .number(Double(status)) }
        if !headers.isEmpty { fields["headers"] = .object(headers.mapValues(JSONValue.string)) }
        return .object(fields)
    }
}

import Contracts
import HTTPServer
import Messaging
import ParseWire
import Runtime

/// `POST /functions/<name>` and `POST /jobs[/<name>]`, sent to `cloud` with what parse-server hands Cloud Code
/// beside the parameters: the client's headers and address. Every other cloud route travels as `rest.v1`.
struct CloudForwarder: Sendable {
    enum Call: Equatable {
        case function(String)
        /// A job by its path segment, or (nil) by the body's `jobName`, as `POST /jobs` takes it.
        case job(String?)
    }

    let client: RPCClient
    let timeout: Duration
    let logger: Logger

    static func call(method: String, path: String) -> Call? {
        guard method == "POST" else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("functions", 2) where !parts[1].isEmpty: return .function(parts[1])
        case ("jobs", 2) where !parts[1].isEmpty: return .job(parts[1])
        case ("jobs", 1): return .job(nil)
        default: return nil
        }
    }

    /// The headers a target sees, by lower-cased name, as Express gives them; the master key stays here.
    static func headers(_ request: HTTPRequest) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if lower == "x-parse-master-key" { continue }
            headers[lower] = headers[lower].map { "\($0), \(value)" } ?? value
        }
        return headers
    }

    /// The body merged with the query string, as parse-server merges them.
    static func params(_ request: HTTPRequest, body: String?) -> JSONValue {
        params(request, fields: body.flatMap { JSONValue.parse($0) }?.objectValue)
    }

    /// `fields`: the body already parsed (nil when it is empty).
    static func params(_ request: HTTPRequest, fields body: [String: JSONValue]?) -> JSONValue {
        var fields = body ?? [:]
        for item in request.query { fields[item.name] = .string(item.value) }
        return .object(fields)
    }

    func send(_ call: Call, request: HTTPRequest, body: [String: JSONValue]?, requestId: String, identity: Identity)
        async -> HTTPResponse {
        let params = Self.params(request, fields: body)
        do {
            switch call {
            case .function(let name):
                let run = RunCloudFunction(name: name, params: params, headers: Self.headers(request), ip: request.remoteAddress)
                let answer: CloudFunctionResult = try await client.send(RunCloudFunction.type, run, to: .cloud,
                                                                        requestId: requestId, identity: identity,
                                                                        timeout: timeout, safeToRunTwice: false)
                var response = ParseResponses.json(answer.status ?? 200, JSONValue.object(["result": answer.result]).compactText)
                // The function's headers replace the server's of the same name, as Express's `res.set` does.
                for (name, value) in (answer.headers ?? [:]).sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
                return response
            case .job(let name):
                guard identity.isMaster || identity.isReadOnlyMaster else { return FileResponses.masterKeyRequired }
                guard let name = name ?? params["jobName"]?.stringValue else {
                    return ParseResponses.error(ParseError(.scriptFailed, "Invalid job."))
                }
                let job = StartCloudJob(name: name, params: params, headers: Self.headers(request), ip: request.remoteAddress)
                let started: CloudJobStarted = try await client.send(StartCloudJob.type, job, to: .cloud, requestId: requestId,
                                                                     identity: identity, timeout: timeout,
                                                                     safeToRunTwice: false)
                return ParseResponses.json(200, "{}", extra: [("X-Parse-Job-Status-Id", started.jobStatusId)])
            }
        } catch {
            return ParseResponses.error(CallFailure.parseError(error, write: true, call: "cloud call", logger: logger))
        }
    }
}

import Contracts
import ParseWire
import Runtime

/// `POST /functions/<name>`: finds the function's target, sends it parse-server's function request and answers
/// `{"result": ...}`. Each run is logged as parse-server logs it (`Ran cloud function ...` at info, `Failed
/// running cloud function ...` at error), so it shows in `/scriptlog`.
struct FunctionRunner: Sendable {
    /// parse-server cuts a logged input or result to this many characters.
    static let loggedLength = 1_000

    let directory: TargetDirectory
    let caller: TargetCaller
    let users: CallerUsers
    let timeout: Duration
    let logger: Logger

    func run(_ function: RunCloudFunction, cloudContext: JSONValue?, requestId: String,
             identity: Identity) async throws -> CloudFunctionResult {
        guard let target = try await directory.snapshot().functions[function.name] else {
            throw ParseError(.scriptFailed, "Invalid function: \"\(function.name)\"")
        }
        let context = CallContext(identity: identity, user: try await users.user(for: identity, requestId: requestId),
                                  headers: function.headers, ip: function.ip)
        let body = WebhookRequest.function(function.name, params: function.params, context: context, cloudContext: cloudContext)
        let user = identity.userId ?? "undefined"
        let log = logger.with("request.id", requestId)
        let fields = ["functionName": function.name, "user": user]
        let input = Self.cut(JSONText.encode(function.params))
        do {
            let answer = try await caller.call(target, CloudWorkerCall(kind: .function, name: function.name, request: body),
                                               label: "function \"\(function.name)\"", timeout: timeout,
                                               requestId: requestId, identity: identity)
            let result = answer.value ?? .null
            log.info("Ran cloud function \(function.name) for user \(user) with:\n  Input: \(input)\n  Result: "
                     + Self.cut(JSONText.encode(result)), fields)
            return CloudFunctionResult(result: result, status: answer.status, headers: answer.headers)
        } catch {
            let failure = (error as? ParseError).map {
                JSONText.encode(.object(["code": .number(Double($0.code.rawValue)), "message": .string($0.message)]))
            } ?? "\(error)"
            log.error("Failed running cloud function \(function.name) for user \(user) with:\n  Input: \(input)\n  Error: "
                      + Self.cut(failure), fields)
            throw error
        }
    }

    private static func cut(_ text: String) -> String {
        text.count > loggedLength ? text.prefix(loggedLength) + "... (truncated)" : text
    }
}

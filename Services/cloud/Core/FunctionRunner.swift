import Contracts
import ParseWire

/// `POST /functions/<name>`: finds the function's target, sends it parse-server's function request and answers
/// `{"result": ...}`.
struct FunctionRunner: Sendable {
    let directory: TargetDirectory
    let caller: TargetCaller
    let users: CallerUsers
    let timeout: Duration

    func run(_ function: RunCloudFunction, cloudContext: JSONValue?, requestId: String,
             identity: Identity) async throws -> CloudFunctionResult {
        guard let target = try await directory.snapshot().functions[function.name] else {
            throw ParseError(.scriptFailed, "Invalid function: \"\(function.name)\"")
        }
        let context = CallContext(identity: identity, user: try await users.user(for: identity, requestId: requestId),
                                  headers: function.headers, ip: function.ip)
        let body = WebhookRequest.function(function.name, params: function.params, context: context, cloudContext: cloudContext)
        let result = try await caller.call(target, CloudWorkerCall(kind: .function, name: function.name, request: body),
                                           label: "function \"\(function.name)\"", timeout: timeout,
                                           requestId: requestId, identity: identity)
        return CloudFunctionResult(result: result ?? .null)
    }
}

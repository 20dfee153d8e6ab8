import Contracts
import ParseWire
import Runtime

/// The handlers a worker defined, and how one call becomes one answer: a `cloud.worker.call.v1` in, the webhook
/// answer out (`{"success": ...}` or `{"error": ...}`). Every error a handler throws becomes an answer, so a call
/// is never retried because its handler failed.
struct CloudHandlers: Sendable {
    typealias Function = @Sendable (FunctionRequest) async throws -> FunctionResponse
    typealias Job = @Sendable (JobRequest) async throws -> JSONValue?
    typealias Trigger = @Sendable (TriggerRequest) async throws -> JSONValue?

    var functions: [String: Function] = [:]
    var jobs: [String: Job] = [:]
    var triggers: [TriggerKey: Trigger] = [:]

    func registration(queue: String) -> RegisterCloudWorker {
        RegisterCloudWorker(queue: queue, functions: functions.keys.sorted(), jobs: jobs.keys.sorted(),
                            triggers: triggers.keys.sorted { ($0.className, $0.triggerName.rawValue) < ($1.className, $1.triggerName.rawValue) })
    }

    func answer(_ call: CloudWorkerCall, clients: ClientFactory, log: Logger) async -> JSONValue {
        do {
            if call.kind == .function {
                return try await function(call, clients: clients, log: log).answer
            }
            return .object(["success": try await result(call, clients: clients, log: log) ?? .bool(true)])
        } catch let error as CloudError {
            return .object(["error": .object(["code": .number(Double(error.code)), "message": .string(error.message)])])
        } catch {
            return .object(["error": .string("\(error)")])
        }
    }

    private func function(_ call: CloudWorkerCall, clients: ClientFactory, log: Logger) async throws -> FunctionResponse {
        let raw = call.request
        guard let handler = functions[call.name] else { throw CloudError("Invalid function: \"\(call.name)\"") }
        return try await handler(FunctionRequest(
            functionName: call.name, params: raw["params"] ?? .object([:]), user: raw["user"],
            master: raw["master"]?.boolValue ?? false, installationId: raw["installationId"]?.stringValue,
            headers: (raw["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue), ip: raw["ip"]?.stringValue ?? "",
            context: raw["context"] ?? .object([:]), api: clients.master,
            asCaller: clients.asCaller(raw["user"]?["sessionToken"]?.stringValue), raw: raw,
            log: log.with("functionName", call.name)))
    }

    private func result(_ call: CloudWorkerCall, clients: ClientFactory, log: Logger) async throws -> JSONValue? {
        let raw = call.request
        let headers = (raw["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        let user = raw["user"]
        let caller = clients.asCaller(user?["sessionToken"]?.stringValue)
        switch call.kind {
        case .function:
            return try await function(call, clients: clients, log: log).result
        case .job:
            guard let handler = jobs[call.name] else { throw CloudError("Invalid job.") }
            return try await handler(JobRequest(jobName: call.name, jobId: raw["jobId"]?.stringValue ?? "",
                                                params: raw["params"] ?? .object([:]), headers: headers,
                                                ip: raw["ip"]?.stringValue ?? "", api: clients.master, raw: raw,
                                                log: log.with("jobName", call.name)))
        case .trigger:
            guard let name = TriggerName(rawValue: call.name), let className = call.className,
                  let handler = triggers[TriggerKey(className: className, triggerName: name)] else {
                return nil
            }
            return try await handler(TriggerRequest(
                triggerName: call.name, className: className, object: raw["object"] ?? raw["file"],
                original: raw["original"], query: raw["query"], objects: raw["objects"]?.arrayValue, user: user,
                master: raw["master"]?.boolValue ?? false, context: raw["context"] ?? .object([:]), headers: headers,
                ip: raw["ip"]?.stringValue ?? "", api: clients.master, asCaller: caller, raw: raw,
                log: log.with("triggerName", call.name).with("className", className)))
        }
    }
}

/// Makes the API clients handed to handlers.
struct ClientFactory: Sendable {
    let configuration: CloudWorkerConfiguration

    var master: ParseAPIClient {
        ParseAPIClient(serverURL: configuration.serverURL, applicationId: configuration.applicationId,
                       masterKey: configuration.masterKey, restAPIKey: configuration.restAPIKey)
    }

    func asCaller(_ sessionToken: String?) -> ParseAPIClient {
        ParseAPIClient(serverURL: configuration.serverURL, applicationId: configuration.applicationId,
                       sessionToken: sessionToken, restAPIKey: configuration.restAPIKey)
    }
}

import Contracts
import ParseWire

/// The cloud service's REST routes (`rest.v1`): the Hooks API, `/functions` and `/jobs` when they come inside a
/// batch (the gateway sends single calls as `cloud.function.run.v1` and `cloud.job.start.v1`, with the client's
/// headers), `/cloud_code/jobs` (`JobScheduleRoutes`), `/cloud_code/workers`, `/cloud_code/functions` and `_JobStatus`.
struct CloudRESTHandler: Sendable {
    let hooks: HooksRoutes
    let functions: FunctionRunner
    let jobs: JobRunner
    let statuses: JobStatusStore
    let scriptLogs: ScriptLogStore
    let schedules: JobScheduleRoutes
    let workers: WorkerDirectory

    func handle(_ command: Command<RESTRequest>) async throws -> RESTResponse {
        let request = command.payload
        let parts = request.path.split(separator: "/").map(String.init)
        let identity = command.identity
        switch parts.first {
        case "hooks":
            return try await hooks.handle(request, parts: parts, identity: identity, requestId: command.requestId)
        case "functions" where parts.count == 2 && request.method == "POST":
            let function = RunCloudFunction(name: parts[1], params: Self.params(request), headers: [:], ip: "")
            let result = try await functions.run(function, cloudContext: nil, requestId: command.requestId, identity: identity)
            return HooksRoutes.json(.object(["result": result.result]))
        case "jobs" where parts.count <= 2 && request.method == "POST":
            guard identity.isMaster || identity.isReadOnlyMaster else { return HooksRoutes.masterKeyRequired }
            let params = Self.params(request)
            guard let name = parts.count == 2 ? parts[1] : params["jobName"]?.stringValue else {
                throw ParseError(.scriptFailed, "Invalid job.")
            }
            let started = try await jobs.start(StartCloudJob(name: name, params: params, headers: [:], ip: ""),
                                               requestId: command.requestId, identity: identity)
            return HooksRoutes.json(.object([:]), headers: ["X-Parse-Job-Status-Id": started.jobStatusId])
        case "cloud_code" where parts == ["cloud_code", "workers"] && request.method == "GET":
            guard identity.isMaster || identity.isReadOnlyMaster else { return HooksRoutes.masterKeyRequired }
            return HooksRoutes.json(try await workers.list())
        case "cloud_code" where parts == ["cloud_code", "functions"] && request.method == "GET":
            // The names the GraphQL API offers as `callCloudCode`'s `CloudCodeFunction`: webhooks' and workers'.
            guard identity.isMaster || identity.isReadOnlyMaster else { return HooksRoutes.masterKeyRequired }
            let names = try await hooks.directory.snapshot().functions.keys.sorted()
            return HooksRoutes.json(.object(["results": .array(names.map(JSONValue.string))]))
        case "cloud_code" where parts.count >= 2 && parts.count <= 3 && parts[1] == "jobs":
            return try await schedules.handle(request, parts: parts, identity: identity)
        case "scriptlog" where parts.count == 1 && request.method == "GET":
            guard identity.isMaster || identity.isReadOnlyMaster else { return HooksRoutes.masterKeyRequired }
            return HooksRoutes.json(try await scriptLogs.find(ScriptLogQuery(query: request.query, now: ScriptLogStore.now())))
        case "classes" where parts.count >= 2 && parts[1] == "_JobStatus":
            return try await jobStatus(request, parts: parts, identity: identity)
        default:
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
    }

    /// parse-server merges the query string into a function's or job's body.
    static func params(_ request: RESTRequest) -> JSONValue {
        var fields = request.body.flatMap { JSONValue.parse($0) }?.objectValue ?? [:]
        for (name, value) in request.query { fields[name] = .string(value) }
        return .object(fields)
    }

    private func jobStatus(_ request: RESTRequest, parts: [String], identity: Identity) async throws -> RESTResponse {
        let operation = request.method == "GET" ? (parts.count == 3 ? "get" : "find")
            : request.method == "POST" ? "create" : request.method == "PUT" ? "update" : "delete"
        guard request.method == "GET", parts.count <= 3, identity.isMaster || identity.isReadOnlyMaster else {
            throw ParseError(.operationForbidden,
                             "Clients aren't allowed to perform the \(operation) operation on the _JobStatus collection.")
        }
        if parts.count == 3 {
            guard let row = try await statuses.list(objectIds: [parts[2]], ascending: true, limit: 1, skip: 0).first else {
                throw ParseError(.objectNotFound, "Object not found.")
            }
            return HooksRoutes.json(row)
        }
        let query = try JobStatusQuery(query: request.query)
        var rows = try await statuses.list(objectIds: query.objectIds, ascending: query.ascending, limit: 10_000, skip: 0)
            .filter(query.matches)
        let total = rows.count
        rows = Array(rows.dropFirst(query.skip).prefix(query.limit))
        var answer: [String: JSONValue] = ["results": .array(rows)]
        if query.count { answer["count"] = .number(Double(total)) }
        return HooksRoutes.json(.object(answer))
    }
}

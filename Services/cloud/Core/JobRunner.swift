import Contracts
import ParseWire
import Runtime

/// `POST /jobs/<name>`: records a `_JobStatus` row, starts the job in the background and answers at once with the
/// row's id, as parse-server does (`X-Parse-Job-Status-Id`); the client follows the job in `_JobStatus`.
struct JobRunner: Sendable {
    let directory: TargetDirectory
    let caller: TargetCaller
    let statuses: JobStatusStore
    let configuration: CloudConfiguration
    let logger: Logger
    /// The jobs running; the service stops them with its other background work.
    let running: OwnedTasks

    /// `source`: `_JobStatus.source`, `api` for a client's call, `schedule` for a run a schedule started.
    func start(_ job: StartCloudJob, requestId: String, identity: Identity, source: String = "api") async throws -> CloudJobStarted {
        guard identity.isMaster else {
            throw ParseError(.operationForbidden, identity.isReadOnlyMaster
                ? "read-only masterKey isn't allowed to start a job." : "unauthorized: master key is required")
        }
        guard let target = try await directory.snapshot().jobs[job.name] else {
            throw ParseError(.scriptFailed, "Invalid job.")
        }
        let params = job.params.objectValue == nil ? JSONValue.object([:]) : job.params
        let objectId = try await statuses.create(jobName: job.name, params: params, source: source)
        let body = WebhookRequest.job(job.name, jobId: objectId, params: params, headers: job.headers, ip: job.ip)
        let call = CloudWorkerCall(kind: .job, name: job.name, request: body)
        let timeout = configuration.jobTimeout
        let (caller, statuses, logger) = (caller, statuses, logger)
        // Detached: the job outlives this command and must not inherit its deadline.
        let started = running.spawnDetached {
            await Self.run(call, on: target, objectId: objectId, caller: caller, statuses: statuses, timeout: timeout,
                           requestId: requestId, logger: logger)
        }
        if !started {
            try? await statuses.finish(objectId, status: "failed", message: "The cloud service stopped before the job started.")
        }
        return CloudJobStarted(jobStatusId: objectId)
    }

    private static func run(_ call: CloudWorkerCall, on target: CloudTarget, objectId: String, caller: TargetCaller,
                            statuses: JobStatusStore, timeout: Duration, requestId: String, logger: Logger) async {
        let outcome: (status: String, message: String?)
        do {
            let result = try await caller.call(target, call, label: "job \"\(call.name)\"", timeout: timeout,
                                               requestId: requestId + ".job", identity: .master).value
            outcome = ("succeeded", result?.stringValue)
        } catch let error as ParseError {
            outcome = ("failed", error.message)
        } catch {
            outcome = ("failed", "\(error)")
        }
        do {
            try await statuses.finish(objectId, status: outcome.status, message: outcome.message)
        } catch {
            logger.error("job status not recorded", ["job": call.name, "jobStatusId": objectId, "error": "\(error)"])
        }
    }
}

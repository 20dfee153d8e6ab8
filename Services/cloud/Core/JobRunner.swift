import Contracts
import ParseWire
import Runtime

/// `POST /jobs/<name>`: records a `_JobStatus` row, runs the job in the background and answers with the row's id.
/// The answer waits at most `answerWait` for the job to finish, so a short job is already `succeeded` or `failed`
/// when the client reads its status, as with parse-server, which runs the job in its own process.
struct JobRunner: Sendable {
    let directory: TargetDirectory
    let caller: TargetCaller
    let statuses: JobStatusStore
    let configuration: CloudConfiguration
    let logger: Logger

    func start(_ job: StartCloudJob, requestId: String, identity: Identity) async throws -> CloudJobStarted {
        guard identity.isMaster else {
            throw ParseError(.operationForbidden, identity.isReadOnlyMaster
                ? "read-only masterKey isn't allowed to start a job." : "unauthorized: master key is required")
        }
        guard let target = try await directory.snapshot().jobs[job.name] else {
            throw ParseError(.scriptFailed, "Invalid job.")
        }
        let params = job.params.objectValue == nil ? JSONValue.object([:]) : job.params
        let objectId = try await statuses.create(jobName: job.name, params: params)
        let body = WebhookRequest.job(job.name, jobId: objectId, params: params, headers: job.headers, ip: job.ip)
        let call = CloudWorkerCall(kind: .job, name: job.name, request: body)
        let timeout = configuration.jobTimeout
        let (caller, statuses, logger) = (caller, statuses, logger)
        // Ends when the job finishes or the wait is over, whichever comes first (awaiting the job's task itself
        // could not be cut short).
        let (settled, signal) = AsyncStream.makeStream(of: Void.self)
        // Detached: the job outlives this command and must not inherit its deadline.
        Task.detached {
            await Self.run(call, on: target, objectId: objectId, caller: caller, statuses: statuses, timeout: timeout,
                           requestId: requestId, logger: logger)
            signal.finish()
        }
        let wait = Deadline.current.map { min(configuration.jobAnswerWait, $0.remaining / 2) } ?? configuration.jobAnswerWait
        if wait > .zero {
            let timer = Task {
                try? await Task.sleep(for: wait)
                signal.finish()
            }
            for await _ in settled {}
            timer.cancel()
        }
        return CloudJobStarted(jobStatusId: objectId)
    }

    private static func run(_ call: CloudWorkerCall, on target: CloudTarget, objectId: String, caller: TargetCaller,
                            statuses: JobStatusStore, timeout: Duration, requestId: String, logger: Logger) async {
        let outcome: (status: String, message: String?)
        do {
            let result = try await caller.call(target, call, label: "job \"\(call.name)\"", timeout: timeout,
                                               requestId: requestId + ".job", identity: .master)
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

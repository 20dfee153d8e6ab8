import Contracts
import Foundation
import ParseWire
import Runtime

/// Starts the jobs of due `_JobSchedule`s, as the master key would (`_JobStatus.source` `schedule`). Every replica
/// looks once a second; the claim in `JobScheduleStore` lets one of them start each due time. A schedule whose
/// job is no longer registered is passed over for that time, with a warning.
struct JobScheduler: Sendable {
    let store: JobScheduleStore
    let jobs: JobRunner
    let logger: Logger
    var pause: Duration = .seconds(1)

    func run() async {
        while !Task.isCancelled {
            do {
                try await startDue(now: Date())
            } catch {
                logger.warning("job schedules not read", ["error": "\(error)"])
            }
            try? await Task.sleep(for: pause)
        }
    }

    func startDue(now: Date) async throws {
        for schedule in try await store.claimDue(now: now) {
            let params = schedule.params.flatMap { JSONValue.parse($0) } ?? .object([:])
            let requestId = "schedule-\(schedule.objectId)-\(Int(schedule.lastRun ?? 0))"
            do {
                let started = try await jobs.start(StartCloudJob(name: schedule.jobName, params: params, headers: [:], ip: ""),
                                                   requestId: requestId, identity: .master, source: "schedule")
                logger.info("scheduled job started", ["job": schedule.jobName, "schedule": schedule.objectId,
                                                      "jobStatusId": started.jobStatusId])
            } catch {
                logger.warning("scheduled job not started", ["job": schedule.jobName, "schedule": schedule.objectId,
                                                             "error": "\(error)"])
            }
        }
    }
}

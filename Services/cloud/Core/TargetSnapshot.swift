import Contracts

/// Every registration at one moment: webhooks first, so a webhook registered for a name a worker also serves
/// wins, as a parse-server hook replaces the Cloud Code function of the same name.
struct TargetSnapshot: Sendable {
    var functions: [String: CloudTarget] = [:]
    var jobs: [String: CloudTarget] = [:]
    var triggers: [TriggerKey: CloudTarget] = [:]
    /// The registrations' generation (`cache_generations`) these are at or after.
    var generation: Int64 = 0

    init(hooks: [Hook], workers: [WorkerTarget], generation: Int64 = 0) {
        self.generation = generation
        for worker in workers {
            switch worker.kind {
            case .function: functions[worker.name] = .worker(queue: worker.queue)
            case .job: jobs[worker.name] = .worker(queue: worker.queue)
            case .trigger:
                if let name = TriggerName(rawValue: worker.name) {
                    triggers[TriggerKey(className: worker.className, triggerName: name)] = .worker(queue: worker.queue)
                }
            }
        }
        for hook in hooks {
            if let function = hook.functionName {
                functions[function] = .webhook(url: hook.url)
            } else if let className = hook.className, let trigger = hook.triggerName.flatMap(TriggerName.init(rawValue:)) {
                triggers[TriggerKey(className: className, triggerName: trigger)] = .webhook(url: hook.url)
            }
        }
    }

    var triggerKeys: [TriggerKey] {
        triggers.keys.sorted { ($0.className, $0.triggerName.rawValue) < ($1.className, $1.triggerName.rawValue) }
    }
}

/// A function, job or trigger served by a worker queue (`cloud.worker.register.v1`).
struct WorkerTarget: Sendable, Equatable {
    var kind: CloudWorkerCall.Kind
    var name: String
    /// The trigger's class; empty for functions and jobs.
    var className: String
    var queue: String
}

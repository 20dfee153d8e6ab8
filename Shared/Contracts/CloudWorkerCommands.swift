import ParseWire

/// `cloud.worker.register.v1` (a Cloud Code worker to cloud): the functions, jobs and triggers the worker's queue
/// serves. Workers that share a queue are competing consumers and send the same set; a registration replaces
/// whatever that queue served before, so a function a new version dropped stops being routed to it.
public struct RegisterCloudWorker: Codable, Sendable, Equatable {
    public static let type = "cloud.worker.register.v1"

    /// The durable queue the worker consumes `cloud.worker.call.v1` commands from.
    public var queue: String
    public var functions: [String]
    public var jobs: [String]
    public var triggers: [TriggerKey]

    public init(queue: String, functions: [String] = [], jobs: [String] = [], triggers: [TriggerKey] = []) {
        self.queue = queue
        self.functions = functions
        self.jobs = jobs
        self.triggers = triggers
    }
}

/// `cloud.worker.call.v1` (cloud to a worker's queue): one function, job or trigger run. `request` is exactly the
/// JSON body a webhook receives for the same call (parse-server's webhook request); the reply's payload is exactly
/// what a webhook answers, `{"success": ...}` or `{"error": ...}`, so one handler serves both transports.
public struct CloudWorkerCall: Codable, Sendable, Equatable {
    public static let type = "cloud.worker.call.v1"

    public enum Kind: String, Codable, Sendable {
        case function, job, trigger
    }

    public var kind: Kind
    /// The function's or job's name; for a trigger, its `TriggerName`.
    public var name: String
    /// The trigger's class (`@File` for file triggers); nil for functions and jobs.
    public var className: String?
    public var request: JSONValue

    public init(kind: Kind, name: String, className: String? = nil, request: JSONValue) {
        self.kind = kind
        self.name = name
        self.className = className
        self.request = request
    }
}

/// What `cloud.job.start.v1` answers: the `_JobStatus` object id, sent to the client as `X-Parse-Job-Status-Id`.
public struct CloudJobStarted: Codable, Sendable, Equatable {
    public var jobStatusId: String

    public init(jobStatusId: String) { self.jobStatusId = jobStatusId }
}

/// The data of a `hooks.changed.v1` event: which registration changed (nil members: several at once, such as a
/// worker's registration). Receivers drop their whole trigger cache whatever it says.
public struct HooksChanged: Codable, Sendable, Equatable {
    public var functionName: String?
    public var className: String?
    public var triggerName: String?

    public init(functionName: String? = nil, className: String? = nil, triggerName: String? = nil) {
        self.functionName = functionName
        self.className = className
        self.triggerName = triggerName
    }
}

import ParseWire

/// The Cloud Code contract between the services that run user code and `cloud`, which owns hook registrations
/// and job runs and dispatches each call to its target (a webhook URL or a worker's queue). A worker or webhook
/// error comes back as the reply's `ParseError` (141 unless the worker gave its own code); a target that does not
/// answer within the command's deadline is a 141 too, never a hang.

/// `cloud.function.run.v1` (gateway to cloud): `POST /functions/<name>`. The caller is the command's identity, as
/// the gateway resolved it; `cloud` resolves the `user` object the target sees from it, so a target's answer can
/// never make the caller someone else.
public struct RunCloudFunction: Codable, Sendable, Equatable {
    public static let type = "cloud.function.run.v1"

    public var name: String
    /// The request body: a JSON object of the function's parameters.
    public var params: JSONValue
    /// The client's request headers (lower-cased names), as parse-server hands them to Cloud Code.
    public var headers: [String: String]
    public var ip: String

    public init(name: String, params: JSONValue, headers: [String: String], ip: String) {
        self.name = name
        self.params = params
        self.headers = headers
        self.ip = ip
    }
}

/// `cloud.job.start.v1` (gateway to cloud): `POST /jobs/<name>`, master key only. `cloud` records a `_JobStatus`
/// row, answers with its id at once (parse-server's `X-Parse-Job-Status-Id`) and runs the job in the background.
public struct StartCloudJob: Codable, Sendable, Equatable {
    public static let type = "cloud.job.start.v1"

    public var name: String
    public var params: JSONValue
    public var headers: [String: String]
    public var ip: String

    public init(name: String, params: JSONValue, headers: [String: String], ip: String) {
        self.name = name
        self.params = params
        self.headers = headers
        self.ip = ip
    }
}

/// What a function answered: the client gets `{"result": result}`.
public struct CloudFunctionResult: Codable, Sendable, Equatable {
    public var result: JSONValue
    /// The HTTP status and headers the function chose for its answer (parse-server 9's `res.status()`,
    /// `res.header()`); nil: 200, no headers of its own.
    public var status: Int?
    public var headers: [String: String]?

    public init(result: JSONValue, status: Int? = nil, headers: [String: String]? = nil) {
        self.result = result
        self.status = status
        self.headers = headers
    }
}

/// The triggers parse-server knows, by its names. File triggers use the class name `@File`, as parse-server does.
public enum TriggerName: String, Codable, Sendable, CaseIterable {
    case beforeSave, afterSave, beforeDelete, afterDelete, beforeFind, afterFind
    case beforeLogin, afterLogin, afterLogout, beforePasswordResetRequest
    case beforeSaveFile, afterSaveFile, beforeDeleteFile, afterDeleteFile
    /// LiveQuery's, run by live: `beforeConnect` on the class `@Connect`, `beforeSubscribe` and `afterEvent` on the
    /// subscribed class.
    case beforeConnect, beforeSubscribe, afterEvent

    public static let fileClassName = "@File"
    public static let connectClassName = "@Connect"
    /// Parse Config's beforeSave and afterSave (parse-server 8).
    public static let configClassName = "@Config"
}

/// A class and one of its triggers: the key of a registration.
public struct TriggerKey: Codable, Sendable, Hashable {
    public var className: String
    public var triggerName: TriggerName

    public init(className: String, triggerName: TriggerName) {
        self.className = className
        self.triggerName = triggerName
    }
}

/// `cloud.trigger.run.v1` (posts, auth or files to cloud): run the trigger registered for `key`. Sent only when
/// the sender's cached registrations (`ListTriggers`) say one exists, so a class without triggers pays nothing.
/// `before*` triggers are asked before the write commits, within the request's remaining time; `after*` triggers
/// are sent by the service's outbox relay after commit, so they run at least once and never fail the request.
public struct RunTrigger: Codable, Sendable, Equatable {
    public static let type = "cloud.trigger.run.v1"

    public var key: TriggerKey
    /// The object as it will be (beforeSave: the stored object with the change applied) or as it was
    /// (beforeDelete, afterDelete), in Parse's JSON encoding with `className`; for file triggers, the file.
    public var object: JSONValue?
    /// The stored object before an update (beforeSave, afterSave); nil on a create.
    public var original: JSONValue?
    /// beforeFind: the query as `{"where":…,"limit":…,"skip":…,"order":…,"keys":…,"include":…,"count":…}`.
    public var query: JSONValue?
    /// afterFind: the objects found, in Parse's JSON encoding.
    public var objects: [JSONValue]?
    /// The `context` the client passed (`X-Parse-Cloud-Context` or the body's `context`), shared by a write's
    /// before and after triggers.
    public var context: JSONValue?
    public var headers: [String: String]
    public var ip: String
    /// after* triggers: the id of the outbox row that carries the call, the same on every delivery of it, so a target
    /// that must act once can drop a repeat (delivery is at least once). nil for before* triggers.
    public var eventId: String?
    /// Members of the request only some triggers have, added to it as they are: LiveQuery's `installationId`,
    /// `useMasterKey`, `clients`, `subscriptions`, `requestId` and `sessionToken`.
    public var details: [String: JSONValue]?

    public init(key: TriggerKey, object: JSONValue? = nil, original: JSONValue? = nil, query: JSONValue? = nil,
                objects: [JSONValue]? = nil, context: JSONValue? = nil, headers: [String: String] = [:], ip: String = "",
                eventId: String? = nil, details: [String: JSONValue]? = nil) {
        self.details = details
        self.key = key
        self.object = object
        self.original = original
        self.query = query
        self.objects = objects
        self.context = context
        self.headers = headers
        self.ip = ip
        self.eventId = eventId
    }
}

/// What a trigger answered; nil members mean "unchanged". A refusal is the reply's `ParseError` instead.
public struct TriggerResult: Codable, Sendable, Equatable {
    /// beforeSave: the object to store (the fields it changed are what is written).
    public var object: JSONValue?
    /// beforeFind: the query to run instead.
    public var query: JSONValue?
    /// afterFind: the results to answer instead.
    public var objects: [JSONValue]?

    public init(object: JSONValue? = nil, query: JSONValue? = nil, objects: [JSONValue]? = nil) {
        self.object = object
        self.query = query
        self.objects = objects
    }
}

/// `cloud.triggers.list.v1` (any service to cloud): every registered trigger, with the registrations' generation, for
/// the sender's cache. The cache is refreshed when the generation stored in the sender's database passes the one it
/// holds (`AdvanceCacheGeneration`), and early when a `hooks.changed.v1` event arrives (routing key
/// `hooks.changed`), published by `cloud` after every change of a function or trigger registration.
public struct ListTriggers: Codable, Sendable, Equatable {
    public static let type = "cloud.triggers.list.v1"
    public static let changedEventType = "hooks.changed.v1"
    public static let changedRoutingKey = "hooks.changed"

    public init() {}
}

public struct TriggerRegistrations: Codable, Sendable, Equatable {
    public var triggers: [TriggerKey]
    /// The registrations' generation (`AdvanceCacheGeneration.hooks`) these are at or after.
    public var generation: Int64

    public init(triggers: [TriggerKey], generation: Int64 = 0) {
        self.triggers = triggers
        self.generation = generation
    }
}

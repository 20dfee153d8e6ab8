import Contracts
import ParseWire

/// The JSON body of a call, exactly as parse-server's webhooks send it (`HooksController.wrapToHTTPRequest` over
/// the request objects of `FunctionsRouter` and `triggers.js`): the same body goes to a webhook and, inside a
/// `cloud.worker.call.v1`, to a worker.
enum WebhookRequest {
    static func function(_ name: String, params: JSONValue, context: CallContext, cloudContext: JSONValue?) -> JSONValue {
        var fields = context.commonFields
        fields["functionName"] = .string(name)
        fields["params"] = params.objectValue == nil ? .object([:]) : params
        fields["context"] = cloudContext ?? .object([:])
        return .object(fields)
    }

    /// A job's request carries no user and no `master` flag in parse-server: jobs run with the master key.
    static func job(_ name: String, jobId: String, params: JSONValue, headers: [String: String], ip: String) -> JSONValue {
        .object([
            "jobName": .string(name),
            "jobId": .string(jobId),
            "params": params.objectValue == nil ? .object([:]) : params,
            "headers": .object(headers.mapValues(JSONValue.string)),
            "ip": .string(ip),
        ])
    }

    static func trigger(_ run: RunTrigger, context: CallContext) -> JSONValue {
        var fields = context.commonFields
        fields["triggerName"] = .string(run.key.triggerName.rawValue)
        let className = run.key.className
        let isFile = [.beforeSaveFile, .afterSaveFile, .beforeDeleteFile, .afterDeleteFile].contains(run.key.triggerName)
        if let object = run.object {
            fields[isFile ? "file" : "object"] = isFile ? object : withClassName(object, className)
        }
        if let original = run.original { fields["original"] = isFile ? original : withClassName(original, className) }
        switch run.key.triggerName {
        case .beforeFind:
            let query = run.query ?? .object([:])
            fields["query"] = withClassName(query, className)
            fields["count"] = .bool(query["count"].map { $0 == .bool(true) || $0 == .number(1) } ?? false)
            fields["isGet"] = query["isGet"] ?? .bool(false)
            fields["context"] = run.context ?? .object([:])
        case .afterFind:
            fields["objects"] = .array((run.objects ?? []).map { withClassName($0, className) })
            if let query = run.query { fields["query"] = withClassName(query, className) }
            fields["context"] = run.context ?? .object([:])
        case .beforeSave, .afterSave, .beforeDelete, .afterDelete, .beforeLogin, .afterLogin, .beforePasswordResetRequest:
            fields["context"] = run.context ?? .object([:])
        case .afterLogout, .beforeSaveFile, .afterSaveFile, .beforeDeleteFile, .afterDeleteFile:
            if let context = run.context { fields["context"] = context }
        case .beforeConnect, .afterEvent:
            break
        case .beforeSubscribe:
            fields["query"] = withClassName(run.query ?? .object([:]), className)
        }
        for (name, value) in run.details ?? [:] where fields[name] == nil { fields[name] = value }
        return .object(fields)
    }

    /// parse-server adds the class name to `object` and `original` (`toJSON()` leaves it out).
    static func withClassName(_ value: JSONValue, _ className: String) -> JSONValue {
        guard var fields = value.objectValue else { return value }
        if fields["className"] == nil { fields["className"] = .string(className) }
        return .object(fields)
    }
}

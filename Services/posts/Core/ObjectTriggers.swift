import Contracts
import ParseWire
import Query
import ServiceKit
import Storage

/// The triggers registered for one class, run as parse-server runs them around a write or a query. Made only when
/// the class has at least one (`RequestContext.triggers(of:)`), so other classes never reach this code.
struct ObjectTriggers: Sendable {
    let cloud: CloudTriggers
    let names: Set<TriggerName>
    let className: String
    let context: RequestContext

    func has(_ name: TriggerName) -> Bool { names.contains(name) }

    /// beforeSave: the trigger sees `original` (nil for a create) with `changes` applied; what it changed replaces
    /// the client's changes. Answers the changes to write and the names of the fields the trigger changed.
    func beforeSave(_ changes: [String: JSONValue], objectId: String?,
                    original: [String: JSONValue]?) async throws -> (changes: [String: JSONValue], changed: [String]) {
        var given = BeforeSaveMerge.applying(changes, to: original)
        given["className"] = .string(className)
        if let objectId { given["objectId"] = .string(objectId) }
        let trigger = context.triggerRequest.trigger(.beforeSave, className, object: .object(given),
                                                     original: original.map { .object(withClass($0)) })
        let result = try await cloud.run(trigger, requestId: context.requestId, identity: context.identity)
        guard let answer = result.object?.objectValue else { return (changes, []) }
        return BeforeSaveMerge.merge(answer: answer, given: given, changes: changes)
    }

    /// beforeDelete: may refuse by throwing.
    func beforeDelete(_ object: [String: JSONValue]) async throws {
        let trigger = context.triggerRequest.trigger(.beforeDelete, className, object: .object(withClass(object)))
        _ = try await cloud.run(trigger, requestId: context.requestId, identity: context.identity)
    }

    /// beforeFind: the query's options (`where`, `limit`, `skip`, `order`, `keys`, `include`, ...) as the trigger
    /// left them; options its answer leaves out stay as they were, as in parse-server.
    func beforeFind(_ options: [String: JSONValue]) async throws -> [String: JSONValue] {
        let trigger = context.triggerRequest.trigger(.beforeFind, className, query: .object(options))
        let result = try await cloud.run(trigger, requestId: context.requestId, identity: context.identity)
        guard let query = result.query?.objectValue else { return options }
        var changed = options
        for (name, value) in query where QueryOptions.findParameters.contains(name) { changed[name] = value }
        return changed
    }

    /// afterFind: the objects to answer instead of those found.
    func afterFind(_ objects: [JSONValue]) async throws -> [JSONValue] {
        let trigger = context.triggerRequest.trigger(.afterFind, className,
                                                     objects: objects.map { .object(withClass($0.objectValue ?? [:])) })
        let result = try await cloud.run(trigger, requestId: context.requestId, identity: context.identity)
        guard let replaced = result.objects else { return objects }
        return replaced.map { item in
            guard var fields = item.objectValue else { return item }
            fields["className"] = nil
            return .object(fields)
        }
    }

    /// afterSave or afterDelete, into the outbox of the write's transaction.
    func after(_ name: TriggerName, object: [String: JSONValue], original: [String: JSONValue]? = nil,
               on connection: PostgresConnection) async throws {
        guard has(name) else { return }
        let trigger = context.triggerRequest.trigger(name, className, object: .object(withClass(object)),
                                                     original: original.map { .object(withClass($0)) })
        try await cloud.enqueue(trigger, requestId: context.requestId, identity: context.identity, on: connection)
    }

    private func withClass(_ object: [String: JSONValue]) -> [String: JSONValue] {
        var object = object
        object["className"] = .string(className)
        return object
    }
}

extension RequestContext {
    /// The triggers of `className`, or nil when it has none: a look-up in memory, no call.
    func triggers(of className: String) async -> ObjectTriggers? {
        guard let cloud else { return nil }
        let names = await cloud.triggers(of: className)
        guard !names.isEmpty else { return nil }
        return ObjectTriggers(cloud: cloud, names: names, className: className, context: self)
    }
}

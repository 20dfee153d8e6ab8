import Contracts
import ParseWire
import ServiceKit
import Storage

/// Cloud Code's file triggers, registered on parse-server's class `@File` (under the file trigger names, or the
/// plain ones parse-server's Hooks API uses for it: `beforeSave` on `@File` is `beforeSaveFile`).
struct FileTriggers: Sendable {
    let cloud: CloudTriggers
    let names: Set<TriggerName>
    let identity: Identity
    let requestId: String

    static let className = TriggerName.fileClassName

    /// The file triggers registered, or nil when there are none (the common case: one look-up in memory).
    static func registered(_ cloud: CloudTriggers?, identity: Identity, requestId: String) async -> FileTriggers? {
        guard let cloud else { return nil }
        let names = await cloud.triggers(of: className)
        guard !names.isEmpty else { return nil }
        return FileTriggers(cloud: cloud, names: names, identity: identity, requestId: requestId)
    }

    /// The name a registration of `fileTrigger` has, if there is one.
    private func registered(_ fileTrigger: TriggerName, _ plain: TriggerName) -> TriggerName? {
        names.contains(fileTrigger) ? fileTrigger : names.contains(plain) ? plain : nil
    }

    static func file(name: String, contentType: String?, size: Int?, metadata: JSONValue? = nil,
                     tags: JSONValue? = nil) -> JSONValue {
        var file: [String: JSONValue] = ["__type": .string("File"), "name": .string(name)]
        if let contentType { file["contentType"] = .string(contentType) }
        if let size { file["fileSize"] = .number(Double(size)) }
        if let metadata { file["metadata"] = metadata }
        if let tags { file["tags"] = tags }
        return .object(file)
    }

    /// beforeSaveFile: may refuse the upload by throwing.
    func beforeSave(_ file: JSONValue) async throws {
        guard let name = registered(.beforeSaveFile, .beforeSave) else { return }
        let trigger = RunTrigger(key: TriggerKey(className: Self.className, triggerName: name), object: file)
        _ = try await cloud.run(trigger, requestId: requestId, identity: identity)
    }

    /// beforeDeleteFile: may refuse the deletion by throwing.
    func beforeDelete(_ file: JSONValue) async throws {
        guard let name = registered(.beforeDeleteFile, .beforeDelete) else { return }
        let trigger = RunTrigger(key: TriggerKey(className: Self.className, triggerName: name), object: file)
        _ = try await cloud.run(trigger, requestId: requestId, identity: identity)
    }

    /// afterSaveFile, into the outbox of the transaction that makes the file visible.
    func saved(_ file: FileEvent, on connection: PostgresConnection) async throws {
        guard let name = registered(.afterSaveFile, .afterSave) else { return }
        try await enqueue(name, file, on: connection)
    }

    /// afterDeleteFile, into the outbox of the deletion's transaction.
    func deleted(_ file: FileEvent, on connection: PostgresConnection) async throws {
        guard let name = registered(.afterDeleteFile, .afterDelete) else { return }
        try await enqueue(name, file, on: connection)
    }

    private func enqueue(_ name: TriggerName, _ file: FileEvent, on connection: PostgresConnection) async throws {
        let trigger = RunTrigger(key: TriggerKey(className: Self.className, triggerName: name),
                                 object: Self.file(name: file.name, contentType: file.contentType, size: file.size))
        try await cloud.enqueue(trigger, requestId: requestId, identity: identity, on: connection)
    }
}

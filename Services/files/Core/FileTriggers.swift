import Contracts
import Foundation
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
                     tags: JSONValue? = nil, bytes: [UInt8]? = nil) -> JSONValue {
        var file: [String: JSONValue] = ["__type": .string("File"), "name": .string(name)]
        if let bytes { file["base64"] = .string(Data(bytes).base64EncodedString()) }
        if let contentType { file["contentType"] = .string(contentType) }
        if let size { file["fileSize"] = .number(Double(size)) }
        if let metadata { file["metadata"] = metadata }
        if let tags { file["tags"] = tags }
        return .object(file)
    }

    /// What a beforeSaveFile answered changing, as parse-server's Cloud Code returns another `Parse.File`: a new
    /// `name`, new bytes (`base64`), `contentType`, `metadata` or `tags`. Members it left as it was given are nil.
    struct Change: Equatable {
        var name: String?
        var bytes: [UInt8]?
        var contentType: String?
        var metadata: JSONValue?
        var tags: JSONValue?

        init(answer: JSONValue?, given: JSONValue) throws(ParseError) {
            guard let answer = answer?.objectValue, let given = given.objectValue else { return }
            func changed(_ key: String) -> JSONValue? { answer[key].flatMap { $0 == given[key] ? nil : $0 } }
            if let value = changed("name") {
                guard let text = value.stringValue else { throw ParseError(.invalidFileName, "Filename must be a string.") }
                if let error = FileNaming.validationError(text) { throw error }
                name = text
            }
            if let value = changed("base64") {
                guard let text = value.stringValue, let data = Data(base64Encoded: text), !data.isEmpty else {
                    throw ParseError(.fileSaveError, "Invalid file data: base64 expected.")
                }
                guard data.count <= FileCommands.maxPartBytes else {
                    throw ParseError(.fileSaveError, "A beforeSaveFile trigger may answer at most \(FileCommands.maxPartBytes) bytes.")
                }
                bytes = Array(data)
            }
            contentType = changed("contentType")?.stringValue
            metadata = changed("metadata")
            tags = changed("tags")
        }
    }

    /// beforeSaveFile: may refuse the upload by throwing, or change it (`Change`). `file` carries the bytes
    /// (`base64`) when the upload came in one part, so a trigger can transform them.
    func beforeSave(_ file: JSONValue) async throws -> Change {
        guard let name = registered(.beforeSaveFile, .beforeSave) else { return try Change(answer: nil, given: file) }
        let trigger = RunTrigger(key: TriggerKey(className: Self.className, triggerName: name), object: file)
        return try Change(answer: try await cloud.run(trigger, requestId: requestId, identity: identity).object, given: file)
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

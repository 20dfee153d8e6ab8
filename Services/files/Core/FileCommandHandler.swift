import Contracts
import Foundation
import Messaging
import ParseWire
import ServiceKit
import Storage

/// The files service's answers to the gateway's file commands, with parse-server's checks in its order:
/// upload policy, empty body, name rules, extension filter.
struct FileCommandHandler: Sendable {
    let store: FileStore
    let policy: FileUploadPolicy
    var cloud: CloudTriggers? = nil
    /// The run-time value of `fileUpload` (`/settings`); nil: `policy` as the service started with it.
    var settings: RuntimeSettings? = nil

    /// The upload policy in force now: read from the service's own table, so a change answered by `/settings`
    /// applies to the next upload on every replica.
    func currentPolicy() async throws -> FileUploadPolicy {
        guard let settings else { return policy }
        return try FilesRuntimeSettings(startUp: policy).policy(try await settings.overrides())
    }

    func create(_ command: RawCommand) async throws -> RawMessage {
        guard let request = FileCreateRequest(headers: command.headers) else { throw Self.malformed(command) }
        if command.identity.isReadOnlyMaster && !command.identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to create a file.")
        }
        let policy = try await currentPolicy()
        if let refusal = policy.refusal(isMaster: command.identity.isMaster, userId: command.identity.userId) {
            throw ParseError(.fileSaveError, refusal)
        }
        guard !command.body.isEmpty else { throw ParseError(.fileSaveError, "Invalid file upload.") }
        guard command.body.count <= FileCommands.maxPartBytes else { throw FileStore.couldNotStorePart }
        if let error = FileNaming.validationError(request.name) { throw error }
        if !command.identity.isMaster,
           let ext = FileUploadPolicy.checkedExtension(name: request.name, contentType: request.contentType),
           !policy.allowsExtension(ext) {
            throw ParseError(.fileSaveError, "File upload of extension \(ext) is disabled.")
        }
        let header = request.contentType.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        var named = FileNaming.withExtension(request.name, contentType: header)
        var contentType = MimeTypes.resolve(header: header, name: named, head: Array(command.body.prefix(48)))
        var upload = FileStore.NewUpload(name: named, contentType: contentType, metadata: request.metadata, tags: request.tags)
        var bytes = command.body
        let triggers = await FileTriggers.registered(cloud, identity: command.identity, requestId: command.requestId)
        if let triggers {
            let change = try await triggers.beforeSave(FileTriggers.file(
                name: named, contentType: contentType, size: request.isComplete ? bytes.count : nil,
                metadata: request.metadata, tags: request.tags, bytes: request.isComplete ? bytes : nil))
            if let name = change.name { named = name }
            if let type = change.contentType { contentType = type }
            if let new = change.bytes {
                // The rest of a longer upload is still on its way in parts that the new bytes cannot replace.
                guard request.isComplete else {
                    throw ParseError(.fileSaveError, "A beforeSaveFile trigger can replace the bytes of a file sent in one part only.")
                }
                bytes = new
            }
            upload = FileStore.NewUpload(name: named, contentType: contentType, metadata: change.metadata ?? request.metadata,
                                         tags: change.tags ?? request.tags)
        }
        upload.name = FileNaming.storedName(named, preserve: policy.preserveFileName)
        let state = try await store.create(upload, firstPart: bytes, isComplete: request.isComplete, triggers: triggers)
        return RawMessage(headers: state.headers)
    }

    func append(_ command: RawCommand) async throws -> RawMessage {
        guard let request = FileAppendRequest(headers: command.headers) else { throw Self.malformed(command) }
        guard command.body.count <= FileCommands.maxPartBytes else { throw FileStore.couldNotStorePart }
        try await store.append(request, bytes: command.body)
        return RawMessage()
    }

    func commit(_ command: Command<FileCommitRequest>) async throws -> FileUploadState {
        try await store.commit(command.payload,
                               triggers: await FileTriggers.registered(cloud, identity: command.identity,
                                                                       requestId: command.requestId))
    }

    func abort(_ command: Command<FileUploadReference>) async throws -> Empty {
        try await store.abort(command.payload.uploadId)
        return Empty()
    }

    func info(_ command: Command<FileNameReference>) async throws -> FileInfo {
        guard let info = try await store.info(command.payload.name) else { throw Self.notFound }
        return info
    }

    func read(_ command: RawCommand) async throws -> RawMessage {
        guard let request = FileReadRequest(headers: command.headers) else { throw Self.malformed(command) }
        // The end of the range must be a number too: an offset near `Int.max` would overflow it.
        guard request.length <= FileCommands.maxPartBytes, request.offset <= Int.max - request.length else {
            throw ParseError(.invalidQuery, "Invalid byte range.")
        }
        guard let bytes = try await store.read(request.name, offset: request.offset, length: request.length) else {
            throw Self.notFound
        }
        return RawMessage(body: bytes)
    }

    func open(_ command: RawCommand) async throws -> RawMessage {
        guard let name = FileHeaders.name(in: command.headers) else { throw Self.malformed(command) }
        guard let info = try await store.info(name),
              let bytes = try await store.read(name, offset: 0, length: min(info.size, FileCommands.partBytes)) else {
            throw Self.notFound
        }
        return RawMessage(headers: info.headers, body: bytes)
    }

    func metadata(_ command: Command<FileNameReference>) async throws -> FileMetadata {
        FileMetadata(metadata: try await store.metadata(command.payload.name))
    }

    func delete(_ command: Command<FileNameReference>) async throws -> Empty {
        guard command.identity.isMaster else { throw ParseError(.operationForbidden, "unauthorized: master key is required") }
        let triggers = await FileTriggers.registered(cloud, identity: command.identity, requestId: command.requestId)
        if let triggers, let info = try await store.info(command.payload.name) {
            try await triggers.beforeDelete(FileTriggers.file(name: info.name, contentType: info.contentType, size: info.size))
        }
        guard try await store.delete(command.payload.name, triggers: triggers) else {
            throw ParseError(.fileDeleteError, "Could not delete file.")
        }
        return Empty()
    }

    static let notFound = ParseError(.objectNotFound, "File not found.")

    /// Headers missing or unreadable: the sender is out of step with this service, not the client's fault alone,
    /// but still an answer rather than a retry.
    private static func malformed(_ command: RawCommand) -> ParseError {
        ParseError(.invalidJSON, "Malformed \(command.type) command.")
    }
}

import Contracts
import Foundation
import ParseWire
import Storage

/// The files service's answers to the gateway's file commands, with parse-server's checks in its order:
/// upload policy, empty body, name rules, extension filter.
struct FileCommandHandler: Sendable {
    let store: FileStore
    let policy: FileUploadPolicy

    func create(_ command: Command<FileCreateRequest>) async throws -> FileUploadState {
        let request = command.payload
        if command.identity.isReadOnlyMaster && !command.identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the create operation.")
        }
        if let refusal = policy.refusal(isMaster: command.identity.isMaster, userId: command.identity.userId) {
            throw ParseError(.fileSaveError, refusal)
        }
        guard let firstCount = Base64Text.decodedCount(request.bytes), firstCount > 0 else {
            throw ParseError(.fileSaveError, "Invalid file upload.")
        }
        if let error = FileNaming.validationError(request.name) { throw error }
        if !command.identity.isMaster,
           let ext = FileUploadPolicy.checkedExtension(name: request.name, contentType: request.contentType),
           !policy.allowsExtension(ext) {
            throw ParseError(.fileSaveError, "File upload of extension \(ext) is disabled.")
        }
        let header = request.contentType.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        let named = FileNaming.withExtension(request.name, contentType: header)
        let contentType = MimeTypes.resolve(header: header, name: named, head: Base64Text.head(request.bytes))
        let upload = FileStore.NewUpload(name: FileNaming.storedName(named, preserve: policy.preserveFileName),
                                         contentType: contentType, metadata: request.metadata, tags: request.tags)
        return try await store.create(upload, firstPart: request.bytes, isComplete: request.isComplete)
    }

    func append(_ command: Command<FileAppendRequest>) async throws -> FileUploadState {
        try await store.append(command.payload)
    }

    func abort(_ command: Command<FileUploadReference>) async throws -> Empty {
        try await store.abort(command.payload.uploadId)
        return Empty()
    }

    func info(_ command: Command<FileNameReference>) async throws -> FileInfo {
        guard let info = try await store.info(command.payload.name) else { throw Self.notFound }
        return info
    }

    func read(_ command: Command<FileReadRequest>) async throws -> FileBytes {
        let request = command.payload
        guard request.offset >= 0, (0...FileCommands.partBytes).contains(request.length) else {
            throw ParseError(.invalidQuery, "Invalid byte range.")
        }
        guard let bytes = try await store.read(request.name, offset: request.offset, length: request.length) else {
            throw Self.notFound
        }
        return FileBytes(bytes: bytes)
    }

    func open(_ command: Command<FileNameReference>) async throws -> FileOpening {
        let name = command.payload.name
        guard let info = try await store.info(name),
              let bytes = try await store.read(name, offset: 0, length: min(info.size, FileCommands.partBytes)) else {
            throw Self.notFound
        }
        return FileOpening(info: info, bytes: bytes)
    }

    func metadata(_ command: Command<FileNameReference>) async throws -> FileMetadata {
        FileMetadata(metadata: try await store.metadata(command.payload.name))
    }

    func delete(_ command: Command<FileNameReference>) async throws -> Empty {
        guard command.identity.isMaster else { throw ParseError(.operationForbidden, "unauthorized: master key is required") }
        guard try await store.delete(command.payload.name) else {
            throw ParseError(.fileDeleteError, "Could not delete file.")
        }
        return Empty()
    }

    static let notFound = ParseError(.objectNotFound, "File not found.")
}

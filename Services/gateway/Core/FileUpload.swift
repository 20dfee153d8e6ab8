import Contracts
import Foundation
import ParseWire
import Runtime

/// Sends an upload's bytes to the files service: the first part creates the upload (and is the whole file when
/// short), the others follow `FileCommands.partsInFlight` at a time without waiting for each other, and a commit
/// once all are stored makes the file visible. If anything fails after the upload started (the client left, the
/// service failed), the parts still in flight are waited for and the service is told to drop what it has; it
/// drops abandoned uploads by itself anyway: no half file ever shows.
struct FileUpload {
    let calls: FileServiceCalls
    let identity: Identity
    let log: Logger

    struct Description {
        var name: String
        var contentType: String?
        var metadata: JSONValue?
        var tags: JSONValue?
    }

    func send(_ source: inout some FileUploadSource, _ file: Description) async throws -> FileUploadState {
        // A part shorter than a full one is the last; after a full one the end is only known by asking again.
        let first = try await source.nextPart() ?? []
        let request = FileCreateRequest(name: file.name, contentType: file.contentType,
                                        isComplete: first.count < FileCommands.partBytes, metadata: file.metadata,
                                        tags: file.tags)
        let created = try await calls.call(raw: FileCommands.create, headers: request.headers, body: first,
                                           identity: identity)
        guard let state = FileUploadState(headers: created.headers) else {
            throw ParseError(.internalServerError, "Internal server error.")
        }
        if request.isComplete { return state }
        var inFlight = PartsInFlight<Void>()
        var size = first.count
        do {
            while let part = try await source.nextPart(), !part.isEmpty {
                while inFlight.count >= FileCommands.partsInFlight { try await inFlight.takeOldest() }
                let append = FileAppendRequest(uploadId: state.uploadId, offset: size)
                inFlight.add { [calls, identity] in
                    _ = try await calls.call(raw: FileCommands.append, headers: append.headers, body: part,
                                             identity: identity)
                }
                size += part.count
            }
            while inFlight.count > 0 { try await inFlight.takeOldest() }
            return try await calls.send(FileCommands.commit, FileCommitRequest(uploadId: state.uploadId, size: size),
                                        identity: identity)
        } catch {
            log.warning("upload interrupted", ["file.name": state.name, "error": "\(error)"])
            // Waited for first, so no part of this upload lands after the abort and outlives it.
            await inFlight.settle()
            let _: Empty? = try? await calls.send(FileCommands.abort, FileUploadReference(uploadId: state.uploadId),
                                                  identity: identity)
            throw error
        }
    }
}

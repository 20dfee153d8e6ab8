import Contracts
import Foundation
import ParseWire
import Runtime

/// Sends an upload's bytes to the files service part by part, the last one marked complete. If anything fails
/// after the upload started (the client left, the service failed), the service is told to drop what it has, and
/// it drops abandoned uploads by itself anyway: no half file ever shows.
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
        // A part shorter than a full one is the last; after a full one the end is only known by asking again
        // (an empty last part), which keeps a single part in memory instead of looking ahead.
        let first = try await source.nextPart() ?? []
        var complete = first.count < FileCommands.partBytes
        var state: FileUploadState = try await calls.send(
            FileCommands.create,
            FileCreateRequest(name: file.name, contentType: file.contentType, bytes: Self.base64(first),
                              isComplete: complete, metadata: file.metadata, tags: file.tags),
            identity: identity)
        var offset = first.count
        do {
            while !complete {
                let part = try await source.nextPart() ?? []
                complete = part.count < FileCommands.partBytes
                state = try await calls.send(
                    FileCommands.append,
                    FileAppendRequest(uploadId: state.uploadId, offset: offset, bytes: Self.base64(part),
                                      isComplete: complete),
                    identity: identity)
                offset += part.count
            }
        } catch {
            log.warning("upload interrupted", ["file.name": state.name, "error": "\(error)"])
            let _: Empty? = try? await calls.send(FileCommands.abort, FileUploadReference(uploadId: state.uploadId),
                                                  identity: identity)
            throw error
        }
        return state
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}

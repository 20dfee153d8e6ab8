import Contracts
import Foundation
import ParseWire
import Storage

/// Files in PostgreSQL: parts of at most `FileCommands.partBytes` in `file_parts`, keyed by upload and first byte.
/// A file is visible (in `files`) only once its last part is in.
struct FileStore: Sendable {
    let pool: PostgresPool
    /// Uploads untouched this long are abandoned; their parts are removed.
    var abandonAfterSeconds = 3600

    struct NewUpload: Sendable {
        var name: String
        var contentType: String
        var metadata: JSONValue?
        var tags: JSONValue?
    }

    /// Starts an upload with its first part; stores it at once when `isComplete`.
    func create(_ upload: NewUpload, firstPart: String, isComplete: Bool) async throws -> FileUploadState {
        guard let size = Base64Text.decodedCount(firstPart) else { throw couldNotStore(upload.name) }
        let uploadId = UUID()
        try await removeAbandonedUploads()
        return try await pool.transaction { connection in
            _ = try await connection.query("""
                INSERT INTO file_uploads (upload_id, name, content_type, size, metadata, tags)
                VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6::jsonb)
                """, [uploadId, upload.name, upload.contentType, size, upload.metadata?.jsonText, upload.tags?.jsonText])
            if size > 0 { try await insertPart(uploadId.postgresText, at: 0, firstPart, on: connection) }
            var state = FileUploadState(uploadId: uploadId.postgresText, name: upload.name,
                                        contentType: upload.contentType, size: size, isStored: false)
            if isComplete { state = try await commit(state, on: connection) }
            return state
        }
    }

    /// Adds the part at `offset`. A part delivered twice (a retried command) is answered as before.
    func append(_ request: FileAppendRequest) async throws -> FileUploadState {
        guard let count = Base64Text.decodedCount(request.bytes), UUID(uuidString: request.uploadId) != nil else {
            throw ParseError(.fileSaveError, "Could not store file.")
        }
        return try await pool.transaction { connection in
            let moved = try await connection.query("""
                UPDATE file_uploads SET size = size + $3, touched_at = now()
                WHERE upload_id = $1::uuid AND size = $2
                RETURNING name, content_type, size
                """, [request.uploadId, request.offset, count])
            guard let row = moved.first, let name = row["name"], let type = row["content_type"],
                  let size = row.int("size") else {
                return try await replay(request, on: connection)
            }
            if count > 0 { try await insertPart(request.uploadId, at: request.offset, request.bytes, on: connection) }
            let state = FileUploadState(uploadId: request.uploadId, name: name, contentType: type, size: size,
                                        isStored: false)
            return request.isComplete ? try await commit(state, on: connection) : state
        }
    }

    /// A part that was already applied (the command came again): answer with where the upload stands.
    private func replay(_ request: FileAppendRequest, on connection: PostgresConnection) async throws -> FileUploadState {
        let stored = try await connection.query(
            "SELECT name, content_type, size FROM files WHERE upload_id = $1::uuid", [request.uploadId])
        if let row = stored.first, let name = row["name"], let type = row["content_type"], let size = row.int("size"),
           request.isComplete, size == request.offset + (Base64Text.decodedCount(request.bytes) ?? -1) {
            return FileUploadState(uploadId: request.uploadId, name: name, contentType: type, size: size, isStored: true)
        }
        let pending = try await connection.query(
            "SELECT name, content_type, size FROM file_uploads WHERE upload_id = $1::uuid", [request.uploadId])
        if let row = pending.first, let name = row["name"], let type = row["content_type"], let size = row.int("size"),
           !request.isComplete, size == request.offset + (Base64Text.decodedCount(request.bytes) ?? -1) {
            return FileUploadState(uploadId: request.uploadId, name: name, contentType: type, size: size, isStored: false)
        }
        throw ParseError(.fileSaveError, "Could not store file.")
    }

    private func insertPart(_ uploadId: String, at offset: Int, _ base64: String,
                            on connection: PostgresConnection) async throws {
        _ = try await connection.query(
            "INSERT INTO file_parts (upload_id, start_byte, data) VALUES ($1::uuid, $2, decode($3, 'base64'))",
            [uploadId, offset, base64])
    }

    /// Makes the upload visible under its name, replacing a file of the same name (only possible when names are
    /// preserved), and records `file.stored`.
    private func commit(_ state: FileUploadState, on connection: PostgresConnection) async throws -> FileUploadState {
        let replaced = try await connection.query(
            "DELETE FROM files WHERE name = $1 RETURNING upload_id::text, size, content_type", [state.name])
        for row in replaced.rows {
            _ = try await connection.query("DELETE FROM file_parts WHERE upload_id = $1::uuid", [row["upload_id"]])
            try await FileEvents.deleted(FileEvent(name: state.name, size: row.int("size") ?? 0,
                                                   contentType: row["content_type"] ?? ""), on: connection)
        }
        _ = try await connection.query("""
            WITH finished AS (DELETE FROM file_uploads WHERE upload_id = $1::uuid
                              RETURNING upload_id, name, content_type, size, metadata, tags)
            INSERT INTO files (name, upload_id, content_type, size, metadata, tags)
            SELECT name, upload_id, content_type, size, metadata, tags FROM finished
            """, [state.uploadId])
        try await FileEvents.stored(FileEvent(name: state.name, size: state.size, contentType: state.contentType),
                                    on: connection)
        var stored = state
        stored.isStored = true
        return stored
    }

    func abort(_ uploadId: String) async throws {
        guard UUID(uuidString: uploadId) != nil else { return }
        _ = try await pool.transaction { connection in
            _ = try await connection.query("DELETE FROM file_uploads WHERE upload_id = $1::uuid", [uploadId])
            _ = try await connection.query("DELETE FROM file_parts WHERE upload_id = $1::uuid", [uploadId])
        }
    }

    private func removeAbandonedUploads() async throws {
        _ = try await pool.query("""
            WITH stale AS (DELETE FROM file_uploads WHERE touched_at < now() - make_interval(secs => $1)
                           RETURNING upload_id)
            DELETE FROM file_parts WHERE upload_id IN (SELECT upload_id FROM stale)
            """, [abandonAfterSeconds])
    }

    func info(_ name: String) async throws -> FileInfo? {
        let result = try await pool.query(
            "SELECT upload_id::text, size, content_type FROM files WHERE name = $1", [name])
        guard let row = result.first, let id = row["upload_id"], let size = row.int("size"),
              let type = row["content_type"] else { return nil }
        return FileInfo(name: name, size: size, contentType: type,
                        etag: "\"" + id.replacingOccurrences(of: "-", with: "") + "\"")
    }

    /// Bytes `offset ..< offset + length`, base64; nil when there is no such file.
    func read(_ name: String, offset: Int, length: Int) async throws -> String? {
        let end = offset + length
        let result = try await pool.query("""
            SELECT translate(encode(substring(p.data FROM (greatest($2 - p.start_byte, 0) + 1)::int
                                              FOR (least($3, p.start_byte + length(p.data))
                                                   - greatest($2, p.start_byte))::int),
                                    'base64'), E'\n', '') AS piece
            FROM files f LEFT JOIN file_parts p
              ON p.upload_id = f.upload_id AND p.start_byte < $3 AND p.start_byte + length(p.data) > $2
            WHERE f.name = $1
            ORDER BY p.start_byte
            """, [name, offset, end])
        guard !result.rows.isEmpty else { return nil }
        let pieces = result.rows.compactMap { $0["piece"] }
        // PostgreSQL's base64 comes without line breaks (translated away), so one piece passes through as is.
        if pieces.count == 1 { return pieces[0] }
        var bytes = Data()
        for piece in pieces {
            guard let data = Data(base64Encoded: piece) else {
                throw ParseError(.internalServerError, "Internal server error.")
            }
            bytes.append(data)
        }
        return bytes.base64EncodedString()
    }

    func metadata(_ name: String) async throws -> JSONValue? {
        let result = try await pool.query("SELECT metadata::text FROM files WHERE name = $1", [name])
        return result.first?["metadata"].flatMap { JSONValue.parse($0) }
    }

    /// Removes a stored file; false when there is none.
    func delete(_ name: String) async throws -> Bool {
        try await pool.transaction { connection in
            let removed = try await connection.query(
                "DELETE FROM files WHERE name = $1 RETURNING upload_id::text, size, content_type", [name])
            guard let row = removed.first else { return false }
            _ = try await connection.query("DELETE FROM file_parts WHERE upload_id = $1::uuid", [row["upload_id"]])
            try await FileEvents.deleted(FileEvent(name: name, size: row.int("size") ?? 0,
                                                   contentType: row["content_type"] ?? ""), on: connection)
            return true
        }
    }

    private func couldNotStore(_ name: String) -> ParseError {
        ParseError(.fileSaveError, "Could not store file: \(name).")
    }
}

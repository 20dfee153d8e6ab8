import Contracts
import Foundation
import ParseWire
import Storage

/// Files in PostgreSQL: parts of at most `FileCommands.maxPartBytes` in `file_parts`, keyed by upload and first
/// byte. A file is visible (in `files`) only once every part is in and it is committed.
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
    func create(_ upload: NewUpload, firstPart: [UInt8], isComplete: Bool,
                triggers: FileTriggers? = nil) async throws -> FileUploadState {
        let uploadId = UUID()
        try await removeAbandonedUploads()
        return try await pool.transaction { connection in
            _ = try await connection.query("""
                INSERT INTO file_uploads (upload_id, name, content_type, size, metadata, tags)
                VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6::jsonb)
                """, [uploadId, upload.name, upload.contentType, firstPart.count, upload.metadata?.compactText,
                      upload.tags?.compactText])
            if !firstPart.isEmpty {
                try await Self.planWithoutCopyingParameters(on: connection)
                _ = try await connection.query(
                    "INSERT INTO file_parts (upload_id, start_byte, data) VALUES ($1::uuid, 0, $2::bytea)",
                    binary: [uploadId, PostgresBinary(firstPart)])
            }
            var state = FileUploadState(uploadId: uploadId.postgresText, name: upload.name,
                                        contentType: upload.contentType, size: firstPart.count, isStored: false)
            if isComplete { state = try await commit(state, triggers: triggers, on: connection) }
            return state
        }
    }

    /// Stores the part at `offset` of an upload in progress. Parts of one upload arrive in any order and at once
    /// (the gateway keeps several in flight); `commit` checks they add up. A part delivered twice (a retried
    /// command) is kept once. The upload row is share-locked meanwhile, so an `abort` either waits for this
    /// part and removes it too, or has removed the upload already and the part is refused.
    ///
    /// The part's transaction does not wait for its WAL to reach the disk: the commit that makes the file
    /// visible does, and WAL is flushed in order, so every part is durable before the file shows. A part lost in
    /// a crash before that is found missing by the commit, which then fails: no half file either way.
    func append(_ request: FileAppendRequest, bytes: [UInt8]) async throws {
        guard UUID(uuidString: request.uploadId) != nil, !bytes.isEmpty else { throw Self.couldNotStorePart }
        try await pool.transaction { connection in
            _ = try await connection.query("SELECT set_config('synchronous_commit', 'off', true)")
            try await Self.planWithoutCopyingParameters(on: connection)
            let inserted = try await connection.query("""
                WITH live AS (SELECT upload_id FROM file_uploads WHERE upload_id = $1::uuid FOR KEY SHARE)
                INSERT INTO file_parts (upload_id, start_byte, data) SELECT upload_id, $2, $3::bytea FROM live
                ON CONFLICT (upload_id, start_byte) DO NOTHING
                """, binary: [request.uploadId, request.offset, PostgresBinary(bytes)])
            if inserted.affectedRows == 0 {
                let kept = try await connection.query("""
                    SELECT 1 FROM file_parts p JOIN file_uploads u USING (upload_id)
                    WHERE p.upload_id = $1::uuid AND p.start_byte = $2 AND length(p.data) = $3
                    """, [request.uploadId, request.offset, bytes.count])
                guard !kept.rows.isEmpty else { throw Self.couldNotStorePart }
            }
            // Keeps a long upload from being taken for an abandoned one (rarely true, so rarely a row lock).
            _ = try await connection.query("""
                UPDATE file_uploads SET touched_at = now()
                WHERE upload_id = $1::uuid AND touched_at < now() - interval '1 minute'
                """, [request.uploadId])
        }
    }

    /// For the rest of the transaction, statements are planned with their parameters left as parameters: the
    /// default plan for a one-off statement copies each value into the plan, a part's megabyte several times over.
    private static func planWithoutCopyingParameters(on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT set_config('plan_cache_mode', 'force_generic_plan', true)")
    }

    /// Makes an upload whose parts are all stored visible, once they are checked to cover `0 ..< size` exactly.
    /// A commit delivered again after it succeeded answers as before.
    func commit(_ request: FileCommitRequest, triggers: FileTriggers? = nil) async throws -> FileUploadState {
        guard UUID(uuidString: request.uploadId) != nil else { throw Self.couldNotStorePart }
        return try await pool.transaction { connection in
            let pending = try await connection.query("""
                SELECT name, content_type FROM file_uploads WHERE upload_id = $1::uuid FOR UPDATE
                """, [request.uploadId])
            guard let row = pending.first, let name = row["name"], let type = row["content_type"] else {
                let stored = try await connection.query(
                    "SELECT name, content_type, size FROM files WHERE upload_id = $1::uuid", [request.uploadId])
                guard let row = stored.first, let name = row["name"], let type = row["content_type"],
                      row.int("size") == request.size else { throw Self.couldNotStorePart }
                return FileUploadState(uploadId: request.uploadId, name: name, contentType: type, size: request.size,
                                       isStored: true)
            }
            let parts = try await connection.query(
                "SELECT start_byte, length(data) AS count FROM file_parts WHERE upload_id = $1::uuid ORDER BY start_byte",
                [request.uploadId])
            var end = 0
            for part in parts.rows {
                guard part.int("start_byte") == end, let count = part.int("count") else { throw Self.couldNotStorePart }
                end += count
            }
            guard end == request.size else { throw Self.couldNotStorePart }
            _ = try await connection.query("UPDATE file_uploads SET size = $2 WHERE upload_id = $1::uuid",
                                           [request.uploadId, request.size])
            return try await commit(FileUploadState(uploadId: request.uploadId, name: name, contentType: type,
                                                    size: request.size, isStored: false), triggers: triggers, on: connection)
        }
    }

    /// Makes the upload visible under its name, replacing a file of the same name (only possible when names are
    /// preserved), and records `file.stored`.
    private func commit(_ state: FileUploadState, triggers: FileTriggers?,
                        on connection: PostgresConnection) async throws -> FileUploadState {
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
        let file = FileEvent(name: state.name, size: state.size, contentType: state.contentType)
        try await FileEvents.stored(file, on: connection)
        try await triggers?.saved(file, on: connection)
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
        // parse-server answers a download with the type of the stored name's extension, whatever the upload said
        // (`photo.png` sent as `text/plain` downloads as `image/png`); the stored type serves names without a
        // known extension.
        return FileInfo(name: name, size: size, contentType: MimeTypes.type(forName: name) ?? type,
                        etag: "\"" + id.replacingOccurrences(of: "-", with: "") + "\"")
    }

    /// Bytes `offset ..< offset + length` (fewer past the end); nil when there is no such file. The pieces come
    /// in binary format (no hex or base64 text to build in PostgreSQL and parse here) and are put in order here:
    /// an `ORDER BY`, or a subquery that cuts them after one, makes PostgreSQL copy every piece once more.
    func read(_ name: String, offset: Int, length: Int) async throws -> [UInt8]? {
        let end = offset + length
        let rows = try await pool.binaryRows("""
            SELECT start_byte,
                   substring(data FROM (greatest($2 - start_byte, 0) + 1)::int
                             FOR (least($3, start_byte + length(data)) - greatest($2, start_byte))::int)
            FROM file_parts
            WHERE upload_id = (SELECT upload_id FROM files WHERE name = $1)
              AND start_byte < $3 AND start_byte + length(data) > $2
            """, [name, offset, end])
        if rows.isEmpty {
            let exists = try await pool.query("SELECT 1 FROM files WHERE name = $1", [name])
            return exists.rows.isEmpty ? nil : []
        }
        if rows.count == 1 { return rows[0][1] ?? [] }
        var pieces: [(start: Int, bytes: [UInt8])] = []
        for row in rows {
            guard let start = PostgresBinary.integer(row[0]) else {
                throw ParseError(.internalServerError, "Internal server error.")
            }
            pieces.append((start, row[1] ?? []))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for piece in pieces.sorted(by: { $0.start < $1.start }) { bytes += piece.bytes }
        return bytes
    }

    func metadata(_ name: String) async throws -> JSONValue? {
        let result = try await pool.query("SELECT metadata::text FROM files WHERE name = $1", [name])
        return result.first?["metadata"].flatMap { JSONValue.parse($0) }
    }

    /// Removes a stored file; false when there is none.
    func delete(_ name: String, triggers: FileTriggers? = nil) async throws -> Bool {
        try await pool.transaction { connection in
            let removed = try await connection.query(
                "DELETE FROM files WHERE name = $1 RETURNING upload_id::text, size, content_type", [name])
            guard let row = removed.first else { return false }
            _ = try await connection.query("DELETE FROM file_parts WHERE upload_id = $1::uuid", [row["upload_id"]])
            let file = FileEvent(name: name, size: row.int("size") ?? 0, contentType: row["content_type"] ?? "")
            try await FileEvents.deleted(file, on: connection)
            try await triggers?.deleted(file, on: connection)
            return true
        }
    }

    static let couldNotStorePart = ParseError(.fileSaveError, "Could not store file.")
}

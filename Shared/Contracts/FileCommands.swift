import ParseWire

/// The `files` service's commands. File bytes travel in bounded parts (at most `FileCommands.partBytes` each),
/// base64 text in JSON, so no message and no process ever holds a whole large file: an upload is a `create`
/// carrying the first part, `append`s for the rest, the last part marked complete; a download is an `info`
/// then `read`s of byte ranges.
public enum FileCommands {
    public static let create = "file.create.v1"
    public static let append = "file.append.v1"
    public static let abort = "file.abort.v1"
    public static let info = "file.info.v1"
    public static let read = "file.read.v1"
    /// `info` and the first part together, one round trip for a whole small file.
    public static let open = "file.open.v1"
    public static let delete = "file.delete.v1"
    public static let metadata = "file.metadata.v1"

    /// The largest part one message carries, in bytes (before base64).
    public static let partBytes = 1 << 20
}

/// `file.create.v1`: starts an upload under the name the client chose; the service applies the upload policy and
/// parse-server's name rules, picks the stored name and answers with it.
public struct FileCreateRequest: Codable, Sendable, Equatable {
    public var name: String
    /// The request's `Content-Type` header, if any.
    public var contentType: String?
    /// The first part of the bytes, base64.
    public var bytes: String
    /// True when `bytes` is the whole file: the file is stored at once.
    public var isComplete: Bool
    /// Parse `File` metadata and tags, when the client sent any (JavaScript SDK uploads).
    public var metadata: JSONValue?
    public var tags: JSONValue?

    public init(name: String, contentType: String?, bytes: String, isComplete: Bool,
                metadata: JSONValue? = nil, tags: JSONValue? = nil) {
        self.name = name
        self.contentType = contentType
        self.bytes = bytes
        self.isComplete = isComplete
        self.metadata = metadata
        self.tags = tags
    }
}

/// `file.append.v1`: the next part of an upload, at `offset` (the bytes received so far).
public struct FileAppendRequest: Codable, Sendable, Equatable {
    public var uploadId: String
    public var offset: Int
    public var bytes: String
    public var isComplete: Bool

    public init(uploadId: String, offset: Int, bytes: String, isComplete: Bool) {
        self.uploadId = uploadId
        self.offset = offset
        self.bytes = bytes
        self.isComplete = isComplete
    }
}

/// Where an upload stands; `name` is the stored name (`<32 hex>_<name>`).
public struct FileUploadState: Codable, Sendable, Equatable {
    public var uploadId: String
    public var name: String
    public var contentType: String
    public var size: Int
    public var isStored: Bool

    public init(uploadId: String, name: String, contentType: String, size: Int, isStored: Bool) {
        self.uploadId = uploadId
        self.name = name
        self.contentType = contentType
        self.size = size
        self.isStored = isStored
    }
}

/// `file.abort.v1`: the client went away; the parts received so far are dropped.
public struct FileUploadReference: Codable, Sendable, Equatable {
    public var uploadId: String

    public init(uploadId: String) { self.uploadId = uploadId }
}

/// `file.info.v1`, `file.delete.v1` and `file.metadata.v1` name one stored file.
public struct FileNameReference: Codable, Sendable, Equatable {
    public var name: String

    public init(name: String) { self.name = name }
}

/// A stored file as downloads describe it. `etag` is quoted, ready for the header.
public struct FileInfo: Codable, Sendable, Equatable {
    public var name: String
    public var size: Int
    public var contentType: String
    public var etag: String

    public init(name: String, size: Int, contentType: String, etag: String) {
        self.name = name
        self.size = size
        self.contentType = contentType
        self.etag = etag
    }
}

/// `file.read.v1`: bytes `offset ..< offset + length` of a stored file (`length` at most `partBytes`).
public struct FileReadRequest: Codable, Sendable, Equatable {
    public var name: String
    public var offset: Int
    public var length: Int

    public init(name: String, offset: Int, length: Int) {
        self.name = name
        self.offset = offset
        self.length = length
    }
}

/// `file.open.v1`'s answer: the file and its first `FileCommands.partBytes` bytes (all of a small file).
public struct FileOpening: Codable, Sendable, Equatable {
    public var info: FileInfo
    public var bytes: String

    public init(info: FileInfo, bytes: String) {
        self.info = info
        self.bytes = bytes
    }
}

/// Part of a file, base64.
public struct FileBytes: Codable, Sendable, Equatable {
    public var bytes: String

    public init(bytes: String) { self.bytes = bytes }
}

/// `file.metadata.v1`'s answer: parse-server's `{}` or `{"metadata":{...}}`.
public struct FileMetadata: Codable, Sendable, Equatable {
    public var metadata: JSONValue?

    public init(metadata: JSONValue?) { self.metadata = metadata }
}

/// The payload of `file.stored` and `file.deleted` events.
public struct FileEvent: Codable, Sendable, Equatable {
    public var name: String
    public var size: Int
    public var contentType: String

    public init(name: String, size: Int, contentType: String) {
        self.name = name
        self.size = size
        self.contentType = contentType
    }
}

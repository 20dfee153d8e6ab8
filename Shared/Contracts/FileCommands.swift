import ParseWire

/// The `files` service's commands. File bytes travel in bounded parts, each the raw body of one AMQP message
/// with what describes it in headers (`FileHeaders`), so no message and no process ever holds a whole large file
/// and no byte is re-encoded on the way.
///
/// An upload is a `create` carrying the first part (and marked complete when that part is the whole file), then
/// `append`s for the other parts, which the gateway keeps several of in flight at once, then a `commit` once every
/// part is stored: the file becomes visible only then. A download is an `open` (the description and the first
/// part), or an `info`, then `read`s of byte ranges, several in flight.
public enum FileCommands {
    /// Raw: `FileCreateRequest` headers and the first part; answers `FileUploadState` headers.
    public static let create = "file.create.v2"
    /// Raw: `FileAppendRequest` headers and a part; answers an empty body once the part is stored.
    public static let append = "file.append.v2"
    /// JSON `FileCommitRequest`; answers `FileUploadState`.
    public static let commit = "file.commit.v1"
    public static let abort = "file.abort.v1"
    public static let info = "file.info.v1"
    /// Raw: `FileReadRequest` headers; answers the bytes.
    public static let read = "file.read.v2"
    /// Raw: `FileNameReference.name` in `FileHeaders.name`; answers `FileInfo` headers and the first
    /// `partBytes` bytes (all of a small file): one round trip for a whole small file.
    public static let open = "file.open.v2"
    public static let delete = "file.delete.v1"
    public static let metadata = "file.metadata.v1"

    /// The size of the parts the gateway sends and asks for (see bench/files.md for how it was chosen).
    public static let partBytes = 1 << 20
    /// The largest part the service accepts or reads in one command; larger ones are refused.
    public static let maxPartBytes = 4 << 20
    /// Parts of one transfer in flight at once: while one is stored or read, the next ones are on their way.
    public static let partsInFlight = 4
}

/// `file.create.v2`: starts an upload under the name the client chose; the service applies the upload policy and
/// parse-server's name rules, picks the stored name and answers with it. The first part is the message body.
public struct FileCreateRequest: Sendable, Equatable {
    public var name: String
    /// The request's `Content-Type` header, if any.
    public var contentType: String?
    /// True when the body is the whole file: the file is stored at once.
    public var isComplete: Bool
    /// Parse `File` metadata and tags, when the client sent any (JavaScript SDK uploads).
    public var metadata: JSONValue?
    public var tags: JSONValue?

    public init(name: String, contentType: String?, isComplete: Bool, metadata: JSONValue? = nil,
                tags: JSONValue? = nil) {
        self.name = name
        self.contentType = contentType
        self.isComplete = isComplete
        self.metadata = metadata
        self.tags = tags
    }
}

/// `file.append.v2`: a part of an upload at `offset`; the body is the bytes.
public struct FileAppendRequest: Sendable, Equatable {
    public var uploadId: String
    public var offset: Int

    public init(uploadId: String, offset: Int) {
        self.uploadId = uploadId
        self.offset = offset
    }
}

/// `file.commit.v1`: every part of the upload is stored and they add up to `size` bytes: make the file visible.
public struct FileCommitRequest: Codable, Sendable, Equatable {
    public var uploadId: String
    public var size: Int

    public init(uploadId: String, size: Int) {
        self.uploadId = uploadId
        self.size = size
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

/// `file.read.v2`: bytes `offset ..< offset + length` of a stored file (`length` at most `maxPartBytes`).
public struct FileReadRequest: Sendable, Equatable {
    public var name: String
    public var offset: Int
    public var length: Int

    public init(name: String, offset: Int, length: Int) {
        self.name = name
        self.offset = offset
        self.length = length
    }
}

/// `file.metadata.v1`'s answer: parse-server's `{}` or `{"metadata":{...}}`.
public struct FileMetadata: Codable, Sendable, Equatable {
    public var metadata: JSONValue?

    public init(metadata: JSONValue?) { self.metadata = metadata }
}

/// The payload of `file.stored` and `file.deleted` events.
public struct FileEvent: Codable, Sendable, Equatable {
    public static let storedRoutingKey = "file.stored"
    public static let deletedRoutingKey = "file.deleted"

    public var name: String
    public var size: Int
    public var contentType: String

    public init(name: String, size: Int, contentType: String) {
        self.name = name
        self.size = size
        self.contentType = contentType
    }
}

import ParseWire

/// The AMQP headers that describe the raw file commands and replies of `FileCommands`. Reading them back gives
/// nil for anything missing or malformed, which the service answers as a Parse error.
public enum FileHeaders {
    static let name = "file-name"
    static let contentType = "file-content-type"
    static let isComplete = "file-complete"
    static let metadata = "file-metadata"
    static let tags = "file-tags"
    static let uploadId = "file-upload-id"
    static let offset = "file-offset"
    static let length = "file-length"
    static let size = "file-size"
    static let isStored = "file-stored"
    static let etag = "file-etag"

    /// `file.open.v2`'s request: the stored name.
    public static func naming(_ name: String) -> [String: String] { [Self.name: name] }

    public static func name(in headers: [String: String]) -> String? { headers[name] }

    static func count(_ headers: [String: String], _ key: String) -> Int? {
        guard let text = headers[key], let value = Int(text), value >= 0 else { return nil }
        return value
    }

    static func flag(_ headers: [String: String], _ key: String) -> Bool? {
        switch headers[key] {
        case "1": true
        case "0": false
        default: nil
        }
    }
}

extension FileCreateRequest {
    public var headers: [String: String] {
        var headers = [FileHeaders.name: name, FileHeaders.isComplete: isComplete ? "1" : "0"]
        headers[FileHeaders.contentType] = contentType
        headers[FileHeaders.metadata] = metadata?.compactText
        headers[FileHeaders.tags] = tags?.compactText
        return headers
    }

    public init?(headers: [String: String]) {
        guard let name = headers[FileHeaders.name], let complete = FileHeaders.flag(headers, FileHeaders.isComplete)
        else { return nil }
        var metadata: JSONValue?, tags: JSONValue?
        if let text = headers[FileHeaders.metadata] {
            guard let value = JSONValue.parse(text) else { return nil }
            metadata = value
        }
        if let text = headers[FileHeaders.tags] {
            guard let value = JSONValue.parse(text) else { return nil }
            tags = value
        }
        self.init(name: name, contentType: headers[FileHeaders.contentType], isComplete: complete,
                  metadata: metadata, tags: tags)
    }
}

extension FileAppendRequest {
    public var headers: [String: String] {
        [FileHeaders.uploadId: uploadId, FileHeaders.offset: String(offset)]
    }

    public init?(headers: [String: String]) {
        guard let uploadId = headers[FileHeaders.uploadId], let offset = FileHeaders.count(headers, FileHeaders.offset)
        else { return nil }
        self.init(uploadId: uploadId, offset: offset)
    }
}

extension FileReadRequest {
    public var headers: [String: String] {
        [FileHeaders.name: name, FileHeaders.offset: String(offset), FileHeaders.length: String(length)]
    }

    public init?(headers: [String: String]) {
        guard let name = headers[FileHeaders.name], let offset = FileHeaders.count(headers, FileHeaders.offset),
              let length = FileHeaders.count(headers, FileHeaders.length) else { return nil }
        self.init(name: name, offset: offset, length: length)
    }
}

extension FileUploadState {
    public var headers: [String: String] {
        [FileHeaders.uploadId: uploadId, FileHeaders.name: name, FileHeaders.contentType: contentType,
         FileHeaders.size: String(size), FileHeaders.isStored: isStored ? "1" : "0"]
    }

    public init?(headers: [String: String]) {
        guard let uploadId = headers[FileHeaders.uploadId], let name = headers[FileHeaders.name],
              let contentType = headers[FileHeaders.contentType], let size = FileHeaders.count(headers, FileHeaders.size),
              let stored = FileHeaders.flag(headers, FileHeaders.isStored) else { return nil }
        self.init(uploadId: uploadId, name: name, contentType: contentType, size: size, isStored: stored)
    }
}

extension FileInfo {
    public var headers: [String: String] {
        [FileHeaders.name: name, FileHeaders.size: String(size), FileHeaders.contentType: contentType,
         FileHeaders.etag: etag]
    }

    public init?(headers: [String: String]) {
        guard let name = headers[FileHeaders.name], let size = FileHeaders.count(headers, FileHeaders.size),
              let contentType = headers[FileHeaders.contentType], let etag = headers[FileHeaders.etag] else {
            return nil
        }
        self.init(name: name, size: size, contentType: contentType, etag: etag)
    }
}

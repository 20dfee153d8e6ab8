import Contracts
@testable import FilesCore
@testable import Messaging
import ParseWire
import Runtime
import Storage
import Testing

/// The refusals a raw part meets before anything is stored: Parse errors, whatever the headers and the size.
struct FileCommandHandlerTests {
    /// A pool that is never reached: every case here is refused before the database.
    static let handler = FileCommandHandler(
        store: FileStore(pool: PostgresPool(configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/x"),
                                            logger: Logger(service: "files-tests", level: .error))),
        policy: FileUploadPolicy())

    static func command(_ type: String, headers: [String: String], body: [UInt8] = [],
                        identity: Identity = Identity(userId: "u1")) -> RawCommand {
        RawCommand(type: type, requestId: "r1", identity: identity, headers: headers, body: body)
    }

    static let create = FileCreateRequest(name: "a.bin", contentType: nil, isComplete: false)

    @Test func missingOrBrokenHeadersAreMalformedCommands() async {
        let cases: [(String, [String: String])] = [
            (FileCommands.create, [:]),
            (FileCommands.create, ["file-name": "a.bin", "file-complete": "yes"]),
            (FileCommands.create, Self.create.headers.merging(["file-metadata": "{not json"]) { $1 }),
            (FileCommands.append, ["file-upload-id": "0b0e5f4e-2f5e-4f5c-9d1e-7f1f6f4a0c11", "file-offset": "-1"]),
            (FileCommands.read, ["file-name": "a.bin", "file-offset": "0"]),
            (FileCommands.open, [:]),
        ]
        for (type, headers) in cases {
            await #expect(throws: ParseError(.invalidJSON, "Malformed \(type) command.")) {
                let command = Self.command(type, headers: headers, body: [1])
                switch type {
                case FileCommands.create: _ = try await Self.handler.create(command)
                case FileCommands.append: _ = try await Self.handler.append(command)
                case FileCommands.read: _ = try await Self.handler.read(command)
                default: _ = try await Self.handler.open(command)
                }
            }
        }
    }

    @Test func oversizedPartsAreRefused() async {
        let oversized = [UInt8](repeating: 7, count: FileCommands.maxPartBytes + 1)
        await #expect(throws: ParseError(.fileSaveError, "Could not store file.")) {
            _ = try await Self.handler.create(Self.command(FileCommands.create, headers: Self.create.headers,
                                                           body: oversized))
        }
        let append = FileAppendRequest(uploadId: "0b0e5f4e-2f5e-4f5c-9d1e-7f1f6f4a0c11", offset: 0)
        await #expect(throws: ParseError(.fileSaveError, "Could not store file.")) {
            _ = try await Self.handler.append(Self.command(FileCommands.append, headers: append.headers, body: oversized))
        }
        let read = FileReadRequest(name: "a.bin", offset: 0, length: FileCommands.maxPartBytes + 1)
        await #expect(throws: ParseError(.invalidQuery, "Invalid byte range.")) {
            _ = try await Self.handler.read(Self.command(FileCommands.read, headers: read.headers))
        }
    }

    @Test func emptyAndPublicUploadsAreRefusedAsParseServerDoes() async {
        await #expect(throws: ParseError(.fileSaveError, "Invalid file upload.")) {
            _ = try await Self.handler.create(Self.command(FileCommands.create, headers: Self.create.headers))
        }
        await #expect(throws: ParseError(.fileSaveError, "File upload by public is disabled.")) {
            _ = try await Self.handler.create(Self.command(FileCommands.create, headers: Self.create.headers, body: [1],
                                                           identity: .anonymous))
        }
    }

    @Test func headersReadBackWhatWasWritten() {
        let create = FileCreateRequest(name: "a b.txt", contentType: "text/plain", isComplete: true,
                                       metadata: .object(["owner": .string("js")]), tags: nil)
        #expect(FileCreateRequest(headers: create.headers) == create)
        let state = FileUploadState(uploadId: "u", name: "n", contentType: "t", size: 12, isStored: true)
        #expect(FileUploadState(headers: state.headers) == state)
        let info = FileInfo(name: "n", size: 3, contentType: "image/png", etag: "\"abc\"")
        #expect(FileInfo(headers: info.headers) == info)
        let read = FileReadRequest(name: "n", offset: 5, length: 9)
        #expect(FileReadRequest(headers: read.headers) == read)
    }
}

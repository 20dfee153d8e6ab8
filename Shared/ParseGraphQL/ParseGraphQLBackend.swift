import GraphQL
import ParseWire

/// How the GraphQL API reaches the data: Parse REST calls made as the client who sent the GraphQL request (its
/// keys and session), answered by the same services, ACLs, class-level permissions and triggers as REST. A failure
/// is thrown as the `ParseError` REST would answer.
public protocol ParseGraphQLBackend: Sendable {
    /// The answer's body of `method path` with `query` as its query string and `body` as its JSON body.
    func rest(_ method: String, _ path: String, query: [String: String], body: JSONValue?) async throws -> JSONValue
    /// A Cloud Code function's result (`POST /functions/<name>`'s `result`).
    func runFunction(_ name: String, params: JSONValue) async throws -> JSONValue
    /// A new file's `{"name", "url"}` (`POST /files/<name>`).
    func uploadFile(name: String, contentType: String?, bytes: [UInt8]) async throws -> JSONValue
    /// A new password set with the token of a reset mail (the reset page's form, as a script posts it).
    func resetPassword(username: String, token: String, password: String) async throws
    /// The same calls made for the user of `sessionToken` (signed up or logged in by this request).
    func actingFor(sessionToken: String) async throws -> any ParseGraphQLBackend
    /// The session token the calls carry, if any.
    var sessionToken: String? { get }
}

extension ParseGraphQLBackend {
    func get(_ path: String, query: [String: String] = [:]) async throws -> JSONValue {
        try await rest("GET", path, query: query, body: nil)
    }
}

/// A file sent beside the operation in a GraphQL multipart request.
public struct GraphQLUpload: Sendable {
    public var filename: String
    public var contentType: String?
    public var bytes: [UInt8]

    public init(filename: String, contentType: String?, bytes: [UInt8]) {
        self.filename = filename
        self.contentType = contentType
        self.bytes = bytes
    }

    /// What stands for upload `index` in the operation's variables, for the `Upload` scalar to take.
    public static func placeholder(_ index: Int) -> JSONValue { .object(["__upload": .number(Double(index))]) }
}

/// What every resolver of one request gets (`GraphQLResolveInfo.context`).
struct ParseGraphQLContext: Sendable {
    let backend: any ParseGraphQLBackend
    let classes: ParseClassDirectory
    var uploads: [GraphQLUpload] = []

    /// The upload a coerced `Upload` value stands for.
    func upload(_ value: GraphQLData?) throws -> GraphQLUpload {
        guard case .int(let index)? = value?["__upload"], uploads.indices.contains(index) else {
            throw ParseError(.fileSaveError, "Invalid file upload.")
        }
        return uploads[index]
    }
}

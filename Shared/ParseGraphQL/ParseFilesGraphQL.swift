import Foundation
import GraphQL
import ParseWire

/// `createFile(input: {upload})`, parse-server's `filesMutations`: the file sent in the GraphQL multipart request
/// is stored as `POST /files/<name>` stores it, its name given the extension of its type when it has none.
enum ParseFilesGraphQL {
    static var createFile: (types: [GraphQLNamedType], field: GraphQLFieldDefinition) {
        RelayMutation.make("createFile", typeName: "CreateFile", description: "The createFile mutation can be used to create and upload a new file.",
            inputFields: [GraphQLArgumentDefinition("upload", ParseGraphQLDefaultTypes.nonNull("Upload"), description: "This is the new file to be created and uploaded.")],
            outputFields: [GraphQLFieldDefinition("fileInfo", ParseGraphQLDefaultTypes.nonNull("FileInfo"), description: "This is the created file info.")]) { input, _, context in
            let upload = try context.upload(input["upload"])
            let info = try await store(upload, context: context)
            return [GraphQLObjectMember("fileInfo", GraphQLData(json: info))]
        }
    }

    static func store(_ upload: GraphQLUpload, context: ParseGraphQLContext) async throws -> JSONValue {
        var name = upload.filename
        if let ending = upload.contentType.flatMap(extensionOf), !name.hasSuffix(".\(ending)") { name += ".\(ending)" }
        return try await context.backend.uploadFile(name: name, contentType: upload.contentType, bytes: upload.bytes)
    }

    /// The usual extension of a media type (`image/png` -> `png`), as the `mime` package gives it for the common ones.
    static func extensionOf(_ contentType: String) -> String? {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return knownExtensions[type]
    }

    private static let knownExtensions: [String: String] = [
        "text/plain": "txt", "text/html": "html", "text/css": "css", "text/csv": "csv", "application/json": "json",
        "application/javascript": "js", "text/javascript": "js", "application/pdf": "pdf", "application/zip": "zip",
        "application/xml": "xml", "text/xml": "xml", "application/octet-stream": "bin", "image/png": "png",
        "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg", "image/bmp": "bmp",
        "audio/mpeg": "mpga", "audio/wav": "wav", "video/mp4": "mp4", "video/webm": "webm",
    ]
}

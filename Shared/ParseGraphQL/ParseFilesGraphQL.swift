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
        if let ending = upload.contentType.flatMap(MimeTypes.fileExtension), !name.hasSuffix(".\(ending)") { name += ".\(ending)" }
        return try await context.backend.uploadFile(name: name, contentType: upload.contentType, bytes: upload.bytes)
    }
}

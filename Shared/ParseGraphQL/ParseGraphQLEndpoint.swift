import GraphQL
import ParseWire
import Synchronization

/// Runs GraphQL requests against the schema of the Parse schema they are sent with. The schema is rebuilt only when
/// the Parse schema or the Cloud Code functions changed since the last request, so a new class or field is in the
/// next request's schema, with no restart.
public final class ParseGraphQLEndpoint: Sendable {
    private struct Built: Sendable {
        let key: String
        let classes: ParseClassDirectory
        let executor: GraphQLExecutor
    }

    private let built = Mutex<Built?>(nil)

    public init() {}

    /// `schemas`: `GET /schemas`' answer as the master key reads it; `functionNames`: Cloud Code's functions.
    public func execute(_ request: GraphQLRequest, schemas: JSONValue, functionNames: [String],
                        backend: any ParseGraphQLBackend, uploads: [GraphQLUpload] = []) async -> GraphQLResponse {
        let current = schema(schemas: schemas, functionNames: functionNames)
        let context = ParseGraphQLContext(backend: backend, classes: current.classes, uploads: uploads)
        return await current.executor.execute(request, context: context)
    }

    private func schema(schemas: JSONValue, functionNames: [String]) -> Built {
        let key = schemas.compactText + "\n" + functionNames.sorted().joined(separator: ",")
        if let cached = built.withLock({ $0 }), cached.key == key { return cached }
        let classes = ParseClassDirectory(schemasAnswer: schemas)
        let schema = ParseGraphQLSchemaBuilder(classes: classes, functionNames: functionNames.sorted()).build()
        let fresh = Built(key: key, classes: classes, executor: GraphQLExecutor(schema: schema))
        built.withLock { $0 = fresh }
        return fresh
    }
}

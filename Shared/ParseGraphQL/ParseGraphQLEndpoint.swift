import GraphQL
import ParseWire

/// Runs GraphQL requests against the schema of the Parse schema and Cloud Code's functions. Reading those costs
/// two calls, so the schema built from them is kept and a request is checked against it first:
/// - a document valid against the kept schema runs on it: every class, field and function it names existed when
///   the schema was read, and still exists unless it was removed since;
/// - a document it refuses (a new class, field or function) is checked again against the schema read now, so
///   whatever a write added is in the next request's schema, with no restart;
/// - introspection always reads the schema now, so a client's view of the schema is never behind;
/// - the kept schema is read again once it is `maximumAge` old, which bounds how long a removed field is still
///   offered (it then reads as null).
public final class ParseGraphQLEndpoint: Sendable {
    /// `GET /schemas`' answer as the master key reads it, and Cloud Code's function names.
    public typealias SchemaSource = @Sendable () async throws -> (schemas: JSONValue, functionNames: [String])

    private let cache: SchemaCache

    public init(maximumAge: Duration = .seconds(1)) {
        cache = SchemaCache(maximumAge: maximumAge)
    }

    /// `limits`: the bounds on the document's depth and fields (none for the master key).
    public func execute(_ request: GraphQLRequest, backend: any ParseGraphQLBackend, uploads: [GraphQLUpload] = [],
                        limits: GraphQLLimits = .none, schema source: @escaping SchemaSource) async -> GraphQLResponse {
        let arrived = ContinuousClock.now
        let document: GraphQLDocument
        do {
            document = try GraphQLParser.parse(request.query)
        } catch {
            return GraphQLResponse(data: nil, errors: [GraphQLError(error)])
        }
        let built: SchemaCache.Built
        if !document.selects(anyOf: ["__schema", "__type"]), let kept = await cache.kept(), kept.executor.validate(document).isEmpty {
            built = kept
        } else {
            do {
                built = try await cache.readNow(source, notStartedBefore: arrived)
            } catch {
                return GraphQLResponse(data: nil, errors: [ParseGraphQLErrors.reported(error)])
            }
            let errors = built.executor.validate(document)
            guard errors.isEmpty else { return GraphQLResponse(data: nil, errors: errors) }
        }
        if let refusal = limits.refusal(of: document, operationName: request.operationName) {
            return GraphQLResponse(data: nil, errors: [ParseGraphQLErrors.reported(ParseError(.invalidQuery, refusal.message))])
        }
        let context = ParseGraphQLContext(backend: backend, classes: built.classes, uploads: uploads)
        return await built.executor.execute(document, operationName: request.operationName, variables: request.variables,
                                            context: context, validated: true)
    }
}

/// The schema as last read, and the read under way: requests that need the schema read now share a read that
/// started after they arrived (one that started before might miss what they wrote just before).
actor SchemaCache {
    struct Built: Sendable {
        let key: String
        let classes: ParseClassDirectory
        let executor: GraphQLExecutor
        let readAt: ContinuousClock.Instant
    }

    private let maximumAge: Duration
    private var built: Built?
    private var reading: (task: Task<Built, any Error>, started: ContinuousClock.Instant)?

    init(maximumAge: Duration) {
        self.maximumAge = maximumAge
    }

    /// The schema as last read, unless it is too old.
    func kept() -> Built? {
        guard let built, ContinuousClock.now - built.readAt < maximumAge else { return nil }
        return built
    }

    func readNow(_ source: @escaping ParseGraphQLEndpoint.SchemaSource,
                 notStartedBefore arrived: ContinuousClock.Instant) async throws -> Built {
        if let reading, reading.started >= arrived { return try await reading.task.value }
        let previous = built
        let started = ContinuousClock.now
        let task = Task<Built, any Error> {
            let (schemas, functionNames) = try await source()
            let names = functionNames.sorted()
            let key = schemas.compactText + "\n" + names.joined(separator: ",")
            // Unchanged: the schema already built serves, only its age starts again.
            if let previous, previous.key == key {
                return Built(key: key, classes: previous.classes, executor: previous.executor, readAt: started)
            }
            let classes = ParseClassDirectory(schemasAnswer: schemas)
            let schema = ParseGraphQLSchemaBuilder(classes: classes, functionNames: names).build()
            return Built(key: key, classes: classes, executor: GraphQLExecutor(schema: schema), readAt: started)
        }
        reading = (task, started)
        let fresh: Built
        do {
            fresh = try await task.value
        } catch {
            if reading?.started == started { reading = nil }
            throw error
        }
        if reading?.started == started { reading = nil }
        if fresh.readAt >= built?.readAt ?? fresh.readAt { built = fresh }
        return fresh
    }
}

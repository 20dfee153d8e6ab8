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

/// The schema as last read, and its reads: one at a time, so however many requests need the schema read now, the
/// services read it at most once at a time. A request shares the read under way if it started after the request
/// arrived (one that started before might miss what the request's client wrote just before); otherwise it shares
/// the next read, which starts when the one under way ends.
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
    private var next: Task<Built, any Error>?

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
        let shared: Task<Built, any Error>
        if let reading, reading.started >= arrived {
            shared = reading.task
        } else if let next {
            shared = next
        } else if let current = reading?.task {
            shared = Task {
                _ = try? await current.value
                return try await self.read(source).value
            }
            next = shared
        } else {
            shared = read(source)
        }
        let fresh = try await shared.value
        if fresh.readAt >= built?.readAt ?? fresh.readAt { built = fresh }
        return fresh
    }

    /// Starts a read now, as the one under way; the schema is built again only when what was read changed.
    private func read(_ source: @escaping ParseGraphQLEndpoint.SchemaSource) -> Task<Built, any Error> {
        next = nil
        let previous = built
        let started = ContinuousClock.now
        let task = Task<Built, any Error> {
            let (schemas, functionNames) = try await source()
            let names = functionNames.sorted()
            let key = schemas.compactText + "\n" + names.joined(separator: ",")
            if let previous, previous.key == key {
                return Built(key: key, classes: previous.classes, executor: previous.executor, readAt: started)
            }
            let classes = ParseClassDirectory(schemasAnswer: schemas)
            let schema = ParseGraphQLSchemaBuilder(classes: classes, functionNames: names).build()
            return Built(key: key, classes: classes, executor: GraphQLExecutor(schema: schema), readAt: started)
        }
        reading = (task, started)
        Task { await self.finished(task, started: started) }
        return task
    }

    private func finished(_ task: Task<Built, any Error>, started: ContinuousClock.Instant) async {
        _ = await task.result
        if reading?.started == started { reading = nil }
    }
}

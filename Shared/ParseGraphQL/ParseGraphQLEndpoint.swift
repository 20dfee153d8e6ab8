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
    public typealias SchemaSource = @Sendable () async throws -> ParseGraphQLInputs

    private let cache: SchemaCache

    public init(maximumAge: Duration = .seconds(1)) {
        cache = SchemaCache(maximumAge: maximumAge)
    }

    /// `limits`: the bounds on the document's depth and fields (none for the master key).
    public func execute(_ request: GraphQLRequest, backend: any ParseGraphQLBackend, uploads: [GraphQLUpload] = [],
                        limits: GraphQLLimits = .none, schema source: @escaping SchemaSource) async -> GraphQLResponse {
        let built: SchemaCache.Built, document: GraphQLDocument
        switch await prepare(request, limits: limits, schema: source) {
        case .failure(let refusal): return refusal.response
        case .success(let prepared): (built, document) = prepared
        }
        if (try? GraphQLExecutor.operation(in: document, named: request.operationName))?.type == .subscription {
            return GraphQLResponse(data: nil, errors: [GraphQLError(
                "Subscriptions are served over WebSocket, with the graphql-transport-ws protocol, at this path.")])
        }
        let context = ParseGraphQLContext(backend: backend, classes: built.classes, uploads: uploads)
        return await built.executor.execute(document, operationName: request.operationName, variables: request.variables,
                                            context: context, validated: true)
    }

    /// A subscription operation checked as `execute` checks a request, and its root field read: the class whose
    /// events it follows, and which of them.
    public func subscribe(_ request: GraphQLRequest, limits: GraphQLLimits = .none,
                          schema source: @escaping SchemaSource) async -> Result<ParseGraphQLSubscription, Refusal> {
        let built: SchemaCache.Built, document: GraphQLDocument
        switch await prepare(request, limits: limits, schema: source) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let prepared): (built, document) = prepared
        }
        let field: GraphQLSubscriptionField
        do {
            field = try built.executor.subscriptionField(document, operationName: request.operationName, variables: request.variables)
        } catch {
            return .failure(Refusal(errors: [error]))
        }
        guard let parseClass = built.classes.classes.first(where: { ParseSubscriptionsGraphQL.fieldName(of: $0) == field.name }) else {
            return .failure(Refusal(errors: [GraphQLError("Unknown subscription \"\(field.name)\".")]))
        }
        let constraints = ParseWhereTranslation(classes: built.classes).parseWhere(field.arguments["where"], className: parseClass.className)
        let events: Set<String>? = if case .list(let names)? = field.arguments["events"] {
            Set(names.compactMap { $0.stringValue?.lowercased() })
        } else { nil }
        let watch: [String]? = if case .list(let names)? = field.arguments["watch"] { names.compactMap(\.stringValue) } else { nil }
        return .success(ParseGraphQLSubscription(className: parseClass.className, constraints: constraints, events: events, watch: watch,
                                                 document: document, operationName: request.operationName,
                                                 variables: request.variables, executor: built.executor, classes: built.classes))
    }

    /// Why a document does not run: the errors of its answer, which has no data.
    public struct Refusal: Error, Sendable {
        public let errors: [GraphQLError]

        public var response: GraphQLResponse { GraphQLResponse(data: nil, errors: errors) }
    }

    /// The document parsed, and the schema of the moment it is valid against, within `limits`.
    private func prepare(_ request: GraphQLRequest, limits: GraphQLLimits,
                         schema source: @escaping SchemaSource) async -> Result<(SchemaCache.Built, GraphQLDocument), Refusal> {
        let arrived = ContinuousClock.now
        let document: GraphQLDocument
        do {
            document = try GraphQLParser.parse(request.query)
        } catch {
            return .failure(Refusal(errors: [GraphQLError(error)]))
        }
        let built: SchemaCache.Built
        if !document.selects(anyOf: ["__schema", "__type"]), let kept = await cache.kept(), kept.executor.validate(document).isEmpty {
            built = kept
        } else {
            do {
                built = try await cache.readNow(source, notStartedBefore: arrived)
            } catch {
                return .failure(Refusal(errors: [ParseGraphQLErrors.reported(error)]))
            }
            let errors = built.executor.validate(document)
            guard errors.isEmpty else { return .failure(Refusal(errors: errors)) }
        }
        if let refusal = limits.refusal(of: document, operationName: request.operationName) {
            return .failure(Refusal(errors: [ParseGraphQLErrors.reported(ParseError(.invalidQuery, refusal.message))]))
        }
        return .success((built, document))
    }
}

/// What the GraphQL schema is made from, each read with the master key: `GET /schemas`' answer, Cloud Code's
/// function names and the GraphQL configuration (`GET /graphql-config`).
public struct ParseGraphQLInputs: Sendable {
    public var schemas: JSONValue
    public var functionNames: [String]
    public var config: JSONValue

    public init(schemas: JSONValue, functionNames: [String] = [], config: JSONValue = .object([:])) {
        self.schemas = schemas
        self.functionNames = functionNames
        self.config = config
    }

    /// The three read side by side, `read(path)` answering a master-key `GET` of the Parse route `path`.
    public static func read(_ read: @escaping @Sendable (String) async throws -> JSONValue) async throws -> ParseGraphQLInputs {
        async let schemas = read("schemas")
        async let functions = read("cloud_code/functions")
        async let config = read("graphql-config")
        return try await ParseGraphQLInputs(schemas: schemas, functionNames: (functions["results"]?.arrayValue ?? []).compactMap(\.stringValue),
                                            config: config)
    }
}

/// The schema as last read, and its reads: one at a time, so however many requests need the schema read now, the
/// services read it at most once at a time. A request shares the read under way if it started after the request
/// arrived (one that started before might miss what the request's client wrote just before); otherwise it waits
/// for the next read, which one of the waiting requests makes when the read under way ends. The reads are made by
/// the requests themselves: no task outlives them.
actor SchemaCache {
    struct Built: Sendable {
        let key: String
        let classes: ParseClassDirectory
        let executor: GraphQLExecutor
        let readAt: ContinuousClock.Instant
    }

    /// What a waiting request is told when a read ends: the read's outcome, or that it makes the next read.
    private enum Turn {
        case outcome(Result<Built, any Error>)
        case read
    }

    private let maximumAge: Duration
    private var built: Built?
    /// When the read under way started; nil when none is.
    private var readStarted: ContinuousClock.Instant?
    private var sharingThisRead: [CheckedContinuation<Turn, Never>] = []
    private var waitingForTheNext: [CheckedContinuation<Turn, Never>] = []

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
        if let started = readStarted {
            let turn = await withCheckedContinuation { (waiter: CheckedContinuation<Turn, Never>) in
                if started >= arrived { sharingThisRead.append(waiter) } else { waitingForTheNext.append(waiter) }
            }
            if case .outcome(let outcome) = turn { return try outcome.get() }
        } else {
            readStarted = .now
        }
        let started = readStarted ?? .now
        let outcome: Result<Built, any Error>
        do {
            outcome = .success(try await Self.read(source, previous: built, started: started))
        } catch {
            outcome = .failure(error)
        }
        if case .success(let fresh) = outcome, fresh.readAt >= built?.readAt ?? fresh.readAt { built = fresh }
        for waiter in sharingThisRead { waiter.resume(returning: .outcome(outcome)) }
        sharingThisRead = []
        readStarted = nil
        if !waitingForTheNext.isEmpty {
            // The first of those waiting makes the next read; the others share it (it starts after they arrived).
            let reader = waitingForTheNext.removeFirst()
            sharingThisRead = waitingForTheNext
            waitingForTheNext = []
            readStarted = .now
            reader.resume(returning: .read)
        }
        return try outcome.get()
    }

    /// The schema made from what `source` reads now; the one already built when nothing changed.
    private static func read(_ source: ParseGraphQLEndpoint.SchemaSource, previous: Built?,
                             started: ContinuousClock.Instant) async throws -> Built {
        let inputs = try await source()
        let names = inputs.functionNames.sorted()
        let key = [inputs.schemas.compactText, names.joined(separator: ","), inputs.config.compactText].joined(separator: "\n")
        if let previous, previous.key == key {
            return Built(key: key, classes: previous.classes, executor: previous.executor, readAt: started)
        }
        let classes = ParseClassDirectory(schemasAnswer: inputs.schemas)
        let schema = ParseGraphQLSchemaBuilder(classes: classes, functionNames: names, config: ParseGraphQLConfig(stored: inputs.config)).build()
        return Built(key: key, classes: classes, executor: GraphQLExecutor(schema: schema), readAt: started)
    }
}

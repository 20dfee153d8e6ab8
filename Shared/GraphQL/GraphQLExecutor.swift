import Synchronization

/// A request as clients send it: the document, which of its operations to run, and the variables' values.
public struct GraphQLRequest: Sendable {
    public var query: String
    public var operationName: String?
    public var variables: [String: GraphQLData]

    public init(query: String, operationName: String? = nil, variables: [String: GraphQLData] = [:]) {
        self.query = query
        self.operationName = operationName
        self.variables = variables
    }
}

/// `{"errors": [...], "data": ...}`: data absent when the request failed before execution, null when a non-null
/// root field failed.
public struct GraphQLResponse: Sendable {
    public var data: GraphQLData?
    public var errors: [GraphQLError]

    public init(data: GraphQLData?, errors: [GraphQLError]) {
        self.data = data
        self.errors = errors
    }

    public var jsonText: String {
        var members: [GraphQLObjectMember] = []
        if !errors.isEmpty { members.append(GraphQLObjectMember("errors", .list(errors.map(\.data)))) }
        if let data { members.append(GraphQLObjectMember("data", data)) }
        return GraphQLData.object(members).jsonText
    }
}

/// Runs requests against a schema (the specification's "Execution"): the operation chosen, its variables
/// coerced, the document validated (`GraphQLValidator`), then its fields resolved one after the other (as a
/// mutation's must be), each value completed to its type, a field error nulling the nearest nullable field.
public struct GraphQLExecutor: Sendable {
    public let schema: GraphQLSchema

    public init(schema: GraphQLSchema) {
        self.schema = schema
    }

    /// `context`: what every resolver of this request gets in its `info` (who asks, how to reach the data).
    public func execute(_ request: GraphQLRequest, root: any Sendable = GraphQLData.null,
                        context: any Sendable = GraphQLData.null) async -> GraphQLResponse {
        let document: GraphQLDocument
        do {
            document = try GraphQLParser.parse(request.query)
        } catch {
            return GraphQLResponse(data: nil, errors: [GraphQLError(error)])
        }
        return await execute(document, operationName: request.operationName, variables: request.variables, root: root,
                             context: context)
    }

    /// The errors that keep `document` from running against this schema (none: it is valid).
    public func validate(_ document: GraphQLDocument) -> [GraphQLError] {
        GraphQLValidator(schema: schema, document: document).errors()
    }

    /// `validated`: `validate(document)` found nothing already, so it is not checked again.
    public func execute(_ document: GraphQLDocument, operationName: String?, variables: [String: GraphQLData],
                        root: any Sendable = GraphQLData.null, context: any Sendable = GraphQLData.null,
                        validated: Bool = false) async -> GraphQLResponse {
        let validation = validated ? [] : validate(document)
        guard validation.isEmpty else { return GraphQLResponse(data: nil, errors: validation) }
        let operation: GraphQLOperation
        let coerced: [String: GraphQLData]
        do {
            operation = try Self.operation(in: document, named: operationName)
            coerced = try coerceVariables(operation, variables)
        } catch {
            return GraphQLResponse(data: nil, errors: [error])
        }
        let rootTypeName = switch operation.type {
        case .query: schema.queryType
        case .mutation: schema.mutationType
        case .subscription: schema.subscriptionType
        }
        guard let rootTypeName, let rootType = schema[rootTypeName] else {
            return GraphQLResponse(data: nil, errors: [GraphQLError("Schema is not configured to execute \(operation.type.rawValue) operation.",
                                                                    locations: [operation.location])])
        }
        let run = Execution(schema: schema, fragments: Dictionary(document.fragments.map { ($0.name, $0) }) { first, _ in first },
                            variables: coerced, context: context, concurrent: operation.type != .mutation)
        let data: GraphQLData
        do {
            data = try await run.selectionSet(operation.selectionSet, of: rootType, source: root, path: [], at: [operation.location])
        } catch {
            data = .null
        }
        return GraphQLResponse(data: data, errors: run.errors.withLock { $0 })
    }

    public static func operation(in document: GraphQLDocument, named name: String?) throws(GraphQLError) -> GraphQLOperation {
        let operations = document.operations
        if let name {
            guard let operation = operations.first(where: { $0.name == name }) else {
                throw GraphQLError("Unknown operation named \"\(name)\".")
            }
            return operation
        }
        guard operations.count == 1 else {
            throw GraphQLError(operations.isEmpty ? "Must provide an operation."
                                                  : "Must provide operation name if query contains multiple operations.")
        }
        return operations[0]
    }

    /// The specification's `CoerceVariableValues`.
    func coerceVariables(_ operation: GraphQLOperation,
                                 _ given: [String: GraphQLData]) throws(GraphQLError) -> [String: GraphQLData] {
        let coercion = GraphQLInputCoercion(schema: schema)
        var coerced: [String: GraphQLData] = [:]
        for definition in operation.variables {
            let what = "Variable \"$\(definition.name)\""
            if let value = given[definition.name] {
                coerced[definition.name] = try coercion.external(value, as: definition.type, at: definition.location,
                                                                 describing: what)
            } else if let defaultValue = definition.defaultValue {
                coerced[definition.name] = try coercion.literal(defaultValue, as: definition.type, variables: [:],
                                                                at: definition.location)
            } else if case .nonNull = definition.type {
                throw GraphQLError("\(what) of required type \"\(definition.type)\" was not provided.",
                                   locations: [definition.location])
            }
        }
        return coerced
    }
}

/// Fields by response key, in the order the keys were first seen.
struct GroupedFields {
    private(set) var entries: [(key: String, fields: [GraphQLField])] = []
    private var positions: [String: Int] = [:]

    mutating func add(_ field: GraphQLField) {
        if let position = positions[field.responseKey] {
            entries[position].fields.append(field)
        } else {
            positions[field.responseKey] = entries.count
            entries.append((field.responseKey, [field]))
        }
    }
}

/// A field that must be null, its error recorded: the nearest nullable field above becomes null.
struct NullPropagation: Error {}

/// One request's execution: its errors are gathered as its fields run.
final class Execution: Sendable {
    let schema: GraphQLSchema
    let fragments: [String: GraphQLFragment]
    let variables: [String: GraphQLData]
    let context: any Sendable
    /// Not a mutation, whose fields must run one after the other: fields that wait may run together.
    let concurrent: Bool
    let errors = Mutex<[GraphQLError]>([])
    /// How many objects of one list are completed at once when their selection waits.
    static let listWidth = 8
    private let collectedFields = Mutex<[CollectedKey: GroupedFields]>([:])

    private struct CollectedKey: Hashable {
        let type: String
        let locations: [GraphQLLocation]
    }

    init(schema: GraphQLSchema, fragments: [String: GraphQLFragment], variables: [String: GraphQLData],
         context: any Sendable, concurrent: Bool = false) {
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.context = context
        self.concurrent = concurrent
    }

    private func record(_ error: GraphQLError) { errors.withLock { $0.append(error) } }

    /// `locations`: where the fields (or the operation) whose selection this is are, which names the selection in
    /// the document.
    func selectionSet(_ selections: [GraphQLSelection], of type: GraphQLNamedType, source: any Sendable,
                      path: [GraphQLPathElement], at locations: [GraphQLLocation]) async throws(NullPropagation) -> GraphQLData {
        let grouped = collected(selections, of: type, at: locations)
        if concurrent, grouped.entries.count > 1, waits(grouped, on: type) {
            // Each field beside the others; the object keeps the selection's order, and a non-null field's error
            // nulls it once all have ended.
            let values = await withTaskGroup(of: (Int, Result<GraphQLData, NullPropagation>).self) { group in
                for (index, entry) in grouped.entries.enumerated() {
                    group.addTask {
                        do throws(NullPropagation) {
                            return (index, .success(try await self.field(entry.fields, of: type, source: source, path: path + [.key(entry.key)])))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                var values = [Result<GraphQLData, NullPropagation>](repeating: .success(.null), count: grouped.entries.count)
                for await (index, value) in group { values[index] = value }
                return values
            }
            var members: [GraphQLObjectMember] = []
            for (entry, value) in zip(grouped.entries, values) { members.append(GraphQLObjectMember(entry.key, try value.get())) }
            return .object(members)
        }
        var members: [GraphQLObjectMember] = []
        for (key, fields) in grouped.entries {
            let value = try await field(fields, of: type, source: source, path: path + [.key(key)])
            members.append(GraphQLObjectMember(key, value))
        }
        return .object(members)
    }

    /// Whether a field of the selection on `type` waits (`GraphQLFieldDefinition.waits`).
    private func waits(_ grouped: GroupedFields, on type: GraphQLNamedType) -> Bool {
        grouped.entries.contains { schema.field($0.fields[0].name, on: type)?.waits == true }
    }

    /// The fields of `selections` on `type`, collected once per request: every object of a list is completed with the
    /// same selection.
    private func collected(_ selections: [GraphQLSelection], of type: GraphQLNamedType,
                           at locations: [GraphQLLocation]) -> GroupedFields {
        let key = CollectedKey(type: type.name, locations: locations)
        if let known = collectedFields.withLock({ $0[key] }) { return known }
        var visited = Set<String>()
        var grouped = GroupedFields()
        collect(selections, of: type, into: &grouped, visited: &visited)
        collectedFields.withLock { $0[key] = grouped }
        return grouped
    }

    /// The specification's `CollectFields`: the fields to run, by response key in the order first seen, with
    /// `@skip`/`@include` applied and fragments whose type condition applies merged in.
    func collect(_ selections: [GraphQLSelection], of type: GraphQLNamedType,
                 into grouped: inout GroupedFields, visited: inout Set<String>) {
        for selection in selections {
            switch selection {
            case .field(let field):
                guard GraphQLDirective.include(field.directives, variables: variables) else { continue }
                grouped.add(field)
            case .fragmentSpread(let name, let directives, _):
                guard GraphQLDirective.include(directives, variables: variables), !visited.contains(name), let fragment = fragments[name] else { continue }
                visited.insert(name)
                guard applies(fragment.typeCondition, to: type) else { continue }
                collect(fragment.selectionSet, of: type, into: &grouped, visited: &visited)
            case .inlineFragment(let condition, let directives, let selectionSet, _):
                guard GraphQLDirective.include(directives, variables: variables), condition.map({ applies($0, to: type) }) ?? true else { continue }
                collect(selectionSet, of: type, into: &grouped, visited: &visited)
            }
        }
    }

    private func applies(_ condition: String, to type: GraphQLNamedType) -> Bool {
        if condition == type.name { return true }
        guard let abstract = schema[condition] else { return false }
        return schema.possibleTypes(of: abstract).contains(type.name)
    }

    private func field(_ fields: [GraphQLField], of type: GraphQLNamedType, source: any Sendable,
                       path: [GraphQLPathElement]) async throws(NullPropagation) -> GraphQLData {
        let node = fields[0]
        if node.name == "__typename" { return .string(type.name) }
        guard let definition = schema.field(node.name, on: type) else {
            // The validator refuses such a document; a schema changed between the two would reach here.
            record(GraphQLError("Cannot query field \"\(node.name)\" on type \"\(type.name)\".", locations: [node.location], path: path))
            return .null
        }
        let resolved: any Sendable
        do {
            if let resolve = definition.resolve {
                let arguments = try self.arguments(definition.arguments, given: node.arguments, at: node.location)
                let info = GraphQLResolveInfo(fieldName: node.name, path: path, parentType: type.name, schema: schema,
                                              fieldNodes: fields, variables: variables, fragments: fragments,
                                              context: context)
                resolved = try await resolve(source, arguments, info)
            } else {
                resolved = (source as? GraphQLData)?[node.name] ?? GraphQLData.null
            }
        } catch {
            record(Self.fieldError(error, fields: fields, path: path))
            if case .nonNull = definition.type { throw NullPropagation() }
            return .null
        }
        return try await complete(resolved, as: definition.type, fields: fields, parent: type.name, path: path)
    }

    static func fieldError(_ error: any Error, fields: [GraphQLField], path: [GraphQLPathElement]) -> GraphQLError {
        let locations = [fields[0].location]
        switch error {
        case var known as GraphQLError:
            if known.locations.isEmpty { known.locations = locations }
            known.path = path
            return known
        case let reportable as any GraphQLReportableError:
            return GraphQLError(reportable.graphQLMessage, locations: locations, path: path, extensions: reportable.graphQLExtensions)
        default:
            return GraphQLError("\(error)", locations: locations, path: path)
        }
    }

    /// The specification's `CoerceArgumentValues`.
    func arguments(_ definitions: [GraphQLArgumentDefinition], given: [GraphQLArgument],
                           at location: GraphQLLocation) throws(GraphQLError) -> [String: GraphQLData] {
        let coercion = GraphQLInputCoercion(schema: schema)
        var coerced: [String: GraphQLData] = [:]
        for definition in definitions {
            let argument = given.first { $0.name == definition.name }
            if let argument, let value = try coercion.literal(argument.value, as: definition.type, variables: variables,
                                                              at: argument.location) {
                coerced[definition.name] = value
            } else if let defaultValue = definition.defaultValue {
                coerced[definition.name] = defaultValue
            } else if case .nonNull = definition.type {
                throw GraphQLError("Argument \"\(definition.name)\" of required type \"\(definition.type)\" was not provided.",
                                   locations: [argument?.location ?? location])
            }
        }
        return coerced
    }

    /// Whether the objects of a list of `type` are completed with a selection that has a field that waits.
    private func itemsWait(_ type: GraphQLTypeReference, fields: [GraphQLField]) -> Bool {
        var named = type
        while true {
            switch named {
            case .nonNull(let inner), .list(let inner): named = inner
            case .named(let name):
                guard let object = schema[name], object.kind == .object else { return false }
                return waits(collected(fields.flatMap(\.selectionSet), of: object, at: fields.map(\.location)), on: object)
            }
        }
    }

    /// A list's items completed `listWidth` at a time, in their order; a non-null item's error nulls the list once
    /// all have ended.
    private func completeTogether(_ items: [any Sendable], as type: GraphQLTypeReference, fields: [GraphQLField], parent: String,
                                  path: [GraphQLPathElement]) async throws(NullPropagation) -> [GraphQLData] {
        let results = await withTaskGroup(of: (Int, Result<GraphQLData, NullPropagation>).self) { group in
            var results = [Result<GraphQLData, NullPropagation>](repeating: .success(.null), count: items.count)
            var next = 0
            func start() {
                let index = next
                next += 1
                let item = items[index]
                group.addTask {
                    do throws(NullPropagation) {
                        return (index, .success(try await self.complete(item, as: type, fields: fields, parent: parent, path: path + [.index(index)])))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            while next < min(Self.listWidth, items.count) { start() }
            for await (index, result) in group {
                results[index] = result
                if next < items.count { start() }
            }
            return results
        }
        return try results.map { result throws(NullPropagation) in try result.get() }
    }

    /// The specification's `CompleteValue`.
    private func complete(_ value: any Sendable, as type: GraphQLTypeReference, fields: [GraphQLField], parent: String,
                          path: [GraphQLPathElement]) async throws(NullPropagation) -> GraphQLData {
        guard case .nonNull(let inner) = type else {
            do {
                return try await completeNullable(value, as: type, fields: fields, parent: parent, path: path)
            } catch {
                return .null
            }
        }
        let completed = try await completeNullable(value, as: inner, fields: fields, parent: parent, path: path)
        if completed.isNull {
            record(GraphQLError("Cannot return null for non-nullable field \(parent).\(fields[0].name).",
                                locations: [fields[0].location], path: path))
            throw NullPropagation()
        }
        return completed
    }

    private func completeNullable(_ value: any Sendable, as type: GraphQLTypeReference, fields: [GraphQLField],
                                  parent: String, path: [GraphQLPathElement]) async throws(NullPropagation) -> GraphQLData {
        if let data = value as? GraphQLData, data.isNull { return .null }
        switch type {
        case .nonNull:
            return try await complete(value, as: type, fields: fields, parent: parent, path: path)
        case .list(let inner):
            let items: [any Sendable]
            if case .list(let values)? = value as? GraphQLData {
                items = values
            } else if let values = value as? [any Sendable] {
                items = values
            } else {
                record(GraphQLError("Expected Iterable, but did not find one for field \"\(parent).\(fields[0].name)\".",
                                    locations: [fields[0].location], path: path))
                throw NullPropagation()
            }
            if concurrent, items.count > 1, itemsWait(inner, fields: fields) {
                return .list(try await completeTogether(items, as: inner, fields: fields, parent: parent, path: path))
            }
            var completed: [GraphQLData] = []
            for (index, item) in items.enumerated() {
                completed.append(try await complete(item, as: inner, fields: fields, parent: parent, path: path + [.index(index)]))
            }
            return .list(completed)
        case .named(let name):
            guard let named = schema[name] else { throw NullPropagation() }
            switch named.kind {
            case .scalar, .enumeration:
                let data = value as? GraphQLData
                let serialized: GraphQLData? = switch named.kind {
                case .scalar: data.flatMap { named.serialize?($0) }
                default: data.flatMap { if case .string(let text) = $0, named.enumValues.contains(where: { $0.name == text }) { $0 } else { nil } }
                }
                guard let serialized else {
                    record(GraphQLError("\(name) cannot represent value: \(data?.jsonText ?? "\(value)")",
                                        locations: [fields[0].location], path: path))
                    throw NullPropagation()
                }
                return serialized
            case .object:
                return try await selectionSet(fields.flatMap(\.selectionSet), of: named, source: value, path: path,
                                              at: fields.map(\.location))
            case .interface, .union:
                guard let typeName = named.resolveType?(value, schema), let object = schema[typeName], object.kind == .object,
                      schema.possibleTypes(of: named).contains(typeName) else {
                    record(GraphQLError("Abstract type \"\(name)\" must resolve to an Object type at runtime for field \"\(parent).\(fields[0].name)\".",
                                        locations: [fields[0].location], path: path))
                    throw NullPropagation()
                }
                return try await selectionSet(fields.flatMap(\.selectionSet), of: object, source: value, path: path,
                                              at: fields.map(\.location))
            case .inputObject:
                throw NullPropagation()
            }
        }
    }
}

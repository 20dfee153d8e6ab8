/// The specification's validation rules that a schema decides, checked before anything runs, with graphql-js's
/// messages: operations (named when several, names unique), fields that exist on their type, selections on
/// object types and none on leaves, known and required arguments and literals of their types, known fragments,
/// types and directives, variables defined by their operation and of input types, fragments that do not spread
/// themselves. A document that fails any answers its errors and no data.
struct GraphQLValidator {
    let schema: GraphQLSchema
    let document: GraphQLDocument

    /// Levels of fields and fragments inside one another, fragments followed, at most: the walks over a document
    /// (here and in the executor) follow its nesting, and a chain of fragments is not bounded by the parser.
    static let maximumDepth = 128

    private let fragments: [String: GraphQLFragment]

    init(schema: GraphQLSchema, document: GraphQLDocument) {
        self.schema = schema
        self.document = document
        fragments = Dictionary(document.fragments.map { ($0.name, $0) }) { first, _ in first }
    }

    func errors() -> [GraphQLError] {
        var errors: [GraphQLError] = []
        let operations = document.operations
        if operations.count > 1, let anonymous = operations.first(where: { $0.name == nil }) {
            errors.append(GraphQLError("This anonymous operation must be the only defined operation.", locations: [anonymous.location]))
        }
        var seenOperations: [String: GraphQLLocation] = [:]
        for operation in operations {
            if let name = operation.name {
                if let first = seenOperations[name] {
                    errors.append(GraphQLError("There can be only one operation named \"\(name)\".", locations: [first, operation.location]))
                }
                seenOperations[name] = seenOperations[name] ?? operation.location
            }
        }
        var seenFragments: [String: GraphQLLocation] = [:]
        for fragment in document.fragments {
            if let first = seenFragments[fragment.name] {
                errors.append(GraphQLError("There can be only one fragment named \"\(fragment.name)\".", locations: [first, fragment.location]))
            }
            seenFragments[fragment.name] = seenFragments[fragment.name] ?? fragment.location
            guard let type = schema[fragment.typeCondition] else {
                errors.append(GraphQLError("Unknown type \"\(fragment.typeCondition)\".", locations: [fragment.location]))
                continue
            }
            guard [.object, .interface, .union].contains(type.kind) else {
                errors.append(GraphQLError("Fragment \"\(fragment.name)\" cannot condition on non composite type \"\(type.name)\".",
                                           locations: [fragment.location]))
                continue
            }
            check(fragment.selectionSet, on: type, into: &errors)
            checkDirectives(fragment.directives, into: &errors)
        }
        for (fragment, via) in cycles() {
            let through = via.isEmpty ? "" : " via " + via.joined(separator: ", ")
            errors.append(GraphQLError("Cannot spread fragment \"\(fragment.name)\" within itself\(through).", locations: [fragment.location]))
        }
        // The other rules walk fragments into one another: only once no fragment spreads itself, and not too deep.
        guard errors.isEmpty else { return errors }
        var depths: [String: Int] = [:]
        for operation in operations where depth(operation.selectionSet, budget: Self.maximumDepth, memo: &depths) == nil {
            return [GraphQLError("The operation nests fields and fragments more than \(Self.maximumDepth) levels deep.",
                                 locations: [operation.location])]
        }
        for operation in operations {
            for definition in operation.variables {
                if let named = schema[Self.namedType(definition.type)] {
                    if ![.scalar, .enumeration, .inputObject].contains(named.kind) {
                        errors.append(GraphQLError("Variable \"$\(definition.name)\" cannot be non-input type \"\(definition.type)\".",
                                                   locations: [definition.location]))
                    }
                } else {
                    errors.append(GraphQLError("Unknown type \"\(Self.namedType(definition.type))\".", locations: [definition.location]))
                }
            }
            checkDirectives(operation.directives, into: &errors)
            let rootName = switch operation.type {
            case .query: schema.queryType
            case .mutation: schema.mutationType
            case .subscription: schema.subscriptionType
            }
            if let rootName, let root = schema[rootName] { check(operation.selectionSet, on: root, into: &errors) }
            if operation.type == .subscription { checkSingleRootField(operation, into: &errors) }
            let defined = Set(operation.variables.map(\.name))
            var visited = Set<String>()
            for (name, location) in usedVariables(operation.selectionSet, visited: &visited) where !defined.contains(name) {
                let by = operation.name.map { " by operation \"\($0)\"" } ?? ""
                errors.append(GraphQLError("Variable \"$\(name)\" is not defined\(by).", locations: [location, operation.location]))
            }
        }
        return errors
    }

    /// A subscription's event stream is one root field's: it selects exactly one, and not an introspection field
    /// (the rule "Single root field", fragments followed, directives not applied, as graphql-js checks it).
    private func checkSingleRootField(_ operation: GraphQLOperation, into errors: inout [GraphQLError]) {
        var keys: [String] = [], locations: [GraphQLLocation] = [], introspection: [GraphQLField] = []
        var visited = Set<String>()
        func collect(_ selections: [GraphQLSelection]) {
            for selection in selections {
                switch selection {
                case .field(let field):
                    if field.name.hasPrefix("__") { introspection.append(field) }
                    if !keys.contains(field.responseKey) {
                        keys.append(field.responseKey)
                        locations.append(field.location)
                    }
                case .fragmentSpread(let name, _, _):
                    guard visited.insert(name).inserted, let fragment = fragments[name] else { continue }
                    collect(fragment.selectionSet)
                case .inlineFragment(_, _, let selectionSet, _):
                    collect(selectionSet)
                }
            }
        }
        collect(operation.selectionSet)
        let name = operation.name.map { "Subscription \"\($0)\"" } ?? "Anonymous Subscription"
        if keys.count > 1 {
            errors.append(GraphQLError("\(name) must select only one top level field.", locations: Array(locations.dropFirst())))
        }
        for field in introspection {
            errors.append(GraphQLError("\(name) must not select an introspection top level field.", locations: [field.location]))
        }
    }

    private static func namedType(_ type: GraphQLTypeReference) -> String {
        switch type {
        case .named(let name): name
        case .list(let inner), .nonNull(let inner): namedType(inner)
        }
    }

    private func check(_ selections: [GraphQLSelection], on type: GraphQLNamedType, into errors: inout [GraphQLError]) {
        for selection in selections {
            switch selection {
            case .field(let field):
                checkDirectives(field.directives, into: &errors)
                if field.name == "__typename" {
                    if !field.selectionSet.isEmpty {
                        errors.append(GraphQLError("Field \"__typename\" must not have a selection since type \"String!\" has no subfields.",
                                                   locations: [field.location]))
                    }
                    continue
                }
                guard let definition = schema.field(field.name, on: type) else {
                    errors.append(GraphQLError("Cannot query field \"\(field.name)\" on type \"\(type.name)\".", locations: [field.location]))
                    continue
                }
                for argument in field.arguments where !definition.arguments.contains(where: { $0.name == argument.name }) {
                    errors.append(GraphQLError("Unknown argument \"\(argument.name)\" on field \"\(type.name).\(field.name)\".",
                                               locations: [argument.location]))
                }
                // Literals of the wrong type (the variables in them are checked when the request gives them).
                let coercion = GraphQLInputCoercion(schema: schema)
                for argument in field.arguments {
                    guard let type = definition.arguments.first(where: { $0.name == argument.name })?.type else { continue }
                    do {
                        _ = try coercion.literal(argument.value, as: type, variables: nil, at: argument.location)
                    } catch {
                        errors.append(error)
                    }
                }
                for argument in definition.arguments {
                    guard case .nonNull = argument.type, argument.defaultValue == nil,
                          !field.arguments.contains(where: { $0.name == argument.name }) else { continue }
                    errors.append(GraphQLError("Field \"\(field.name)\" argument \"\(argument.name)\" of type \"\(argument.type)\" is required, but it was not provided.",
                                               locations: [field.location]))
                }
                guard let fieldType = schema[Self.namedType(definition.type)] else { continue }
                let isLeaf = fieldType.kind == .scalar || fieldType.kind == .enumeration
                if isLeaf, !field.selectionSet.isEmpty {
                    errors.append(GraphQLError("Field \"\(field.name)\" must not have a selection since type \"\(definition.type)\" has no subfields.",
                                               locations: [field.location]))
                } else if !isLeaf, field.selectionSet.isEmpty {
                    errors.append(GraphQLError("Field \"\(field.name)\" of type \"\(definition.type)\" must have a selection of subfields. Did you mean \"\(field.name) { ... }\"?",
                                               locations: [field.location]))
                } else if !isLeaf {
                    check(field.selectionSet, on: fieldType, into: &errors)
                }
            case .fragmentSpread(let name, let directives, let location):
                checkDirectives(directives, into: &errors)
                if fragments[name] == nil { errors.append(GraphQLError("Unknown fragment \"\(name)\".", locations: [location])) }
            case .inlineFragment(let condition, let directives, let selectionSet, let location):
                checkDirectives(directives, into: &errors)
                var inner = type
                if let condition {
                    guard let conditioned = schema[condition] else {
                        errors.append(GraphQLError("Unknown type \"\(condition)\".", locations: [location]))
                        continue
                    }
                    inner = conditioned
                }
                check(selectionSet, on: inner, into: &errors)
            }
        }
    }

    private func checkDirectives(_ directives: [GraphQLDirective], into errors: inout [GraphQLError]) {
        for directive in directives where !schema.directives.contains(where: { $0.name == directive.name }) {
            errors.append(GraphQLError("Unknown directive \"@\(directive.name)\".", locations: [directive.location]))
        }
    }

    /// The variables a selection set uses, with the fragments it spreads (each once).
    private func usedVariables(_ selections: [GraphQLSelection], visited: inout Set<String>) -> [(String, GraphQLLocation)] {
        var used: [(String, GraphQLLocation)] = []
        func values(_ value: GraphQLValue, _ location: GraphQLLocation) {
            switch value {
            case .variable(let name): used.append((name, location))
            case .list(let items): items.forEach { values($0, location) }
            case .object(let fields): fields.forEach { values($0.value, location) }
            default: break
            }
        }
        func directives(_ list: [GraphQLDirective]) {
            for directive in list { directive.arguments.forEach { values($0.value, $0.location) } }
        }
        for selection in selections {
            switch selection {
            case .field(let field):
                field.arguments.forEach { values($0.value, $0.location) }
                directives(field.directives)
                used += usedVariables(field.selectionSet, visited: &visited)
            case .fragmentSpread(let name, let list, _):
                directives(list)
                guard !visited.contains(name), let fragment = fragments[name] else { continue }
                visited.insert(name)
                directives(fragment.directives)
                used += usedVariables(fragment.selectionSet, visited: &visited)
            case .inlineFragment(_, let list, let selectionSet, _):
                directives(list)
                used += usedVariables(selectionSet, visited: &visited)
            }
        }
        return used
    }

    /// How many levels of fields, spreads and inline fragments `selections` holds, fragments followed; nil when more
    /// than `budget`. A fragment's depth is measured once (`memo`), so fragments spread many times cost no more.
    private func depth(_ selections: [GraphQLSelection], budget: Int, memo: inout [String: Int]) -> Int? {
        guard budget > 0 else { return selections.isEmpty ? 0 : nil }
        var deepest = 0
        for selection in selections {
            let inner: Int?
            switch selection {
            case .field(let field):
                inner = field.selectionSet.isEmpty ? 0 : depth(field.selectionSet, budget: budget - 1, memo: &memo)
            case .inlineFragment(_, _, let selectionSet, _):
                inner = depth(selectionSet, budget: budget - 1, memo: &memo)
            case .fragmentSpread(let name, _, _):
                if let known = memo[name] {
                    inner = known
                } else if let fragment = fragments[name] {
                    inner = depth(fragment.selectionSet, budget: budget - 1, memo: &memo)
                    if let inner { memo[name] = inner }
                } else {
                    inner = 0
                }
            }
            guard let inner, inner + 1 <= budget else { return nil }
            deepest = max(deepest, inner + 1)
        }
        return deepest
    }

    /// The fragments that spread themselves, each with the fragments in between: one depth-first walk over the
    /// spreads, without recursion, so a long chain of fragments costs its length and no stack.
    private func cycles() -> [(fragment: GraphQLFragment, via: [String])] {
        var finished: [String: Bool] = [:]  // false while on the walk's path
        var found: [(fragment: GraphQLFragment, via: [String])] = []
        for fragment in document.fragments where finished[fragment.name] == nil {
            var path: [(name: String, spreads: [String], next: Int)] = [(fragment.name, spreads(fragment.selectionSet), 0)]
            finished[fragment.name] = false
            while let top = path.indices.last {
                guard path[top].next < path[top].spreads.count else {
                    finished[path[top].name] = true
                    path.removeLast()
                    continue
                }
                let name = path[top].spreads[path[top].next]
                path[top].next += 1
                switch finished[name] {
                case false?:
                    if let start = path.firstIndex(where: { $0.name == name }), let origin = fragments[name] {
                        found.append((origin, path[(start + 1)...].map(\.name)))
                    }
                case true?:
                    continue
                case nil:
                    guard let spread = fragments[name] else { continue }
                    finished[name] = false
                    path.append((name, spreads(spread.selectionSet), 0))
                }
            }
        }
        return found
    }

    private func spreads(_ selections: [GraphQLSelection]) -> [String] {
        selections.flatMap { selection -> [String] in
            switch selection {
            case .field(let field): spreads(field.selectionSet)
            case .fragmentSpread(let name, _, _): [name]
            case .inlineFragment(_, _, let selectionSet, _): spreads(selectionSet)
            }
        }
    }
}

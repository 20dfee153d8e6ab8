// GraphQL's executable documents (the October 2021 specification, "Language"), parsed by `GraphQLParser`.
//
// Written here: no kept GraphQL library, in Swift or in C, is available to this project (Debian packages none, and
// outside Swift packages are not used), so the lexer, the parser, the validator and the executor are this
// project's own, kept small and tested against the specification's examples.

/// Where a token or node starts in the source: 1-based line and column, as GraphQL errors report them.
public struct GraphQLLocation: Sendable, Hashable, Codable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// A parsed request document: its operations and fragments, in source order.
public struct GraphQLDocument: Sendable, Hashable {
    public var definitions: [GraphQLDefinition]

    public var operations: [GraphQLOperation] {
        definitions.compactMap { if case .operation(let operation) = $0 { operation } else { nil } }
    }

    public var fragments: [GraphQLFragment] {
        definitions.compactMap { if case .fragment(let fragment) = $0 { fragment } else { nil } }
    }

    /// Whether a field named one of `names` is selected anywhere in the document (its operations and fragments).
    public func selects(anyOf names: Set<String>) -> Bool {
        var pending = definitions.map { definition in
            switch definition {
            case .operation(let operation): operation.selectionSet
            case .fragment(let fragment): fragment.selectionSet
            }
        }
        while let selections = pending.popLast() {
            for selection in selections {
                switch selection {
                case .field(let field):
                    if names.contains(field.name) { return true }
                    pending.append(field.selectionSet)
                case .inlineFragment(_, _, let selectionSet, _):
                    pending.append(selectionSet)
                case .fragmentSpread:
                    break
                }
            }
        }
        return false
    }
}

public enum GraphQLDefinition: Sendable, Hashable {
    case operation(GraphQLOperation)
    case fragment(GraphQLFragment)
}

public enum GraphQLOperationType: String, Sendable, Hashable {
    case query, mutation, subscription
}

public struct GraphQLOperation: Sendable, Hashable {
    public var type: GraphQLOperationType
    public var name: String?
    public var variables: [GraphQLVariableDefinition]
    public var directives: [GraphQLDirective]
    public var selectionSet: [GraphQLSelection]
    public var location: GraphQLLocation
}

public struct GraphQLVariableDefinition: Sendable, Hashable {
    public var name: String
    public var type: GraphQLTypeReference
    public var defaultValue: GraphQLValue?
    public var directives: [GraphQLDirective]
    public var location: GraphQLLocation
}

/// `fragment Name on Type @directives { ... }`.
public struct GraphQLFragment: Sendable, Hashable {
    public var name: String
    public var typeCondition: String
    public var directives: [GraphQLDirective]
    public var selectionSet: [GraphQLSelection]
    public var location: GraphQLLocation
}

public indirect enum GraphQLSelection: Sendable, Hashable {
    case field(GraphQLField)
    /// `...Name @directives`
    case fragmentSpread(name: String, directives: [GraphQLDirective], location: GraphQLLocation)
    /// `... on Type @directives { ... }`, the type condition optional.
    case inlineFragment(typeCondition: String?, directives: [GraphQLDirective], selectionSet: [GraphQLSelection],
                        location: GraphQLLocation)
}

public struct GraphQLField: Sendable, Hashable {
    public var alias: String?
    public var name: String
    public var arguments: [GraphQLArgument]
    public var directives: [GraphQLDirective]
    /// Empty for a leaf field.
    public var selectionSet: [GraphQLSelection]
    public var location: GraphQLLocation

    /// The key of the field in the response: its alias, else its name.
    public var responseKey: String { alias ?? name }
}

public struct GraphQLArgument: Sendable, Hashable {
    public var name: String
    public var value: GraphQLValue
    public var location: GraphQLLocation
}

public struct GraphQLDirective: Sendable, Hashable {
    public var name: String
    public var arguments: [GraphQLArgument]
    public var location: GraphQLLocation
}

/// A value written in the document. Numbers keep their source text: whether `1` is an `Int` or a `Float` input
/// is the schema's to decide, and an `Int` beyond 32 bits is an error only there.
public indirect enum GraphQLValue: Sendable, Hashable {
    case variable(String)
    case int(String)
    case float(String)
    case string(String)
    case boolean(Bool)
    case null
    case enumValue(String)
    case list([GraphQLValue])
    /// Fields in source order; a name given twice is for validation to refuse.
    case object([GraphQLObjectField])
}

public struct GraphQLObjectField: Sendable, Hashable {
    public var name: String
    public var value: GraphQLValue

    public init(name: String, value: GraphQLValue) {
        self.name = name
        self.value = value
    }
}

/// `Name`, `[Type]`, `Type!`.
public indirect enum GraphQLTypeReference: Sendable, Hashable, CustomStringConvertible {
    case named(String)
    case list(GraphQLTypeReference)
    case nonNull(GraphQLTypeReference)

    public var description: String {
        switch self {
        case .named(let name): name
        case .list(let inner): "[\(inner)]"
        case .nonNull(let inner): "\(inner)!"
        }
    }
}

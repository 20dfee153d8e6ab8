/// The fields a selection asks for below a field, by name (aliases merged, every fragment followed whatever its type
/// condition, `@skip`/`@include` applied): what a resolver looks ahead at to fetch in one go what its children read.
public struct GraphQLSelectedFields: Sendable, Equatable {
    /// Field names in the order first seen, each with what is selected below it.
    public private(set) var names: [String] = []
    private var children: [String: GraphQLSelectedFields] = [:]

    public init() {}

    public subscript(name: String) -> GraphQLSelectedFields? { children[name] }

    public var isEmpty: Bool { names.isEmpty }

    mutating func merge(_ selections: [GraphQLSelection], fragments: [String: GraphQLFragment],
                        variables: [String: GraphQLData], visited: inout Set<String>) {
        for selection in selections {
            switch selection {
            case .field(let field):
                guard GraphQLDirective.include(field.directives, variables: variables), field.name != "__typename" else { continue }
                if children[field.name] == nil {
                    names.append(field.name)
                    children[field.name] = GraphQLSelectedFields()
                }
                var visitedBelow = visited
                children[field.name]?.merge(field.selectionSet, fragments: fragments, variables: variables, visited: &visitedBelow)
            case .fragmentSpread(let name, let directives, _):
                guard GraphQLDirective.include(directives, variables: variables), !visited.contains(name),
                      let fragment = fragments[name] else { continue }
                visited.insert(name)
                merge(fragment.selectionSet, fragments: fragments, variables: variables, visited: &visited)
            case .inlineFragment(_, let directives, let selectionSet, _):
                guard GraphQLDirective.include(directives, variables: variables) else { continue }
                merge(selectionSet, fragments: fragments, variables: variables, visited: &visited)
            }
        }
    }
}

extension GraphQLResolveInfo {
    /// What is selected below this field.
    public var selectedFields: GraphQLSelectedFields {
        var selected = GraphQLSelectedFields()
        var visited = Set<String>()
        selected.merge(fieldNodes.flatMap(\.selectionSet), fragments: fragments, variables: variables, visited: &visited)
        return selected
    }
}

extension GraphQLDirective {
    /// Whether `@skip` and `@include` among `directives` keep what they are on.
    static func include(_ directives: [GraphQLDirective], variables: [String: GraphQLData]) -> Bool {
        for directive in directives where directive.name == "skip" || directive.name == "include" {
            let condition = directive.arguments.first { $0.name == "if" }?.value
            let value: Bool? = switch condition {
            case .boolean(let flag)?: flag
            case .variable(let name)?: if case .boolean(let flag)? = variables[name] { flag } else { nil }
            default: nil
            }
            if directive.name == "skip", value == true { return false }
            if directive.name == "include", value != true { return false }
        }
        return true
    }
}

/// Bounds on what one document may ask for, beyond the parser's and validator's own: how deep its fields nest and
/// how many field selections it makes, fragments followed (each spread counted where it is spread). Nil: no bound.
public struct GraphQLLimits: Sendable, Equatable {
    public var maximumDepth: Int?
    public var maximumFields: Int?

    public init(maximumDepth: Int? = nil, maximumFields: Int? = nil) {
        self.maximumDepth = maximumDepth
        self.maximumFields = maximumFields
    }

    public static let none = GraphQLLimits()

    /// The error of a document beyond a bound, or nil. Only for a document the validator accepted: its fragments
    /// spread no cycle and nest at most `GraphQLValidator.maximumDepth` levels.
    public func refusal(of document: GraphQLDocument, operationName: String?) -> GraphQLError? {
        guard maximumDepth != nil || maximumFields != nil,
              let operation = try? GraphQLExecutor.operation(in: document, named: operationName) else { return nil }
        var measure = Measure(fragments: Dictionary(document.fragments.map { ($0.name, $0) }) { first, _ in first })
        let (depth, fields) = measure.size(operation.selectionSet)
        if let maximumDepth, depth > maximumDepth {
            return GraphQLError("Query depth of \(depth) exceeds maximum allowed depth of \(maximumDepth)", locations: [operation.location])
        }
        if let maximumFields, fields > maximumFields {
            return GraphQLError("Number of fields (\(fields)) exceeds maximum allowed (\(maximumFields))", locations: [operation.location])
        }
        return nil
    }

    /// Field depth and count of a selection; a fragment measured once however often it is spread, counts saturating.
    private struct Measure {
        let fragments: [String: GraphQLFragment]
        var known: [String: (depth: Int, fields: Int)] = [:]

        mutating func size(_ selections: [GraphQLSelection]) -> (depth: Int, fields: Int) {
            var depth = 0, fields = 0
            for selection in selections {
                let inner: (depth: Int, fields: Int)
                switch selection {
                case .field(let field):
                    let below = field.selectionSet.isEmpty ? (0, 0) : size(field.selectionSet)
                    inner = (below.0 + 1, below.1.addingReportingOverflow(1).overflow ? .max : below.1 + 1)
                case .inlineFragment(_, _, let selectionSet, _):
                    inner = size(selectionSet)
                case .fragmentSpread(let name, _, _):
                    if let measured = known[name] {
                        inner = measured
                    } else {
                        inner = fragments[name].map { size($0.selectionSet) } ?? (0, 0)
                        known[name] = inner
                    }
                }
                depth = max(depth, inner.depth)
                let sum = fields.addingReportingOverflow(inner.fields)
                fields = sum.overflow ? .max : sum.partialValue
            }
            return (depth, fields)
        }
    }
}

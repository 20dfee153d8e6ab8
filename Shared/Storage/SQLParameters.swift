/// Collects the values of one statement; each `bind` returns its placeholder (`$3`), so values never enter
/// the SQL text.
public struct SQLParameters: Sendable {
    public private(set) var values: [(any PostgresBindable)?]

    public init(_ initial: [(any PostgresBindable)?] = []) { values = initial }

    public mutating func bind(_ value: (any PostgresBindable)?) -> String {
        values.append(value)
        return "$\(values.count)"
    }

    /// A `text[]` parameter, written by `PostgresArray.literal` with every element quoted.
    public mutating func bindTextArray(_ elements: [String]) -> String {
        bind(PostgresArray.literal(elements)) + "::text[]"
    }
}

import Contracts
import Storage

/// Builds a parameter list while SQL text refers to it as `$1`, `$2`, ...: values never enter the SQL text.
struct SQLParameters: Sendable {
    private(set) var values: [(any PostgresBindable)?]

    init(_ initial: [(any PostgresBindable)?] = []) { values = initial }

    /// Adds `value` and returns its placeholder.
    mutating func bind(_ value: (any PostgresBindable)?) -> String {
        values.append(value)
        return "$\(values.count)"
    }
}

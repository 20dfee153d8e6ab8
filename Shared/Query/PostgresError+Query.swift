import ParseWire
import Storage

extension PostgresError {
    /// A query statement that failed because of what the client sent (a bad regular expression, a value that
    /// does not fit the column), as the Parse error to answer; nil for the other failures.
    public var queryError: ParseError? {
        switch sqlState {
        case "2201B": return ParseError(.invalidQuery, "Invalid regular expression: \(message)")
        case "42883": return ParseError(.invalidQuery, "This constraint does not apply to the field's type.")
        case let state? where state.hasPrefix("22"): return ParseError(.invalidQuery, "Invalid value: \(message)")
        default: return nil
        }
    }
}

import ParseWire
import Storage

extension PostgresError {
    /// A statement that failed because of what the client sent (a bad regular expression, a value that does not
    /// fit its column), as the Parse error to answer; nil for the other failures. The answer never quotes
    /// PostgreSQL's own text: that stays in the logs.
    public var queryError: ParseError? {
        switch sqlState {
        case "2201B": return ParseError(.invalidQuery, "Invalid regular expression in $regex.")
        case "22007", "22008": return ParseError(.incorrectType, "This is not a valid Date")
        case "22003": return ParseError(.incorrectType, "Number out of range.")
        case "22021", "22P05": return ParseError(.invalidJSON, "Strings may not contain the NUL character (\\u0000).")
        case "42883": return ParseError(.invalidQuery, "This constraint does not apply to the field's type.")
        case "54000", "54001", "54011", "54023":
            return ParseError(.invalidQuery, "The request is too large or too deeply nested for this server.")
        case let state? where state.hasPrefix("22"): return ParseError(.invalidQuery, "Invalid value for this field.")
        default: return nil
        }
    }
}

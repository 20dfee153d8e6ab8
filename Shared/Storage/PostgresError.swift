import Runtime

/// A failure reported by PostgreSQL or by libpq.
///
/// `sqlState` is the server's five-character code (for example `23505` for a unique violation);
/// it is nil when the failure happened below SQL: the server could not be reached, the
/// connection dropped, or the pool was closed.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public let sqlState: String?
    public let message: String
    /// The server's DETAIL line, when it sent one (for a unique violation: the duplicate key).
    public let detail: String?
    /// The constraint that was violated, when the server names one.
    public let constraint: String?
    private let connectionLost: Bool

    public init(sqlState: String?, message: String, detail: String? = nil, constraint: String? = nil,
                connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
        self.connectionLost = connectionLost
    }

    /// True when the connection, not the statement, failed: retrying on a fresh connection may succeed.
    public var isConnectionFailure: Bool {
        guard let sqlState, !connectionLost else { return true }
        // Class 08 is "connection exception"; 57P01-57P03 are the server shutting the session down.
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// Failures of the moment rather than of the statement: the connection (class 08, or lost below SQL), the
    /// server shutting down or starting (57P01-57P03), out of resources (class 53: connections, memory, disk),
    /// a serialization failure or deadlock (40001, 40P01), a system error (class 58). The statement may well succeed
    /// when run again; everything else (22 data, 23 constraints, 42 syntax and names...) would fail the same way.
    public var isTransient: Bool {
        guard let sqlState, !isConnectionFailure else { return true }
        return sqlState.hasPrefix("53") || sqlState.hasPrefix("58") || sqlState == "40001" || sqlState == "40P01"
    }

    /// A prepared statement whose tables changed shape (a column's type, say) since it was prepared.
    var isStalePreparedStatement: Bool {
        sqlState == "0A000" && message.contains("cached plan must not change result type")
    }

    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        return text
    }
}

extension PostgresError: ClassifiedFailure {
    public var failureKind: FailureKind { isTransient ? .transient : .deterministic }
}

extension PostgresError {
    static let uniqueViolation = "23505"
    static let duplicateDatabase = "42P04"
    static let inFailedTransaction = "25P02"
    /// A statement cancelled (a cancel request, or `statement_timeout`).
    static let queryCanceled = "57014"

    static func connectionFailure(_ message: String) -> PostgresError {
        PostgresError(sqlState: nil, message: message, connectionLost: true)
    }
}

/// The connection was lost while a transaction committed: PostgreSQL may have committed it or not. Never retried.
public struct CommitOutcomeUnknown: Error, ClassifiedFailure, CustomStringConvertible {
    public let cause: PostgresError
    public var failureKind: FailureKind { .ambiguous }
    public var description: String { "the outcome of a commit is unknown: \(cause)" }
}

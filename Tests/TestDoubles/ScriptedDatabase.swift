import Storage
import Synchronization

/// A `Database` that answers the statements a test expects, in order, with the rows the test gives: a handler's
/// unit test states the SQL it should send (by a part of its text) and what PostgreSQL would answer. A statement
/// that is not the next one expected fails the handler with `ScriptedDatabaseError.unexpected`, and every
/// statement run is kept, with its parameters as PostgreSQL would receive them, for the test to read.
public final class ScriptedDatabase: Database {
    public struct Statement: Sendable, Equatable {
        public var sql: String
        /// Each parameter's text (`PostgresBindable.postgresText`); nil for SQL NULL.
        public var parameters: [String?]
    }

    private struct Step {
        var fragment: String
        var answer: Result<PostgresResult, any Error>
    }

    private struct State {
        var steps: [Step] = []
        var statements: [Statement] = []
        var transactions: [String] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// The next statement must contain `fragment`; it answers `rows` (each row's columns by name).
    public func expect(_ fragment: String, rows: [[String: String?]] = [], affectedRows: Int? = nil) {
        let columns = rows.first.map { Array($0.keys).sorted() } ?? []
        let result = PostgresResult(
            columns: columns,
            rows: rows.map { row in PostgresRow(columns: columns, values: columns.map { row[$0] ?? nil }) },
            affectedRows: affectedRows ?? rows.count, commandTag: "")
        state.withLock { $0.steps.append(Step(fragment: fragment, answer: .success(result))) }
    }

    /// The next statement must contain `fragment`; it fails with `error` (a `PostgresError` as the server sends it).
    public func expect(_ fragment: String, throwing error: any Error) {
        state.withLock { $0.steps.append(Step(fragment: fragment, answer: .failure(error))) }
    }

    /// Every statement run, in order.
    public var statements: [Statement] { state.withLock { $0.statements } }
    /// `BEGIN`, `COMMIT` and `ROLLBACK` of the transaction scopes, in order.
    public var transactions: [String] { state.withLock { $0.transactions } }
    /// Whether every expected statement ran.
    public var isDone: Bool { state.withLock { $0.steps.isEmpty } }

    public func query(_ sql: String, _ parameters: [(any PostgresBindable)?]) async throws -> PostgresResult {
        let answer = state.withLock { state -> Result<PostgresResult, any Error> in
            state.statements.append(Statement(sql: sql, parameters: parameters.map { $0?.postgresText }))
            guard let step = state.steps.first, sql.contains(step.fragment) else {
                return .failure(ScriptedDatabaseError.unexpected(sql, expected: state.steps.first?.fragment))
            }
            state.steps.removeFirst()
            return step.answer
        }
        return try answer.get()
    }

    public func inTransaction<T: Sendable>(_ body: @Sendable (any Database) async throws -> T) async throws -> T {
        state.withLock { $0.transactions.append("BEGIN") }
        do {
            let value = try await body(self)
            state.withLock { $0.transactions.append("COMMIT") }
            return value
        } catch {
            state.withLock { $0.transactions.append("ROLLBACK") }
            throw error
        }
    }
}

public enum ScriptedDatabaseError: Error, Equatable {
    /// The statement run, and the fragment the next expected one has (nil: none was expected).
    case unexpected(String, expected: String?)
}

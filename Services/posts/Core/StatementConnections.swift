import Storage

/// Where a request's statements run. Outside a transaction each step borrows a pool connection and gives it back
/// before the next, so none is held while Cloud Code runs a trigger: a trigger's target may call back into posts
/// (a worker's afterSave writing a log, a beforeSave querying), and with every connection lent to writes waiting on
/// their triggers, those calls would wait for a connection until the writes' deadlines. Inside a transaction (a
/// transactional batch) every step runs on the connection that holds it.
enum StatementConnections: Sendable {
    case pool(PostgresPool)
    case held(PostgresConnection)

    func run<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        switch self {
        case .pool(let pool): try await pool.withConnection(body)
        case .held(let connection): try await body(connection)
        }
    }
}

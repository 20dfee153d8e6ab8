#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Foundation
import Runtime

/// One libpq connection and the blocking calls made on it.
///
/// libpq connections are not thread-safe and their calls block. Every method here must run on the
/// serial queue of the `PostgresConnection` that owns this session, never on Swift's cooperative pool.
final class LibPQSession: @unchecked Sendable {  // Safe: the PGconn is only touched on its owner's serial queue.
    private var connection: OpaquePointer?
    private let parameters: ConnectionParameters
    /// Set when the protocol state is unknown (for example after a COPY was started), so that the
    /// session is rebuilt before its next use even though libpq still reports CONNECTION_OK.
    private var needsReset = false
    /// Statements prepared on this server session; a new session (reconnect) starts with none.
    private var statements = PreparedStatements()
    /// What `StatementWatchdog` cancels a late statement of this session with; renewed with the connection.
    private var cancelHandle: OpaquePointer?

    private let watchdog: StatementWatchdog

    /// Set once a message to or from the server carried more than `largeMessageBytes`: libpq's buffers grow to the
    /// largest message and never shrink, so such a connection keeps that memory until it is closed
    /// (`PostgresPool` closes it when it comes back).
    private(set) var carriedLargeMessage = false
    static let largeMessageBytes = 4 << 20

    private func note(_ bytes: Int) {
        if bytes > Self.largeMessageBytes { carriedLargeMessage = true }
    }

    private static func byteCount(_ parameters: [String?]) -> Int {
        parameters.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
    }

    /// The pool the session belongs to, by its watchdog (each pool has one; a connection alone its own).
    var poolID: ObjectIdentifier { ObjectIdentifier(watchdog) }

    init(parameters: ConnectionParameters, watchdog: StatementWatchdog) {
        self.parameters = parameters
        self.watchdog = watchdog
    }

    deinit {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        if let connection { PQfinish(connection) }
    }

    var isConnected: Bool {
        guard let connection, !needsReset else { return false }
        return PQstatus(connection) == CONNECTION_OK
    }

    func open() throws {
        let candidate = try CStringArray.with(parameters.keywords, nullTerminated: true) { keywords in
            try CStringArray.with(parameters.values, nullTerminated: true) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let candidate else { throw PostgresError.connectionFailure("libpq could not allocate a connection") }
        guard PQstatus(candidate) == CONNECTION_OK else {
            let message = Self.errorText(candidate)
            PQfinish(candidate)
            throw PostgresError.connectionFailure(message)
        }
        // Notices (for example "relation already exists, skipping") would otherwise go to stderr.
        PQsetNoticeProcessor(candidate, { _, _ in }, nil)
        if let connection { PQfinish(connection) }
        connection = candidate
        needsReset = false
        statements = PreparedStatements()
        renewCancelHandle()
    }

    /// Runs `work` (statements of this session) so that it stops at `deadline`: the watchdog cancels what is still
    /// running then. A statement cancelled, by the watchdog or by the server's `statement_timeout`, throws
    /// `DeadlineExceeded`.
    func run<T>(until deadline: Deadline?, _ work: () throws -> T) throws -> T {
        let watch = beginWatch(until: deadline)
        defer { endWatch(watch) }
        do {
            return try work()
        } catch {
            throw Self.deadlineError(error, deadline: deadline)
        }
    }

    /// `run`'s first half, for work that does not run in one call: has the watchdog cancel it at `deadline`.
    func beginWatch(until deadline: Deadline?) -> Int? {
        guard let deadline, let cancelHandle else { return nil }
        return watchdog.begin(deadline: deadline, cancel: cancelHandle)
    }

    func endWatch(_ token: Int?) {
        if let token { watchdog.end(token) }
    }

    /// A statement cancelled, by the watchdog or by the server's `statement_timeout`, as `DeadlineExceeded`.
    static func deadlineError(_ error: any Error, deadline: Deadline?) -> any Error {
        guard let error = error as? PostgresError, error.sqlState == PostgresError.queryCanceled else { return error }
        return DeadlineExceeded(deadline == nil ? "the statement (statement_timeout)" : "the statement")
    }

    private func renewCancelHandle() {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        cancelHandle = connection.flatMap { PQgetCancel($0) }
    }

    /// Makes the session usable after it sat idle: notices a connection the server has dropped
    /// meanwhile and reconnects a broken one. Returns true when it had to reconnect.
    func makeReady() throws -> Bool {
        guard let connection else {
            try open()
            return true
        }
        if isReadyAsItIs() { return false }
        PQreset(connection)
        statements = PreparedStatements()
        renewCancelHandle()
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError.connectionFailure(Self.errorText(connection))
        }
        needsReset = false
        return true
    }

    /// `makeReady` without its blocking part: true when the session is usable as it is, false when it must be
    /// reconnected first (by `makeReady`).
    func isReadyAsItIs() -> Bool {
        guard let connection, !needsReset else { return false }
        readPendingInput(connection)
        return PQstatus(connection) == CONNECTION_OK
    }

    func query(_ sql: String, _ parameters: [String?]) throws -> PostgresResult {
        let connection = try requireConnection()
        note(Self.byteCount(parameters))
        if let name = try preparedName(for: sql, parameterCount: parameters.count, connection) {
            let result = try CStringArray.with(parameters) { values in
                PQexecPrepared(connection, name, Int32(values.count), values, nil, nil, 0)
            }
            do {
                return try consume(result, connection)
            } catch let error as PostgresError where error.isStalePreparedStatement {
                // The statement's tables changed shape since it was prepared: forget it and run the text once more.
                statements.forget(sql)
                PQclear(PQexec(connection, "DEALLOCATE \(name)"))
            }
        }
        let result = try CStringArray.with(parameters) { values in
            PQexecParams(connection, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        return try consume(result, connection)
    }

    /// Runs `statements` in one round trip (libpq's pipeline mode) and returns their results in order. They run
    /// one after another as if sent one at a time, but the network and the waits for the server are paid once;
    /// a failing statement's error is thrown and the ones after it are skipped by the server. Outside a transaction
    /// block they are one implicit transaction (the server commits at the pipeline's sync). Statements are
    /// prepared on their second use, as in `query`.
    func pipeline(_ statements: [PostgresStatement]) throws -> [PostgresResult] {
        var reading = try sendPipeline(statements)
        guard let results = try readPipeline(&reading, blocking: true) else {
            preconditionFailure("a blocking read waits for every result")
        }
        return results
    }

    /// The first half of `pipeline`: queues the statements and the sync that ends them. In non-blocking mode
    /// (`setNonBlocking`) some may still wait in libpq's buffer: `flush` sends them.
    func sendPipeline(_ statements: [PostgresStatement]) throws -> PipelineReading {
        let connection = try requireConnection()
        note(statements.reduce(0) { $0 + Self.byteCount($1.parameters) })
        for statement in statements { try CStringArray.check(statement.parameters) }
        guard PQenterPipelineMode(connection) == 1 else { throw Self.failure(connection, nil) }
        // What comes back for each statement: a result for its PREPARE first when it is prepared now.
        var preparing: [String?] = []
        var sent = true
        for statement in statements where sent {
            let count = Int32(statement.parameters.count)
            var name: String?
            switch self.statements.lookup(statement.sql) {
            case .prepared(let prepared):
                name = prepared
                preparing.append(nil)
            case .prepare(let fresh):
                name = fresh
                sent = PQsendPrepare(connection, fresh, statement.sql, count, nil) == 1
                preparing.append(fresh)
            case .runUnnamed:
                preparing.append(nil)
            }
            guard sent else { break }
            sent = try CStringArray.with(statement.parameters) { values in
                if let name {
                    return PQsendQueryPrepared(connection, name, count, values, nil, nil, 0) == 1
                }
                return PQsendQueryParams(connection, statement.sql, count, nil, values, nil, nil, 0) == 1
            }
        }
        guard sent, PQpipelineSync(connection) == 1 else {
            // libpq could not even queue the statements (a broken connection): nothing is known of the session.
            needsReset = true
            throw Self.failure(connection, nil)
        }
        return PipelineReading(statements: statements, preparing: preparing)
    }

    /// The second half of `pipeline`: reads the results of the statements `reading` sent. Blocking, it returns
    /// them all; otherwise it reads only what libpq already holds and returns nil when more must arrive first
    /// (wait for the socket to be readable, then `consumeInput`). Throws as `pipeline` does.
    func readPipeline(_ reading: inout PipelineReading, blocking: Bool) throws -> [PostgresResult]? {
        guard let connection else { throw PostgresError.connectionFailure("the connection is closed") }
        /// The next result (nil: the one that ends a statement's results), or nothing while it has not arrived.
        func next() -> OpaquePointer?? {
            if !blocking, PQisBusy(connection) == 1 { return .none }
            return .some(PQgetResult(connection))
        }
        while true {
            if reading.awaitsEnd {
                guard let end = next() else { return nil }
                PQclear(end)
                reading.awaitsEnd = false
                continue
            }
            guard reading.index < reading.statements.count else { break }
            guard let result = next() else { return nil }
            reading.awaitsEnd = result != nil
            let statement = reading.statements[reading.index]
            if let name = reading.preparing[reading.index], !reading.preparedRead {
                reading.preparedRead = true
                if PQresultStatus(result) == PGRES_COMMAND_OK { self.statements.prepared(statement.sql, as: name) }
                if reading.firstError == nil, PQresultStatus(result) != PGRES_PIPELINE_ABORTED {
                    do { _ = try consume(result, connection) } catch { reading.firstError = error }
                } else {
                    PQclear(result)
                }
                continue
            }
            reading.index += 1
            reading.preparedRead = false
            if result == nil, reading.firstError == nil { reading.firstError = Self.failure(connection, nil) }
            guard reading.firstError == nil, PQresultStatus(result) != PGRES_PIPELINE_ABORTED else {
                PQclear(result)
                continue
            }
            do {
                reading.results.append(try consume(result, connection))
            } catch let error as PostgresError where error.isStalePreparedStatement {
                self.statements.forget(statement.sql)
                reading.firstError = error
            } catch {
                reading.firstError = error
            }
        }
        guard let sync = next() else { return nil }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if !synced || PQexitPipelineMode(connection) != 1 { needsReset = true }
        if let firstError = reading.firstError { throw firstError }
        if !synced { throw Self.failure(connection, nil) }
        return reading.results
    }

    // MARK: Non-blocking use, from an I/O loop's thread (`LoopPipeline`)

    /// The socket to wait on; -1 without a connection.
    var socket: Int32 { connection.map(PQsocket) ?? -1 }

    /// Whether libpq's calls wait (the default) or return at once, leaving the waits to the caller.
    func setNonBlocking(_ nonBlocking: Bool) -> Bool {
        guard let connection else { return false }
        return PQsetnonblocking(connection, nonBlocking ? 1 : 0) == 0
    }

    /// Sends what libpq still holds: true when all of it is out, false when the socket must become writable first.
    func flush() throws -> Bool {
        guard let connection else { throw PostgresError.connectionFailure("the connection is closed") }
        switch PQflush(connection) {
        case 0: return true
        case 1: return false
        default:
            needsReset = true
            throw Self.failure(connection, nil)
        }
    }

    /// Reads what the server has sent; false when the connection failed (a blocking read then ends at once).
    func consumeInput() -> Bool {
        guard let connection else { return false }
        return PQconsumeInput(connection) == 1
    }

    /// The name of the server-side prepared statement for `sql`, preparing it on its second use; nil while the
    /// text is new or the cache is full, when the statement runs unnamed (parsed and planned each time).
    private func preparedName(for sql: String, parameterCount: Int, _ connection: OpaquePointer) throws -> String? {
        switch statements.lookup(sql) {
        case .prepared(let name):
            return name
        case .runUnnamed:
            return nil
        case .prepare(let name):
            let result = PQprepare(connection, name, sql, Int32(parameterCount), nil)
            _ = try consume(result, connection)
            statements.prepared(sql, as: name)
            return name
        }
    }

    /// A query whose parameters may be binary (`PostgresBinary`), and whose result columns come back in binary
    /// format when `binaryResults` is set: bytea as its bytes, with no hex text to build and parse.
    func query(_ sql: String, _ parameters: [PostgresParameter], binaryResults: Bool) throws -> PostgresQueryOutput {
        let connection = try requireConnection()
        note(parameters.reduce(0) { total, parameter in
            switch parameter {
            case .text(let text): total + (text?.utf8.count ?? 0)
            case .binary(let bytes): total + bytes.count
            }
        })
        let result = try PostgresParameter.withLibPQArrays(parameters) { values, lengths, formats in
            PQexecParams(connection, sql, Int32(values.count), nil, values, lengths, formats, binaryResults ? 1 : 0)
        }
        guard binaryResults else { return .rows(try consume(result, connection)) }
        guard let result else { throw Self.failure(connection, nil) }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw Self.failure(connection, result) }
        let columns = PQnfields(result)
        var received = 0
        defer { note(received) }
        let rows: [[[UInt8]?]] = (0..<PQntuples(result)).map { row in
            (0..<columns).map { column in
                guard PQgetisnull(result, row, column) == 0 else { return nil }
                let count = Int(PQgetlength(result, row, column))
                received += count
                guard count > 0, let start = PQgetvalue(result, row, column) else { return [] }
                return Array(UnsafeRawBufferPointer(start: start, count: count))
            }
        }
        return .binaryRows(rows)
    }

    func executeScript(_ script: String) throws -> PostgresResult {
        let connection = try requireConnection()
        return try consume(PQexec(connection, script), connection)
    }

    var isInTransaction: Bool {
        guard let connection else { return false }
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Rolls back a transaction a caller left open, so the next borrower starts clean.
    /// Returns true when there was one.
    func rollbackOpenTransaction() -> Bool {
        guard let connection, isConnected else { return false }
        let status = PQtransactionStatus(connection)
        guard status == PQTRANS_INTRANS || status == PQTRANS_INERROR else { return false }
        let result = PQexec(connection, "ROLLBACK")
        if result == nil || PQresultStatus(result) != PGRES_COMMAND_OK { needsReset = true }
        PQclear(result)
        return true
    }

    func close() {
        if let connection { PQfinish(connection) }
        connection = nil
        statements = PreparedStatements()
    }

    private func requireConnection() throws -> OpaquePointer {
        guard let connection else { throw PostgresError.connectionFailure("the connection is closed") }
        guard !needsReset else { throw PostgresError.connectionFailure("the connection must be reset before use") }
        return connection
    }

    /// Turns a PGresult into a value or an error, and frees it.
    private func consume(_ result: OpaquePointer?, _ connection: OpaquePointer) throws -> PostgresResult {
        guard let result else { throw Self.failure(connection, nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            let (read, bytes) = Self.read(result)
            note(bytes)
            return read
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // The session is now inside the COPY sub-protocol; rebuilding it is simpler than unwinding it.
            needsReset = true
            throw PostgresError(sqlState: "0A000", message: "COPY is not supported by this client")
        default:
            throw Self.failure(connection, result)
        }
    }

    /// While idle, the server only writes to us to say it is closing the session (administrator
    /// command, idle timeout, shutdown). Reading that input lets libpq see the end of the stream.
    private func readPendingInput(_ connection: OpaquePointer) {
        guard PQstatus(connection) == CONNECTION_OK else { return }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        var rounds = 0
        while rounds < 8, poll(&descriptor, 1, 0) > 0 {
            rounds += 1
            // 0 means the read failed: libpq has marked the connection bad.
            guard PQconsumeInput(connection) == 1 else { return }
        }
        // Parses what was read, so an idle-time message is not taken for the next reply.
        while let notification = PQnotifies(connection) { PQfreemem(notification) }
    }

    /// The result, and how many bytes its values took.
    private static func read(_ result: OpaquePointer) -> (PostgresResult, Int) {
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        let layout = ColumnLayout(names: (0..<columnCount).map { String(cString: PQfname(result, $0)) })
        var rows: [PostgresRow] = []
        var bytes = 0
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            let values: [String?] = (0..<columnCount).map { column in
                guard PQgetisnull(result, row, column) == 0 else { return nil }
                bytes += Int(PQgetlength(result, row, column))
                return String(cString: PQgetvalue(result, row, column))
            }
            rows.append(PostgresRow(layout: layout, values: values))
        }
        return (PostgresResult(columns: layout.names, rows: rows,
                               affectedRows: Int(String(cString: PQcmdTuples(result))) ?? 0,
                               commandTag: String(cString: PQcmdStatus(result))), bytes)
    }

    private static func failure(_ connection: OpaquePointer, _ result: OpaquePointer?) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let result, let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else {
                return nil
            }
            return String(cString: value)
        }
        // Field codes from postgres_ext.h: C = SQLSTATE, M = primary message, D = detail, n = constraint.
        return PostgresError(sqlState: field("C"), message: field("M") ?? errorText(connection),
                             detail: field("D"), constraint: field("n"),
                             connectionLost: PQstatus(connection) == CONNECTION_BAD)
    }

    private static func errorText(_ connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown libpq error" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "unknown libpq error" : message
    }
}

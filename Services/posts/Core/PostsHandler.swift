import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// Parse's object routes below the mount (`classes/...`, `batch`, `schemas/...`, `purge/...`), with
/// parse-server's statuses and bodies.
struct PostsHandler: Sendable {
    let context: RequestContext

    /// Handles one call on `connection`. Inside a transactional batch the caller's transaction holds every
    /// write; otherwise each write has a transaction of its own.
    func handle(_ request: RESTRequest, on connection: PostgresConnection, inTransaction: Bool = false) async throws -> RESTResponse {
        do {
            return try await route(request, on: connection, inTransaction: inTransaction)
        } catch let error as PostgresError where !error.isConnectionFailure {
            throw Self.clientError(error) ?? error
        }
    }

    /// Statement failures caused by what the client sent, as Parse errors; nil for the others.
    static func clientError(_ error: PostgresError) -> ParseError? {
        if error.sqlState == "23505" {
            return ParseError(.duplicateValue, "A duplicate value for a field with unique values was provided")
        }
        return error.queryError
    }

    private func route(_ request: RESTRequest, on connection: PostgresConnection, inTransaction: Bool) async throws -> RESTResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first ?? "", parts.count) {
        case ("classes", 2), ("classes", 3):
            // Also refuses the `_`-prefixed system classes, which the auth service owns.
            try Names.requireClassName(parts[1])
            return try await objects(request, className: parts[1], objectId: parts.count == 3 ? parts[2] : nil,
                                     on: connection, inTransaction: inTransaction)
        case ("batch", 1):
            guard request.method == "POST" else { break }
            return try await BatchHandler(handler: self).handle(request, on: connection, inTransaction: inTransaction)
        case ("schemas", 1), ("schemas", 2):
            return try await SchemasHandler(context: context).handle(request, className: parts.count == 2 ? parts[1] : nil,
                                                                      on: connection)
        case ("purge", 2):
            guard request.method == "DELETE" else { break }
            return try await SchemasHandler(context: context).purge(parts[1], on: connection)
        case ("aggregate", 2):
            return try await AggregateHandler(context: context, connection: connection).handle(request, className: parts[1])
        default:
            break
        }
        throw ParseError(.commandUnavailable, "Cannot \(request.method) /\(request.path): no such route.")
    }

    private func objects(_ request: RESTRequest, className: String, objectId: String?,
                         on connection: PostgresConnection, inTransaction: Bool) async throws -> RESTResponse {
        let context = self.context
        switch (request.method, objectId) {
        case ("GET", nil):
            let options = try QueryOptions(find: QueryOptions.merge(query: request.query, body: request.body))
            var reader = ObjectReader(context: context, connection: connection)
            reader.mayCreateIndexes = !inTransaction
            if options.explain { return Self.json(200, .object(["results": try await reader.explain(className, options: options)])) }
            let found = try await reader.find(className, options: options)
            var body: [String: JSONValue] = ["results": .array(found.results)]
            if let count = found.count { body["count"] = .number(Double(count)) }
            return Self.json(200, .object(body))
        case ("GET", let id?):
            let options = try QueryOptions(get: QueryOptions.merge(query: request.query, body: request.body))
            let object = try await ObjectReader(context: context, connection: connection).get(className, objectId: id, options: options)
            return Self.json(200, .object(object))
        case ("POST", nil):
            let body = try RequestBody.object(request.body)
            let created = try await write(on: connection, inTransaction) { connection in
                try await ObjectWriter(context: context, connection: connection).create(className, body: body)
            }
            return Self.json(201, .object(created.body),
                             headers: ["Location": "\(request.serverURL)/classes/\(className)/\(created.objectId)"])
        case ("PUT", let id?):
            let body = try RequestBody.object(request.body)
            let answer = try await write(on: connection, inTransaction) { connection in
                try await ObjectWriter(context: context, connection: connection).update(className, objectId: id, body: body)
            }
            return Self.json(200, .object(answer))
        case ("DELETE", let id?):
            try await write(on: connection, inTransaction) { connection in
                try await ObjectWriter(context: context, connection: connection).delete(className, objectId: id)
            }
            return Self.json(200, .object([:]))
        default:
            throw ParseError(.commandUnavailable, "Cannot \(request.method) /\(request.path): no such route.")
        }
    }

    private func write<T: Sendable>(on connection: PostgresConnection, _ inTransaction: Bool,
                                    _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        if inTransaction { return try await body(connection) }
        return try await connection.transaction(body)
    }

    static func json(_ status: Int, _ body: JSONValue, headers: [String: String] = [:]) -> RESTResponse {
        RESTResponse(status: status, headers: headers, body: body.compactText)
    }
}

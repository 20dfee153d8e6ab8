import Contracts
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit
import Storage

/// Parse's object routes below the mount (`classes/...`, `batch`, `schemas/...`, `purge/...`), with
/// parse-server's statuses and bodies.
struct PostsHandler: Sendable {
    let context: RequestContext

    /// Handles one call on `connection`. Inside a transactional batch the caller's transaction holds every
    /// write; otherwise each write has a transaction of its own.
    func handle(_ request: RESTRequest, on connection: PostgresConnection, inTransaction: Bool = false,
                logger: Logger? = nil) async throws -> RESTResponse {
        try await handle(request, connections: .held(connection), inTransaction: inTransaction, logger: logger)
    }

    /// Handles one call with connections from `connections`, step by step (see `StatementConnections`).
    func handle(_ request: RESTRequest, connections: StatementConnections, inTransaction: Bool = false,
                logger: Logger? = nil) async throws -> RESTResponse {
        do {
            return try await route(request, connections: connections, inTransaction: inTransaction)
        } catch let error as PostgresError where !error.isConnectionFailure {
            guard let answer = Self.clientError(error) else { throw error }
            // The client gets a Parse error; PostgreSQL's own words stay in the log.
            logger?.info("request refused by PostgreSQL", ["error": "\(error)"])
            throw answer
        }
    }

    /// Statement failures caused by what the client sent, as Parse errors; nil for the others.
    static func clientError(_ error: PostgresError) -> ParseError? {
        if error.sqlState == "23505" {
            return ParseError(.duplicateValue, "A duplicate value for a field with unique values was provided")
        }
        return error.queryError
    }

    private func route(_ request: RESTRequest, connections: StatementConnections,
                       inTransaction: Bool) async throws -> RESTResponse {
        let context = self.context
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first ?? "", parts.count) {
        case ("classes", 2), ("classes", 3):
            // Also refuses the `_`-prefixed system classes other than those kept here: auth owns the others.
            try PlatformClasses.requireClassName(parts[1])
            return try await objects(request, className: parts[1], objectId: parts.count == 3 ? parts[2] : nil,
                                     connections: connections, inTransaction: inTransaction)
        case ("installations", 1), ("installations", 2):
            return try await objects(request, className: PlatformClasses.installation,
                                     objectId: parts.count == 2 ? parts[1] : nil, connections: connections,
                                     inTransaction: inTransaction)
        case ("config", 1):
            return try await connections.run { try await ConfigHandler(context: context).handle(request, on: $0) }
        case ("graphql-config", 1):
            return try await connections.run { try await GraphQLConfigHandler(identity: context.identity).handle(request, on: $0) }
        case ("events", 1), ("events", 2):
            return try await connections.run {
                try await AnalyticsHandler(context: context).handle(request, name: parts.count == 2 ? parts[1] : nil, on: $0)
            }
        case ("analytics", 2) where parts[1] == "active":
            return try await connections.run { try await ActiveUsers.read(request, identity: context.identity, on: $0) }
        case ("analytics", 2) where parts[1] == "requests":
            return try await connections.run { try await RequestCountsHandler.read(request, identity: context.identity, on: $0) }
        case ("push", 1):
            return try await connections.run { try await PushHandler(context: context).handle(request, on: $0) }
        case ("push_audiences", 1), ("push_audiences", 2):
            // parse-server's AudiencesRouter: the master key for everything, `query` answered as an object.
            guard context.identity.isMaster || context.identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
            let answer = try await objects(request, className: PlatformClasses.audience,
                                           objectId: parts.count == 2 ? parts[1] : nil, connections: connections,
                                           inTransaction: inTransaction)
            return request.method == "GET" ? AudienceAnswers.parsingQueries(answer) : answer
        case ("batch", 1):
            guard request.method == "POST" else { break }
            return try await BatchHandler(handler: self).handle(request, connections: connections, inTransaction: inTransaction)
        case ("schemas", 1), ("schemas", 2):
            return try await connections.run {
                try await SchemasHandler(context: context).handle(request, className: parts.count == 2 ? parts[1] : nil, on: $0)
            }
        case ("purge", 2):
            guard request.method == "DELETE" else { break }
            return try await connections.run { try await SchemasHandler(context: context).purge(parts[1], on: $0) }
        case ("settings", 1):
            guard let settings = context.settings else { break }
            return try await settings.handle(request)
        case ("serverInfo", 1):
            return try ServerInfoHandler.handle(request, identity: context.identity)
        case ("aggregate", 2):
            return try await connections.run {
                try await AggregateHandler(context: context, connection: $0).handle(request, className: parts[1])
            }
        default:
            break
        }
        throw ParseError.noSuchRoute(request.method, "/\(request.path)")
    }

    /// Cloud Code runs between the steps that borrow a connection, never inside one (see `StatementConnections`).
    private func objects(_ request: RESTRequest, className: String, objectId: String?,
                         connections: StatementConnections, inTransaction: Bool) async throws -> RESTResponse {
        let context = self.context
        let operation = switch (request.method, objectId) {
        case ("GET", nil): "find"
        case ("GET", _): "get"
        case ("POST", _): "create"
        case ("PUT", _): "update"
        default: "delete"
        }
        try PlatformClasses.checkAccess(operation, className: className, identity: context.identity)
        if className == PlatformClasses.installation, request.method == "POST" && objectId == nil || request.method == "PUT" {
            return try await installationWrite(request, objectId: objectId, connections: connections, inTransaction: inTransaction)
        }
        var request = request
        if className == PlatformClasses.audience, request.method == "POST" {
            // Audiences are the master key's: a new one without an ACL is readable and writable with it only.
            var body = try RequestBody.object(request.body)
            if body["ACL"] == nil { body["ACL"] = .object([:]) }
            request.body = JSONValue.object(body).compactText
        }
        switch (request.method, objectId) {
        case ("GET", nil):
            var merged = try QueryOptions.merge(query: request.query, body: request.body)
            let triggers = await context.triggers(of: className)
            if let triggers, triggers.has(.beforeFind) { merged = try await triggers.beforeFind(merged) }
            let options = try QueryOptions(find: merged)
            if options.explain {
                let plan = try await connections.run {
                    try await ObjectReader(context: context, connection: $0).explain(className, options: options)
                }
                return Self.json(200, .object(["results": plan]))
            }
            let found = try await connections.run { connection in
                var reader = ObjectReader(context: context, connection: connection)
                reader.mayCreateIndexes = !inTransaction
                return try await reader.find(className, options: options)
            }
            var results = found.results
            if let triggers, triggers.has(.afterFind) { results = try await triggers.afterFind(results) }
            var body: [String: JSONValue] = ["results": .array(results)]
            if let count = found.count { body["count"] = .number(Double(count)) }
            return Self.json(200, .object(body))
        case ("GET", let id?):
            let options = try QueryOptions(get: QueryOptions.merge(query: request.query, body: request.body))
            let object = try await ObjectReader.get(className, objectId: id, options: options, context: context,
                                                    connections: connections)
            if let triggers = await context.triggers(of: className), triggers.has(.afterFind) {
                // parse-server runs afterFind for a get too; an answer without the object is a 101.
                guard let first = try await triggers.afterFind([.object(object)]).first?.objectValue else {
                    throw ParseError(.objectNotFound, "Object not found.")
                }
                return Self.json(200, .object(first))
            }
            return Self.json(200, .object(object))
        case ("POST", nil):
            var body = try RequestBody.object(request.body)
            var changed: [String] = []
            if let triggers = await context.triggers(of: className), triggers.has(.beforeSave) {
                (body, changed) = try await triggers.beforeSave(body, objectId: nil, original: nil)
            }
            let changes = body
            var together: ObjectWriter.Created?
            if !inTransaction, case .pool = connections {
                together = try await ObjectWriter.createTogether(className, body: changes, context: context)
            }
            let created = if let together { together } else {
                try await connections.run { connection in
                    guard !inTransaction else {
                        return try await ObjectWriter(context: context, connection: connection).create(className, body: changes)
                    }
                    return try await ObjectWriter.createInItsOwnTransaction(className, body: changes, context: context, on: connection)
                }
            }
            return Self.json(201, .object(BeforeSaveMerge.answer(created.body, changed: changed, changes: changes)),
                             headers: ["Location": "\(request.serverURL)/classes/\(className)/\(created.objectId)"])
        case ("PUT", let id?):
            var body = try RequestBody.object(request.body)
            var changed: [String] = []
            if let triggers = await context.triggers(of: className), triggers.has(.beforeSave) {
                let original = try await connections.run {
                    try await ObjectReader(context: context, connection: $0).get(className, objectId: id, options: QueryOptions(get: [:]))
                }
                (body, changed) = try await triggers.beforeSave(body, objectId: id, original: original)
            }
            let changes = body
            let answer = try await write(connections, inTransaction) { connection in
                try await ObjectWriter(context: context, connection: connection).update(className, objectId: id, body: changes)
            }
            return Self.json(200, .object(BeforeSaveMerge.answer(answer, changed: changed, changes: changes)))
        case ("DELETE", let id?):
            if let triggers = await context.triggers(of: className), triggers.has(.beforeDelete) {
                let object = try await connections.run {
                    try await ObjectReader(context: context, connection: $0).get(className, objectId: id, options: QueryOptions(get: [:]))
                }
                try await triggers.beforeDelete(object)
            }
            try await write(connections, inTransaction) { connection in
                try await ObjectWriter(context: context, connection: connection).delete(className, objectId: id)
            }
            return Self.json(200, .object([:]))
        default:
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
    }

    /// An `_Installation` create or update, which may become an update of the device's existing row.
    private func installationWrite(_ request: RESTRequest, objectId: String?, connections: StatementConnections,
                                   inTransaction: Bool) async throws -> RESTResponse {
        let context = self.context, className = PlatformClasses.installation
        try ClassPermissions.refuseReadOnlyMaster(context.identity, objectId == nil ? "create" : "update")
        let sent = try RequestBody.object(request.body)
        let (status, body, createdId) = try await write(connections, inTransaction) { connection in
            let current = try await SchemaStore.load(className, on: connection)
            let schema = try await SchemaStore.ensure(className, fields: PlatformClasses.defaultFields[className] ?? [:],
                                                      current: current, on: connection)
            var body = sent
            let target = try await InstallationRules(identity: context.identity, connection: connection)
                .prepare(&body, objectId: objectId)
            let writer = ObjectWriter(context: context, connection: connection)
            if let target {
                body["objectId"] = nil
                body["createdAt"] = nil
                return (200, try await writer.update(className, objectId: target, body: body, schema: schema), String?.none)
            }
            let created = try await writer.create(className, body: body, schema: schema)
            return (201, created.body, created.objectId)
        }
        guard let createdId else { return Self.json(status, .object(body)) }
        return Self.json(201, .object(body), headers: ["Location": "\(request.serverURL)/classes/\(className)/\(createdId)"])
    }

    private func write<T: Sendable>(_ connections: StatementConnections, _ inTransaction: Bool,
                                    _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await connections.run { connection in
            if inTransaction { return try await body(connection) }
            return try await connection.transaction(body)
        }
    }

    static func json(_ status: Int, _ body: JSONValue, headers: [String: String] = [:]) -> RESTResponse {
        RESTResponse(status: status, headers: headers, body: body.compactText)
    }
}

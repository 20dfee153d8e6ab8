import Contracts
import ParseWire
import Query
import Storage

/// parse-server's `_Installation` rules (RestWrite's `handleInstallation`): an id field on create, `deviceType` on
/// create and never changed, ids in lower case, and a create or update for a device that already has a row merged
/// into that row (by `installationId`, from the body or `X-Parse-Installation-Id`, or by `deviceToken`), removing
/// the stale rows of the same device token. Runs inside the write's transaction, before the write itself.
struct InstallationRules {
    let identity: Identity
    let connection: PostgresConnection

    static let className = "_Installation"

    /// Normalizes `body` and answers the objectId the write must update (an update's own, or the device's row a
    /// create merges into), or nil for a plain create.
    func prepare(_ body: inout [String: JSONValue], objectId: String?) async throws -> String? {
        let installationIdSent = body["installationId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let tokenSent = body["deviceToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if objectId == nil, installationIdSent == nil, tokenSent == nil, identity.installationId?.isEmpty ?? true {
            throw ParseError(.missingRequiredField,
                             "at least one ID field (deviceToken, installationId) must be specified in this operation")
        }
        var deviceToken = tokenSent
        if let token = deviceToken, token.count == 64 {   // an APNs token: parse-server keeps them in lower case
            deviceToken = token.lowercased()
            body["deviceToken"] = .string(token.lowercased())
        }
        if let id = installationIdSent { body["installationId"] = .string(id.lowercased()) }
        let dataInstallationId = installationIdSent?.lowercased()
        var installationId = dataInstallationId
        if installationId == nil, !identity.isMaster { installationId = identity.installationId?.lowercased() }
        let deviceType = body["deviceType"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }

        if objectId != nil, deviceToken == nil, installationId == nil, body["deviceType"] == nil { return objectId }
        let rows = try await matches(objectId: objectId, installationId: installationId, deviceToken: deviceToken)
        let objectIdMatch = objectId.flatMap { id in rows.first { $0.objectId == id } }
        let installationIdMatch = installationId.flatMap { id in rows.first { $0.installationId == id } }
        let tokenMatches = deviceToken.map { token in rows.filter { $0.deviceToken == token } } ?? []

        if objectId != nil {
            guard let current = objectIdMatch else { throw ParseError(.objectNotFound, "Object not found for update.") }
            if let sent = dataInstallationId, let stored = current.installationId, sent != stored {
                throw ParseError(.changedImmutableField, "installationId may not be changed in this operation")
            }
            if let sent = deviceToken, let stored = current.deviceToken, sent != stored, dataInstallationId == nil,
               current.installationId == nil {
                throw ParseError(.changedImmutableField, "deviceToken may not be changed in this operation")
            }
            if let sent = body["deviceType"], sent != .null, sent.stringValue != current.deviceType {
                throw ParseError(.changedImmutableField, "deviceType may not be changed in this operation")
            }
        }
        let idMatch = (installationId != nil ? installationIdMatch : nil) ?? objectIdMatch
        if objectId == nil, deviceType == nil, idMatch == nil {
            throw ParseError(.missingRequiredField, "deviceType must be specified in this operation")
        }

        let appIdentifier = body["appIdentifier"]?.stringValue
        guard let idMatch else {
            guard let token = deviceToken, !tokenMatches.isEmpty else { return objectId }
            if tokenMatches.count == 1, tokenMatches[0].installationId == nil || installationId == nil {
                return tokenMatches[0].objectId
            }
            guard let keep = dataInstallationId else {
                throw ParseError(.invalidInstallationId,
                                 "Must specify installationId when deviceToken matches multiple Installation objects")
            }
            try await deleteStale(token: token, keepingInstallationId: keep, keepingObjectId: nil, appIdentifier: appIdentifier)
            return objectId
        }
        if tokenMatches.count == 1, tokenMatches[0].installationId == nil, tokenMatches[0].objectId != idMatch.objectId {
            // The one case parse-server merges two rows: the device's token row absorbs its id row.
            try await delete(where: "\"objectId\" = $1", [idMatch.objectId])
            return tokenMatches[0].objectId
        }
        if let token = deviceToken, idMatch.deviceToken != token {
            if let keep = dataInstallationId {
                try await deleteStale(token: token, keepingInstallationId: keep, keepingObjectId: nil, appIdentifier: appIdentifier)
            } else if let sentId = body["objectId"]?.stringValue, sentId == idMatch.objectId {
                try await deleteStale(token: token, keepingInstallationId: nil, keepingObjectId: sentId, appIdentifier: appIdentifier)
            }
        }
        return idMatch.objectId
    }

    struct Row: Sendable { var objectId: String; var installationId: String?; var deviceToken: String?; var deviceType: String? }

    /// Every row matching the objectId, the installation id or the device token, whatever their ACLs (as parse-server
    /// looks them up); the write itself then applies the ACL.
    private func matches(objectId: String?, installationId: String?, deviceToken: String?) async throws -> [Row] {
        guard let statement = Self.matchesStatement(objectId: objectId, installationId: installationId,
                                                    deviceToken: deviceToken) else { return [] }
        let result = try await connection.query(statement.sql, statement.parameters)
        return result.rows.map { row in
            Row(objectId: row["objectId"] ?? "", installationId: row["installationId"], deviceToken: row["deviceToken"],
                deviceType: row["deviceType"])
        }
    }

    /// `matches`' statement, nil when there is nothing to look up. Each condition has an index of its own
    /// (`InstallationTable`), which PostgreSQL combines for the OR.
    static func matchesStatement(objectId: String?, installationId: String?, deviceToken: String?) -> PostgresStatement? {
        var parameters = SQLParameters()
        var conditions: [String] = []
        if let objectId { conditions.append("\"objectId\" = \(parameters.bind(objectId))") }
        if let installationId { conditions.append("\"installationId\" = \(parameters.bind(installationId))") }
        if let deviceToken { conditions.append("\"deviceToken\" = \(parameters.bind(deviceToken))") }
        guard !conditions.isEmpty else { return nil }
        return PostgresStatement("""
            SELECT "objectId", "installationId", "deviceToken", "deviceType" FROM \(Names.table(className))
            WHERE \(conditions.joined(separator: " OR ")) ORDER BY "createdAt" FOR UPDATE
            """, parameters.values)
    }

    /// Removes the other rows that carry `token`: the token moved to the row being written.
    private func deleteStale(token: String, keepingInstallationId: String?, keepingObjectId: String?,
                             appIdentifier: String?) async throws {
        var parameters = SQLParameters()
        var conditions = ["\"deviceToken\" = \(parameters.bind(token))"]
        if let keepingInstallationId {
            conditions.append("\"installationId\" IS DISTINCT FROM \(parameters.bind(keepingInstallationId))")
        }
        if let keepingObjectId { conditions.append("\"objectId\" <> \(parameters.bind(keepingObjectId))") }
        if let appIdentifier { conditions.append("\"appIdentifier\" = \(parameters.bind(appIdentifier))") }
        try await delete(where: conditions.joined(separator: " AND "), parameters.values)
    }

    private func delete(where condition: String, _ values: [(any PostgresBindable)?]) async throws {
        let result = try await connection.query(
            "DELETE FROM \(Names.table(Self.className)) WHERE \(condition) RETURNING \"objectId\"", values)
        for row in result.rows {
            guard let id = row["objectId"] else { continue }
            try await ObjectEvents.add(.deleted, className: Self.className, objectId: id, object: nil, schema: nil,
                                       on: connection)
        }
    }
}

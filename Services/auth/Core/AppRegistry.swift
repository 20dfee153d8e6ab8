import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Storage

/// The stack's apps besides its own (`apps`, in the stack's own auth database): their names, application ids and
/// keys, created, listed, resolved and deleted through the `apps.*` commands. The stack's own app is not a row: its
/// keys are its processes' environment, and the list names it first.
struct AppRegistry: Sendable {
    let pool: PostgresPool
    /// The stack's own app, as the environment names it.
    let stackApp: AppSummary

    /// A deleted app stays as a row marked deleted until every service dropped its data (`apps.purge.v1`), so a
    /// deletion interrupted half-way is finished by deleting the app again.
    static let deletionMigration = Migration(version: 14, name: "apps being deleted", sql: """
        ALTER TABLE apps ADD COLUMN deleted_at timestamptz;
        """)

    static let pushMigration = Migration(version: 13, name: "apps' push endpoints", sql: """
        ALTER TABLE apps ADD COLUMN push_endpoints text NOT NULL DEFAULT '';
        """)

    static let migration = Migration(version: 12, name: "app registry", sql: """
        CREATE TABLE apps (
            application_id text PRIMARY KEY,
            name           text NOT NULL UNIQUE,
            master_key     text NOT NULL,
            client_key     text NOT NULL,
            rest_api_key   text NOT NULL,
            javascript_key text NOT NULL,
            dotnet_key     text NOT NULL,
            created_at     timestamptz NOT NULL DEFAULT now()
        );
        """)

    static func register(_ router: inout CommandRouter, pool: PostgresPool, stackApp: AppSummary) {
        let registry = AppRegistry(pool: pool, stackApp: stackApp)
        router.register(CreateApp.type, CreateApp.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.create(command.payload)
        }
        router.register(ListApps.type, Empty.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.list()
        }
        router.register(ResolveApp.type, ResolveApp.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.resolve(command.payload.applicationId)
        }
        router.register(RotateAppKeys.type, RotateAppKeys.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.rotateKeys(command.payload.applicationId)
        }
        router.register(RenameApp.type, RenameApp.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.rename(command.payload.applicationId, to: command.payload.name)
        }
        router.register(SetAppPushEndpoints.type, SetAppPushEndpoints.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.setPushEndpoints(command.payload.applicationId, command.payload.endpoints)
        }
        router.register(DeleteApp.type, DeleteApp.self) { command, _ in
            try Self.requireMaster(command.identity)
            return try await registry.delete(named: command.payload.name)
        }
        router.register(PurgeApp.type, PurgeApp.self) { command, _ -> Empty in
            try Self.requireMaster(command.identity)
            try await registry.purge(command.payload.applicationId)
            return Empty()
        }
    }

    private static func requireMaster(_ identity: Identity) throws {
        guard identity.isMaster, !identity.isMaintenance else {
            throw ParseError(.operationForbidden, "The app registry needs the admin key.")
        }
    }

    /// The app the stack's environment names has its `setting` there, not in the registry.
    private func requireCreatedApp(_ id: String, _ setting: String) throws {
        guard id != stackApp.applicationId else {
            throw ParseError(.operationForbidden, "The \(setting) of the app the stack's environment names are set in its environment.")
        }
    }

    /// `name` without the spaces around it, if an app may have it.
    private func checkedName(_ name: String) throws -> String {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100 else {
            throw ParseError(.invalidJSON, "An app needs a name of 1 to 100 characters.")
        }
        guard name != stackApp.name else { throw ParseError(.duplicateValue, "An app named \(name) exists already.") }
        return name
    }

    func create(_ request: CreateApp) async throws -> AppRecord {
        let name = try checkedName(request.name)
        let id = request.applicationId ?? Self.newKey()
        guard AppContext.isValidId(id) else {
            throw ParseError(.invalidJSON, "An application id is 1 to 40 letters, digits, '_' or '-'.")
        }
        guard id != stackApp.applicationId else { throw ParseError(.duplicateValue, "An app with the id \(id) exists already.") }
        let keys = (0..<5).map { _ in Self.newKey() }
        let rows: [PostgresRow]
        do {
            rows = try await pool.query("""
                INSERT INTO apps (application_id, name, master_key, client_key, rest_api_key, javascript_key, dotnet_key)
                VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING \(Self.columns)
                """, ([id, name] + keys).map { $0 as (any PostgresBindable)? }).rows
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw ParseError(.duplicateValue, "An app with that name or id exists already.")
        }
        guard let record = rows.first.flatMap(Self.record) else { throw ParseError(.internalServerError, "The app was not kept.") }
        // A gateway that was told a moment ago that no app has this id stops believing it before the answer.
        try await Task.sleep(for: AppLease.duration)
        return record
    }

    func list() async throws -> AppList {
        let rows = try await pool.query("SELECT \(Self.columns) FROM apps WHERE deleted_at IS NULL ORDER BY created_at, name").rows
        return AppList(apps: [stackApp] + rows.compactMap(Self.record).map {
            AppSummary(name: $0.name, applicationId: $0.applicationId, isStackApp: false, createdAt: $0.createdAt)
        })
    }

    func resolve(_ id: String) async throws -> AppRecord {
        let rows = try await pool.query("SELECT \(Self.columns) FROM apps WHERE application_id = $1 AND deleted_at IS NULL", [id]).rows
        guard let record = rows.first.flatMap(Self.record) else { throw Self.unknown(id) }
        return record
    }

    func rotateKeys(_ id: String) async throws -> AppRecord {
        try requireCreatedApp(id, "keys")
        let keys = (0..<5).map { _ in Self.newKey() }
        let rows = try await pool.query("""
            UPDATE apps SET master_key = $2, client_key = $3, rest_api_key = $4, javascript_key = $5, dotnet_key = $6
            WHERE application_id = $1 AND deleted_at IS NULL RETURNING \(Self.columns)
            """, ([id] + keys).map { $0 as (any PostgresBindable)? }).rows
        guard let record = rows.first.flatMap(Self.record) else { throw Self.unknown(id) }
        // Every gateway's copy of the old keys runs out before the answer.
        try await Task.sleep(for: AppLease.duration)
        return record
    }

    func rename(_ id: String, to newName: String) async throws -> AppRecord {
        try requireCreatedApp(id, "name")
        let name = try checkedName(newName)
        let rows: [PostgresRow]
        do {
            rows = try await pool.query("""
                UPDATE apps SET name = $2 WHERE application_id = $1 AND deleted_at IS NULL RETURNING \(Self.columns)
                """, [id, name]).rows
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw ParseError(.duplicateValue, "An app named \(name) exists already.")
        }
        guard let record = rows.first.flatMap(Self.record) else { throw Self.unknown(id) }
        // Every gateway's copy of the old name runs out before the answer.
        try await Task.sleep(for: AppLease.duration)
        return record
    }

    /// Read by the push adapter at each of the app's pushes: no copy to wait for.
    func setPushEndpoints(_ id: String, _ text: String) async throws -> AppRecord {
        try requireCreatedApp(id, "push endpoints")
        let endpoints = try PushEndpoints(text)
        let rows = try await pool.query("UPDATE apps SET push_endpoints = $2 WHERE application_id = $1 AND deleted_at IS NULL RETURNING \(Self.columns)",
                                        [id, endpoints.text]).rows
        guard let record = rows.first.flatMap(Self.record) else { throw Self.unknown(id) }
        return record
    }

    /// Marks the app deleted (again, for one whose deletion did not finish): it is served no more; its row goes once
    /// every service dropped its data (`purge`).
    func delete(named name: String) async throws -> AppRecord {
        guard name != stackApp.name else {
            throw ParseError(.operationForbidden, "\(name) is the app the stack's environment names: it cannot be deleted.")
        }
        let record = try await pool.transaction { connection in
            let rows = try await connection.query(
                "UPDATE apps SET deleted_at = coalesce(deleted_at, now()) WHERE name = $1 RETURNING \(Self.columns)", [name]).rows
            guard let record = rows.first.flatMap(Self.record) else {
                throw ParseError(.objectNotFound, "No app is named \(name).")
            }
            try await AuthEvents.appDeleted(record.applicationId, on: connection)
            return record
        }
        // No gateway serves it any more once the answer arrives: their copies of its keys have run out.
        try await Task.sleep(for: AppLease.duration)
        return record
    }

    func purge(_ id: String) async throws {
        _ = try await pool.query("DELETE FROM apps WHERE application_id = $1 AND deleted_at IS NOT NULL", [id])
    }

    static func unknown(_ id: String) -> ParseError { ParseError(.objectNotFound, "No app has the id \(id).") }

    /// 40 random letters and digits, as Parse's application ids and keys were.
    static func newKey() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<40).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    private static let columns = """
        application_id, name, master_key, client_key, rest_api_key, javascript_key, dotnet_key, push_endpoints,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
        """

    private static func record(_ row: PostgresRow) -> AppRecord? {
        guard let id = row["application_id"], let name = row["name"], let master = row["master_key"],
              let client = row["client_key"], let rest = row["rest_api_key"], let javascript = row["javascript_key"],
              let dotNet = row["dotnet_key"], let created = row["created_at"] else { return nil }
        return AppRecord(name: name, applicationId: id, masterKey: master, clientKey: client, restApiKey: rest,
                         javascriptKey: javascript, dotNetKey: dotNet, createdAt: created,
                         pushEndpoints: row["push_endpoints"].flatMap { $0.isEmpty ? nil : $0 })
    }
}

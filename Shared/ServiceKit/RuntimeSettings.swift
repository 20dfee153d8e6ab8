import Contracts
import Messaging
import ParseWire
import Storage

/// What a service does with the settings it owns that `/settings` may change while it runs.
public protocol RuntimeSettingsOwner: Sendable {
    /// The names it owns (`RuntimeSettingNames`).
    var names: Set<String> { get }
    /// Every owned setting's value in force with `overrides` (name to value) applied over the service's start-up
    /// values; throws a Parse error that names a value it cannot take.
    func settings(with overrides: [String: JSONValue]) throws(ParseError) -> [String: JSONValue]
}

/// The run-time values of a service's settings, in its own table `runtime_settings`: one row per setting changed
/// from its start-up value. A service reads them where they apply, from its own database, so a change answered to
/// the client applies to every later request on every replica; and only on the paths that use them (a sign-up, a
/// login, an upload, a class made by a client), where one read of a small table costs little beside the work.
public struct RuntimeSettings: Sendable {
    let pool: PostgresPool
    let owner: any RuntimeSettingsOwner

    public init(pool: PostgresPool, owner: any RuntimeSettingsOwner) {
        self.pool = pool
        self.owner = owner
    }

    public static func migration(version: Int) -> Migration {
        Migration(version: version, name: "runtime settings", sql: """
            CREATE TABLE runtime_settings (
                name text PRIMARY KEY,
                value jsonb NOT NULL,
                changed_at timestamptz NOT NULL DEFAULT now()
            );
            """)
    }

    private static let select = "SELECT name, value::text AS value FROM runtime_settings"

    /// The settings changed at run time.
    public func overrides() async throws -> [String: JSONValue] {
        Self.decode(try await pool.query(Self.select))
    }

    /// The same, on a connection a request already holds (inside its transaction, where it has one).
    public static func overrides(on connection: PostgresConnection) async throws -> [String: JSONValue] {
        decode(try await connection.query(select))
    }

    private static func decode(_ result: PostgresResult) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for row in result.rows {
            if let name = row["name"], let value = row["value"].flatMap({ JSONValue.parse($0) }) { values[name] = value }
        }
        return values
    }

    public func answer() async throws -> RuntimeSettingsAnswer {
        let overrides = try await overrides()
        return RuntimeSettingsAnswer(settings: try owner.settings(with: overrides), changed: overrides.keys.sorted())
    }

    /// Checks the changes against the others in force and, unless `dryRun`, stores them, in one transaction that
    /// holds the table's lock, so two changes at once cannot each pass a check the other breaks.
    public func change(_ command: ChangeRuntimeSettings) async throws -> RuntimeSettingsAnswer {
        for name in command.changes.keys where !owner.names.contains(name) {
            throw ParseError(.invalidJSON, "\(name) is not a setting that can change at run time.")
        }
        let owner = self.owner
        return try await pool.transaction { connection in
            _ = try await connection.query("LOCK TABLE runtime_settings IN SHARE ROW EXCLUSIVE MODE")
            var overrides = try await Self.overrides(on: connection)
            for (name, value) in command.changes {
                overrides[name] = value == .null ? nil : value
            }
            let settings = try owner.settings(with: overrides)
            if !command.dryRun {
                for (name, value) in command.changes.sorted(by: { $0.key < $1.key }) {
                    if value == .null {
                        _ = try await connection.query("DELETE FROM runtime_settings WHERE name = $1", [name])
                    } else {
                        _ = try await connection.query("""
                            INSERT INTO runtime_settings (name, value) VALUES ($1, $2::jsonb)
                            ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, changed_at = now()
                            """, [name, value.compactText])
                    }
                }
            }
            return RuntimeSettingsAnswer(settings: settings, changed: overrides.keys.sorted())
        }
    }

    /// Answers `settings.read.v1` and `settings.change.v1`, for posts' `/settings`; only with the master identity.
    public func register(_ router: inout CommandRouter) {
        let settings = self
        router.register(ReadRuntimeSettings.type, ReadRuntimeSettings.self) { command, _ in
            try Self.requireMaster(command.identity, write: false)
            return try await settings.answer()
        }
        router.register(ChangeRuntimeSettings.type, ChangeRuntimeSettings.self) { command, _ in
            try Self.requireMaster(command.identity, write: true)
            return try await settings.change(command.payload)
        }
    }

    static func requireMaster(_ identity: Identity, write: Bool) throws(ParseError) {
        guard identity.isMaster || (!write && identity.isReadOnlyMaster) else {
            throw ParseError(.operationForbidden, "unauthorized: master key is required")
        }
    }
}

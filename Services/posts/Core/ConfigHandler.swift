import Contracts
import Foundation
import ParseWire
import Query
import Runtime
import ServiceKit
import Storage

/// Parse Config (`GET`/`PUT /config`): one `_GlobalConfig` row (objectId `1`, ACL `{}` so only the master key
/// reaches it through `/classes`) with `params` and `masterKeyOnly`, as parse-server keeps it. Readers are not
/// served from a cache: every read sees the last committed write, and each write publishes `config.updated.v1`
/// for anyone who keeps a copy.
struct ConfigHandler {
    let context: RequestContext

    static let className = "_GlobalConfig"
    static let fields: [String: FieldType] = ["params": FieldType(.object), "masterKeyOnly": FieldType(.object)]

    func handle(_ request: RESTRequest, on connection: PostgresConnection) async throws -> RESTResponse {
        switch request.method {
        case "GET": return PostsHandler.json(200, try await read(on: connection))
        case "PUT": return try await write(request, on: connection)
        default: throw ParseError(.commandUnavailable, "Cannot \(request.method) /config: no such route.")
        }
    }

    private func read(on connection: PostgresConnection) async throws -> JSONValue {
        guard try await SchemaStore.load(Self.className, on: connection) != nil else { return .object(["params": .object([:])]) }
        let result = try await connection.query(
            "SELECT params::text AS params, \"masterKeyOnly\"::text AS master_key_only FROM \(Names.table(Self.className)) WHERE \"objectId\" = '1'")
        guard let row = result.first else { return .object(["params": .object([:])]) }
        var params = JSONValue.parse(row["params"] ?? "{}")?.objectValue ?? [:]
        var masterKeyOnly = JSONValue.parse(row["master_key_only"] ?? "{}")?.objectValue ?? [:]
        if !context.identity.isMaster && !context.identity.isReadOnlyMaster {
            for (name, hidden) in masterKeyOnly where hidden.boolValue == true && params[name] != nil {
                params[name] = nil
                masterKeyOnly[name] = nil
            }
        }
        return .object(["params": .object(params), "masterKeyOnly": .object(masterKeyOnly)])
    }

    private func write(_ request: RESTRequest, on connection: PostgresConnection) async throws -> RESTResponse {
        let identity = context.identity
        if identity.isReadOnlyMaster && !identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to update the config.")
        }
        guard identity.isMaster else { return SchemasHandler.masterKeyRequired }
        let change = try ConfigChange(RequestBody.object(request.body))
        // parse-server 8's Config triggers: beforeSave sees the update's params and the stored ones, and may
        // refuse; afterSave gets the params as stored after it.
        let triggers = await context.triggers(of: TriggerName.configClassName)
        let original = triggers == nil ? nil : try await read(on: connection)["params"]?.objectValue
        if let triggers, triggers.has(.beforeSave) {
            _ = try await triggers.beforeSave(change.set, objectId: nil, original: original)
        }
        try await connection.transaction { connection in
            let current = try await SchemaStore.load(Self.className, on: connection)
            _ = try await SchemaStore.ensure(Self.className, fields: Self.fields, current: current, on: connection)
            let now = ObjectWriter.now()
            let written = try await connection.query("""
                INSERT INTO \(Names.table(Self.className)) AS c ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", params, "masterKeyOnly")
                VALUES ('1', $1::timestamptz, $1::timestamptz, '{}', '{}', $2::jsonb, $4::jsonb)
                ON CONFLICT ("objectId") DO UPDATE SET "updatedAt" = $1::timestamptz,
                    params = (COALESCE(c.params, '{}'::jsonb) || $2::jsonb) - $3::text[],
                    "masterKeyOnly" = COALESCE(c."masterKeyOnly", '{}'::jsonb) || $4::jsonb
                RETURNING params::text AS params
                """, [now, JSONValue.object(change.set).compactText, PostgresArray.literal(change.deleted),
                      JSONValue.object(change.masterKeyOnly.mapValues { .bool($0) }).compactText])
            let event = CloudEvent(id: RandomUUID.string(), source: "posts", type: ConfigUpdated.type,
                                   time: ParseDate.string(from: Date()), subject: "config", data: ConfigUpdated(keys: change.keys))
            try await Outbox.add(event, routingKey: ConfigUpdated.routingKey, on: connection)
            if let triggers {
                let stored = written.first?["params"].flatMap { JSONValue.parse($0)?.objectValue } ?? [:]
                try await triggers.after(.afterSave, object: stored, original: original, on: connection)
            }
        }
        return PostsHandler.json(200, .object(["result": .bool(true)]))
    }
}

/// A `PUT /config` body checked: the params to set, those to delete (`{"__op":"Delete"}`), and for each of them
/// whether only the master key may read it (parse-server records `false` when the body does not say).
struct ConfigChange: Sendable {
    var set: [String: JSONValue] = [:]
    var deleted: [String] = []
    var masterKeyOnly: [String: Bool] = [:]
    var keys: [String] { (Array(set.keys) + deleted).sorted() }

    init(_ body: [String: JSONValue]) throws(ParseError) {
        let params: [String: JSONValue]
        switch body["params"] {
        case nil, .null?: params = [:]
        case .object(let value)?: params = value
        default: throw ParseError(.invalidJSON, "params must be an object.")
        }
        let flags: [String: JSONValue]
        switch body["masterKeyOnly"] {
        case nil, .null?: flags = [:]
        case .object(let value)?: flags = value
        default: throw ParseError(.invalidJSON, "masterKeyOnly must be an object.")
        }
        for (name, value) in params {
            guard !name.isEmpty, !name.contains("."), !name.hasPrefix("$") else {
                throw ParseError(.invalidKeyName, "Invalid key name: \(name)")
            }
            if value.objectValue?["__op"]?.stringValue == "Delete" {
                deleted.append(name)
            } else {
                try ValueStorage.checkNestedKeys(value)
                set[name] = value
            }
            masterKeyOnly[name] = flags[name]?.boolValue ?? false
        }
    }
}

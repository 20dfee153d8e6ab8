import Contracts
import ParseWire

/// `GET /serverInfo` (master key): parse-server's feature list, each flag saying what this server really serves,
/// so the Parse Dashboard and the SDKs offer only what works.
enum ServerInfoHandler {
    /// The parse-server release whose REST behaviour this server follows; clients compare it to enable features.
    static let compatibleParseServerVersion = "7.4.0"

    static let features: JSONValue = .object([
        "globalConfig": flags(["create": true, "read": true, "update": true, "delete": true]),
        // `/hooks`, Cloud Code jobs and `/scriptlog` are the cloud service's.
        "hooks": flags(["create": true, "read": true, "update": true, "delete": true]),
        "cloudCode": flags(["jobs": true]),
        "logs": flags(["level": true, "size": true, "order": true, "until": true, "from": true]),
        // Localized alerts are picked per device by the adapters (`PushLocalization`, docs/push.md).
        "push": flags(["immediatePush": true, "scheduledPush": true, "storedPushData": true,
                       "pushAudiences": true, "localization": true]),
        // `/schemas` adds and removes fields and classes and edits class-level permissions, pointer permissions
        // (`readUserFields`, `writeUserFields`, `pointerFields`, enforced by `PointerPermissions`) included;
        // `/purge` clears a class. parse-server itself has no export.
        "schemas": flags(["addField": true, "removeField": true, "addClass": true, "removeClass": true,
                          "clearAllDataFromClass": true, "exportClass": false, "editClassLevelPermissions": true,
                          "editPointerPermissions": true]),
    ])

    static func handle(_ request: RESTRequest, identity: Identity) throws(ParseError) -> RESTResponse {
        // parse-server's master-key check lets the read-only master key through.
        guard identity.isMaster || identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
        guard request.method == "GET" else {
            throw ParseError(.commandUnavailable, "Cannot \(request.method) /serverInfo: no such route.")
        }
        return PostsHandler.json(200, .object([
            "features": features, "parseServerVersion": .string(compatibleParseServerVersion),
        ]))
    }

    private static func flags(_ values: [String: Bool]) -> JSONValue { .object(values.mapValues { .bool($0) }) }
}

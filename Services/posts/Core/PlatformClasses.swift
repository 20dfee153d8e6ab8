import Contracts
import ParseWire
import Query

/// The Parse system classes posts keeps beside the apps' own (`_User`, `_Session` and `_Role` are auth's): their
/// default fields, made when the class is, and parse-server's access rules for them (`SharedRest.js`).
enum PlatformClasses {
    static let installation = "_Installation"
    static let pushStatus = "_PushStatus"
    static let globalConfig = "_GlobalConfig"
    static let audience = "_Audience"

    static let defaultFields: [String: [String: FieldType]] = [
        installation: fields(string: ["installationId", "deviceToken", "deviceType", "pushType", "GCMSenderId",
                                      "timeZone", "localeIdentifier", "appVersion", "appName", "appIdentifier",
                                      "parseVersion"],
                             number: ["badge"], array: ["channels"]),
        pushStatus: fields(string: ["pushTime", "source", "query", "payload", "title", "status", "pushHash"],
                           number: ["expiry", "expiration_interval", "numSent", "numFailed", "count"],
                           object: ["errorMessage", "sentPerType", "failedPerType", "sentPerUTCOffset",
                                    "failedPerUTCOffset"]),
        globalConfig: fields(object: ["params", "masterKeyOnly"]),
        audience: fields(string: ["name", "query"], number: ["timesUsed"]).merging(["lastUsed": FieldType(.date)]) { $1 },
    ]

    /// Classes whose fields are only their default ones, as parse-server keeps its volatile classes.
    static let fixedFields: Set<String> = [audience]

    /// Classes only the master key (or the read-only one, for reads) reaches at all.
    static let masterOnly: Set<String> = [pushStatus, globalConfig]

    /// An app's class name, or one of the system classes kept here.
    static func requireClassName(_ name: String) throws(ParseError) {
        if defaultFields[name] != nil { return }
        try Names.requireClassName(name)
    }

    /// parse-server's `enforceRoleSecurity`; `operation` is `find`, `get`, `create`, `update` or `delete`. Beyond
    /// parse-server, which leaves `_Audience` open, a client may create an audience (as parse-server's SDK suites
    /// do) but not change or delete one: an audience chooses who gets the master key's push. Reads follow the
    /// class-level permissions, and find nothing until one opens them (`hidesAudiences`).
    static func checkAccess(_ operation: String, className: String, identity: Identity) throws(ParseError) {
        guard !identity.isMaster && !identity.isReadOnlyMaster else { return }
        if className == installation && (operation == "find" || operation == "delete") {
            throw ParseError(.operationForbidden,
                             "Clients aren't allowed to perform the \(operation) operation on the installation collection.")
        }
        if masterOnly.contains(className) || className == audience && !["find", "get", "create"].contains(operation) {
            throw refusal(operation, className: className)
        }
    }

    /// Whether a client's read of `_Audience` must find nothing: no class-level permission opens the operation.
    static func hidesAudiences(_ operation: String, schema: ClassSchema, identity: Identity) -> Bool {
        schema.className == audience && !identity.isMaster && !identity.isReadOnlyMaster
            && schema.classLevelPermissions?[operation] == nil
    }

    static func refusal(_ operation: String, className: String) -> ParseError {
        ParseError(.operationForbidden, "Clients aren't allowed to perform the \(operation) operation on the \(className) collection.")
    }

    /// parse-server refuses new fields on `_Audience`: `107 Could not add field <name>`.
    static func checkFields(_ className: String, _ wanted: [String: FieldType]) throws(ParseError) {
        guard fixedFields.contains(className), let defaults = defaultFields[className] else { return }
        if let extra = wanted.keys.sorted().first(where: { defaults[$0] == nil }) {
            throw ParseError(.invalidJSON, "Could not add field \(extra)")
        }
    }

    private static func fields(string: [String] = [], number: [String] = [], array: [String] = [],
                               object: [String] = []) -> [String: FieldType] {
        var all: [String: FieldType] = [:]
        for name in string { all[name] = FieldType(.string) }
        for name in number { all[name] = FieldType(.number) }
        for name in array { all[name] = FieldType(.array) }
        for name in object { all[name] = FieldType(.object) }
        return all
    }
}

extension ParseError.Code {
    static let invalidInstallationId = ParseError.Code(rawValue: 132)
}

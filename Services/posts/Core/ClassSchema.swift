import Contracts
import ParseWire
import Query
import Storage

/// One class as `parse_schema` records it.
public struct ClassSchema: Sendable {
    public var className: String
    public var fields: [String: FieldType] { didSet { selectLists = SelectLists() } }
    /// Nil: parse-server's defaults, every operation public.
    public var classLevelPermissions: [String: JSONValue]?
    public var indexes: [String: JSONValue]
    /// See `SchemaStore.fingerprintSQL`; empty for a schema built in memory.
    var fingerprint = ""
    /// Built from `fields` as they are now: replaced whenever they change.
    private(set) var selectLists = SelectLists()

    public init(className: String, fields: [String: FieldType] = [:],
                classLevelPermissions: [String: JSONValue]? = nil, indexes: [String: JSONValue] = [:]) {
        self.className = className
        self.fields = fields
        self.classLevelPermissions = classLevelPermissions
        self.indexes = indexes
    }

    /// The fields every object has, whatever its class.
    public static let systemFields: [String: FieldType] = [
        "objectId": FieldType(.string), "createdAt": FieldType(.date), "updatedAt": FieldType(.date),
        "ACL": FieldType(.acl),
    ]

    public func type(of field: String) -> FieldType? { Self.systemFields[field] ?? fields[field] }

    /// The version of the permissions `/schemas` shows for the class (`PermissionsVersion`).
    var permissionsVersion: String {
        classLevelPermissions.map { PermissionsVersion.of(.object($0)) } ?? Self.defaultPermissionsVersion
    }

    /// Every event of a class without permissions of its own carries it: worked out once.
    private static let defaultPermissionsVersion = PermissionsVersion.of(.object(defaultPermissions))

    static let defaultPermissions: [String: JSONValue] = {
        var permissions: [String: JSONValue] = [:]
        for operation in ["find", "count", "get", "create", "update", "delete", "addField"] {
            permissions[operation] = .object(["*": .bool(true)])
        }
        permissions["protectedFields"] = .object(["*": .array([])])
        return permissions
    }()

    /// The `/schemas` form.
    public var json: JSONValue {
        var fieldsJSON: [String: JSONValue] = [:]
        for (name, type) in Self.systemFields { fieldsJSON[name] = type.schemaJSON }
        for (name, type) in fields { fieldsJSON[name] = type.schemaJSON }
        var body: [String: JSONValue] = [
            "className": .string(className), "fields": .object(fieldsJSON),
            "classLevelPermissions": .object(classLevelPermissions ?? Self.defaultPermissions),
        ]
        if !indexes.isEmpty { body["indexes"] = .object(indexes) }
        return .object(body)
    }

    init(row: PostgresRow) {
        className = row["class_name"] ?? ""
        var fields: [String: FieldType] = [:]
        for (name, value) in JSONValue.parse(row["fields"] ?? "{}")?.objectValue ?? [:] {
            if let type = FieldType(schemaJSON: value) { fields[name] = type }
        }
        self.fields = fields
        classLevelPermissions = row["class_level_permissions"].flatMap { JSONValue.parse($0)?.objectValue }
        indexes = JSONValue.parse(row["indexes"] ?? "{}")?.objectValue ?? [:]
        fingerprint = row["fingerprint"] ?? ""
    }

    var fieldsJSONText: String {
        JSONValue.object(fields.mapValues(\.schemaJSON)).compactText
    }
}

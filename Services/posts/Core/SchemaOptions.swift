import ParseWire
import Runtime

/// parse-server's `schema` option, by its environment variables: the classes the app defines
/// (`PARSE_SERVER_SCHEMA_DEFINITIONS`, a JSON array of `/schemas` bodies), applied at start by `DefinedSchemas`, and
/// its switches (`..._STRICT`, `..._DELETE_EXTRA_FIELDS`, `..._RECREATE_MODIFIED_FIELDS`, `..._LOCK_SCHEMAS`).
public struct SchemaOptions: Sendable {
    public var definitions: [[String: JSONValue]]
    /// Warns of classes and fields the database has beyond the definitions.
    public var strict = false
    /// Deletes the fields a defined class has beyond its definition.
    public var deleteExtraFields = false
    /// Drops and adds again a field whose type differs from its definition (its values are lost).
    public var recreateModifiedFields = false
    /// `/schemas` refuses every change while the server runs.
    public var lockSchemas = false

    public init(definitions: [[String: JSONValue]], strict: Bool = false, deleteExtraFields: Bool = false,
                recreateModifiedFields: Bool = false, lockSchemas: Bool = false) {
        self.definitions = definitions
        self.strict = strict
        self.deleteExtraFields = deleteExtraFields
        self.recreateModifiedFields = recreateModifiedFields
        self.lockSchemas = lockSchemas
    }

    /// Nil when no definitions are given: the option is off, as in parse-server.
    static func fromEnvironment(_ env: Environment) throws -> SchemaOptions? {
        guard let text = env.optional("PARSE_SERVER_SCHEMA_DEFINITIONS") else { return nil }
        guard let array = JSONValue.parse(text)?.arrayValue else {
            throw ConfigurationError("PARSE_SERVER_SCHEMA_DEFINITIONS must be a JSON array of schemas, like [{\"className\":\"Cat\",\"fields\":{...}}]")
        }
        var definitions: [[String: JSONValue]] = []
        var names: Set<String> = []
        for item in array {
            guard let definition = item.objectValue, let name = definition["className"]?.stringValue, !name.isEmpty else {
                throw ConfigurationError("PARSE_SERVER_SCHEMA_DEFINITIONS: every schema needs a className")
            }
            guard names.insert(name).inserted else {
                throw ConfigurationError("PARSE_SERVER_SCHEMA_DEFINITIONS defines \(name) twice")
            }
            definitions.append(definition)
        }
        return SchemaOptions(definitions: definitions,
                             strict: try env.bool("PARSE_SERVER_SCHEMA_STRICT", default: false),
                             deleteExtraFields: try env.bool("PARSE_SERVER_SCHEMA_DELETE_EXTRA_FIELDS", default: false),
                             recreateModifiedFields: try env.bool("PARSE_SERVER_SCHEMA_RECREATE_MODIFIED_FIELDS", default: false),
                             lockSchemas: try env.bool("PARSE_SERVER_SCHEMA_LOCK_SCHEMAS", default: false))
    }
}

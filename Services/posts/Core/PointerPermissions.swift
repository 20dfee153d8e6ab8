import Contracts
import ParseWire
import Query
import Storage

/// Pointer permissions (`readUserFields`, `writeUserFields`, and `pointerFields` in an operation's entry), as
/// parse-server's `addPointerPermissions` applies them: when the class-level permissions do not grant an operation
/// outright, the user a named pointer (or array of pointers, or object holding one) field names may still perform it,
/// on that object only. The restriction is a condition in the statement, so an object the caller may not reach is
/// indistinguishable from a missing one.
enum PointerPermissions {
    /// The fields that alone grant `operation` to the caller; nil when nothing restricts it.
    static func fields(_ operation: String, schema: ClassSchema?, identity: Identity) -> [String]? {
        guard !identity.isMaster && !identity.isReadOnlyMaster, let permissions = schema?.classLevelPermissions,
              let entry = permissions[operation]?.objectValue else { return nil }
        if AccessControl.groups(identity).contains(where: { entry[$0]?.boolValue == true }) { return nil }
        if entry["requiresAuthentication"]?.boolValue == true && identity.userId != nil { return nil }
        let group = ["get", "find", "count"].contains(operation) ? "readUserFields" : "writeUserFields"
        var fields = entry["pointerFields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for field in permissions[group]?.arrayValue?.compactMap(\.stringValue) ?? [] where !fields.contains(field) {
            fields.append(field)
        }
        return fields.isEmpty ? nil : fields
    }

    /// The condition that the caller is the user one of `fields` names, on rows named `alias` ("" for none).
    static func condition(_ fields: [String], schema: ClassSchema, identity: Identity, alias: String,
                          _ parameters: inout SQLParameters) -> String {
        guard let userId = identity.userId else { return "FALSE" }
        let prefix = alias.isEmpty ? "" : alias + "."
        var parts: [String] = []
        for field in fields where Names.isValidFieldName(field) {
            let column = prefix + Names.quoted(field)
            switch schema.fields[field]?.kind {
            case .pointer?: parts.append("\(column) = \(parameters.bind(userId))")
            case .array?: parts.append("\(column) @> jsonb_build_array(jsonb_build_object('objectId', \(parameters.bind(userId))::text))")
            case .object?: parts.append("\(column) @> jsonb_build_object('objectId', \(parameters.bind(userId))::text)")
            default: continue
            }
        }
        return parts.isEmpty ? "FALSE" : "COALESCE(" + parts.joined(separator: " OR ") + ", FALSE)"
    }

    /// `condition` when `operation` is restricted for the caller, else nil.
    static func restriction(_ operation: String, schema: ClassSchema, identity: Identity, alias: String,
                            _ parameters: inout SQLParameters) -> String? {
        guard let fields = fields(operation, schema: schema, identity: identity) else { return nil }
        return condition(fields, schema: schema, identity: identity, alias: alias, &parameters)
    }
}

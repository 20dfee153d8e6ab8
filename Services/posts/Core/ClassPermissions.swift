import Contracts
import ParseWire

/// Class-level permissions (`find`, `count`, `get`, `create`, `update`, `delete`, `addField`). A missing entry
/// allows everyone, as in parse-server; the master key skips them.
enum ClassPermissions {
    static func check(_ operation: String, schema: ClassSchema?, identity: Identity) throws(ParseError) {
        guard !identity.isMaster && !identity.isReadOnlyMaster else { return }
        guard let entry = schema?.classLevelPermissions?[operation]?.objectValue else {
            // Audiences choose who gets a push: a client may add one, and its reads find nothing
            // (`PlatformClasses.hidesAudiences`), until a class-level permission says otherwise.
            guard schema?.className == PlatformClasses.audience, !["create", "find", "get", "count"].contains(operation) else {
                return
            }
            throw PlatformClasses.refusal(operation, className: PlatformClasses.audience)
        }
        let groups = AccessControl.groups(identity)
        if groups.contains(where: { entry[$0]?.boolValue == true }) { return }
        if entry["requiresAuthentication"]?.boolValue == true {
            if identity.userId != nil { return }
            throw ParseError(.objectNotFound, "Permission denied, user needs to be authenticated.")
        }
        // Pointer permissions grant it object by object (`PointerPermissions`), never a create.
        if operation != "create" && operation != "addField"
            && PointerPermissions.fields(operation, schema: schema, identity: identity) != nil { return }
        throw ParseError(.operationForbidden,
                         "Permission denied for action \(operation) on class \(schema?.className ?? "").")
    }

    /// The read-only master key reads everything and writes nothing.
    static func refuseReadOnlyMaster(_ identity: Identity, _ operation: String) throws(ParseError) {
        guard identity.isReadOnlyMaster && !identity.isMaster else { return }
        throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the \(operation) operation.")
    }
}

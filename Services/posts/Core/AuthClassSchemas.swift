import Query

/// `_User` and `_Role` as `/schemas` shows them: their rows live in auth, but parse-server lists both classes
/// from its start, with their default fields, and Parse Dashboard reads them there to browse users and roles.
/// Custom fields of users and roles are kept by auth without a schema, so only the default fields are listed.
enum AuthClassSchemas {
    static let all: [String: ClassSchema] = [
        "_User": ClassSchema(className: "_User", fields: [
            "username": FieldType(.string), "password": FieldType(.string), "email": FieldType(.string),
            "emailVerified": FieldType(.boolean), "authData": FieldType(.object),
        ]),
        "_Role": ClassSchema(className: "_Role", fields: [
            "name": FieldType(.string), "users": FieldType(.relation, targetClass: "_User"),
            "roles": FieldType(.relation, targetClass: "_Role"),
        ]),
    ]
}

import Contracts
import ParseWire
import Query

/// What a signup or a user update asks to change, checked field by field before anything is stored.
struct UserChanges: Sendable {
    var username: String?
    var email: String?
    var removesEmail = false
    var password: String?
    var emailVerified: Bool?
    var acl: JSONValue?
    /// Providers to link (or, with `null`, unlink); nil when the body has no `authData` or an empty one.
    var authData: AuthData?
    var set: [String: JSONValue] = [:]
    var unset: [String] = []
    /// The new user's own id (`allowCustomObjectId`).
    var objectId: String?

    /// Fields clients may not write; parse-server ignores the timestamps and rejects the rest.
    private static let ignored: Set<String> = ["createdAt", "updatedAt", "sessionToken"]

    init(_ body: [String: JSONValue], creating: Bool, isMaster: Bool, settings: AuthSettings) throws {
        for (key, value) in body.sorted(by: { $0.key < $1.key }) {
            if Self.ignored.contains(key) { continue }
            let deletes = value.isNull || value["__op"]?.stringValue == "Delete"
            switch key {
            case "objectId":
                guard creating, settings.allowCustomObjectId else {
                    throw ParseError(.invalidKeyName, "objectId is an invalid field name.")
                }
                objectId = try ObjectIdField.custom(value)
            case "authData":
                authData = try AuthData.parse(value)
            case "username":
                guard let text = value.stringValue, !text.isEmpty else {
                    throw ParseError(.usernameMissing, "bad or missing username")
                }
                guard text.count <= settings.maxUsernameLength else {
                    throw ParseError(.validationError, "username is too long (at most \(settings.maxUsernameLength) characters).")
                }
                username = text
            case "password":
                guard let text = value.stringValue, !text.isEmpty else {
                    throw ParseError(.passwordMissing, "password is required")
                }
                guard text.utf8.count <= settings.maxPasswordLength, !text.utf8.contains(0) else {
                    throw ParseError(.validationError, "Password does not meet the Password Policy requirements.")
                }
                password = text
            case "email":
                if deletes { removesEmail = true; continue }
                guard let text = value.stringValue else {
                    throw ParseError(.invalidEmailAddress, "Email address format is invalid.")
                }
                guard Self.looksLikeEmail(text), text.count <= 320 else {
                    throw ParseError(.invalidEmailAddress, "Email address format is invalid.")
                }
                email = text
            case "emailVerified":
                guard isMaster else {
                    throw ParseError(.operationForbidden, "Clients aren't allowed to manually update email verification.")
                }
                guard let flag = value.boolValue else {
                    throw ParseError(.incorrectType, "schema mismatch for _User.emailVerified; expected Boolean but got \(value.typeName)")
                }
                emailVerified = flag
            case "ACL":
                acl = try ACLValidator.validate(value)
            default:
                try FieldName.check(key)
                if deletes { unset.append(key); continue }
                if let operation = value["__op"]?.stringValue {
                    throw ParseError(.invalidJSON, "The \(operation) operation is not supported on _User fields yet.")
                }
                try ValueStorage.checkNestedKeys(value)
                set[key] = value
            }
        }
        if creating && authData == nil {
            guard username != nil else { throw ParseError(.usernameMissing, "bad or missing username") }
            guard password != nil else { throw ParseError(.passwordMissing, "password is required") }
        }
    }

    /// parse-server's check: something, an `@`, something.
    static func looksLikeEmail(_ text: String) -> Bool {
        guard let at = text.firstIndex(of: "@") else { return false }
        return at != text.startIndex && text.index(after: at) != text.endIndex
            && !text.contains(where: { $0 == "\n" || $0 == "\r" })
    }
}

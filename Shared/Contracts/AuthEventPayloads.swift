import ParseWire

/// The events auth publishes (CloudEvents, `source` `parse/auth`, `type` the routing key and `.v1`), each payload
/// beside its routing key.
public enum AuthEventPayloads {
    /// `user.signed-up`.
    public struct UserSignedUp: Codable, Sendable, Equatable {
        public static let routingKey = "user.signed-up"
        public var userId: String
        public var username: String
        public var createdAt: String

        public init(userId: String, username: String, createdAt: String) {
            self.userId = userId
            self.username = username
            self.createdAt = createdAt
        }
    }

    /// `session.created`.
    public struct SessionCreated: Codable, Sendable, Equatable {
        public static let routingKey = "session.created"
        public var sessionId: String
        public var userId: String
        public var action: String

        public init(sessionId: String, userId: String, action: String) {
            self.sessionId = sessionId
            self.userId = userId
            self.action = action
        }
    }

    /// `session.revoked`: live stops showing the user's private objects until auth has answered again.
    public struct SessionRevoked: Codable, Sendable, Equatable {
        public static let routingKey = "session.revoked"
        public var sessionId: String
        public var userId: String
        public var reason: String

        public init(sessionId: String, userId: String, reason: String) {
            self.sessionId = sessionId
            self.userId = userId
            self.reason = reason
        }
    }

    /// `role.changed`: any session's roles may be different now.
    public struct RoleChanged: Codable, Sendable, Equatable {
        public static let routingKey = "role.changed"
        public var roleId: String
        public var change: String

        public init(roleId: String, change: String) {
            self.roleId = roleId
            self.change = change
        }
    }
}

/// `object.created|updated|deleted.<Class>` (posts, `type` `object.<kind>.v1`): `object` after the change (before
/// it, for a delete), `original` before an update, and the version of the class's permissions it was written
/// under. posts writes the JSON itself; this type names its members for consumers.
public struct ObjectChanged: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable { case created, updated, deleted }

    /// The routing key of a change of `kind` to an object of `className`.
    public static func routingKey(_ kind: Kind, className: String) -> String { "object.\(kind.rawValue).\(className)" }
    /// What a consumer of every object event binds.
    public static let everyChange = "object.*.*"

    public var className: String
    public var objectId: String
    public var object: JSONValue?
    public var original: JSONValue?
    public var permissionsVersion: String?

    public init(className: String, objectId: String, object: JSONValue? = nil, original: JSONValue? = nil,
                permissionsVersion: String? = nil) {
        self.className = className
        self.objectId = objectId
        self.object = object
        self.original = original
        self.permissionsVersion = permissionsVersion
    }
}

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

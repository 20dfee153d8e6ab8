import ParseWire

/// `users.lookup.v1`: another service (posts, resolving `include` of `_User` pointers) asks `auth` for the users
/// behind a set of object ids, all at once. `auth` answers for the command's identity: a `UserLookupResult` with
/// only the users that identity may read, each shaped as `GET /users/<id>` shows it to that caller but without a
/// `sessionToken`.
public struct UserLookup: Codable, Sendable, Equatable {
    public static let type = "users.lookup.v1"
    /// More ids than this in one lookup is a 102: a page of results never needs that many.
    public static let maxObjectIds = 10_000

    public var objectIds: [String]

    public init(objectIds: [String]) { self.objectIds = objectIds }
}

/// The readable users of a `UserLookup`, by object id; ids that are missing or unreadable are absent.
public struct UserLookupResult: Codable, Sendable, Equatable {
    public var users: [String: [String: JSONValue]]

    public init(users: [String: [String: JSONValue]]) { self.users = users }
}

/// `relation.members.v1` (auth to posts): the object ids in relation `key` of object `objectId` of class `className`,
/// for a `$relatedTo` whose owner posts stores and whose members another service serves (a `Post`'s relation to
/// `_User`, read by a query on `/users`). As in parse-server, the owner object's ACL does not hide its relation's
/// members; the query over them applies the members' own.
public struct RelationMembers: Codable, Sendable, Equatable {
    public static let type = "relation.members.v1"
    /// More members than this are refused (102), as a subquery's results are (`ForeignSubqueries.maximumRows`).
    public static let maximumMembers = 10_000

    public var className: String
    public var objectId: String
    public var key: String

    public init(className: String, objectId: String, key: String) {
        self.className = className
        self.objectId = objectId
        self.key = key
    }
}

public struct RelationMemberIds: Codable, Sendable, Equatable {
    public var objectIds: [String]

    public init(objectIds: [String]) { self.objectIds = objectIds }
}

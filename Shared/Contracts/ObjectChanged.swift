import ParseWire

/// `object.created|updated|deleted.<Class>` (posts, `type` `object.<kind>.v1`): `object` after the change (before
/// it, for a delete), `original` before an update, and the version of the class's permissions it was written
/// under.
public struct ObjectChanged: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable { case created, updated, deleted }

    /// The routing key of a change of `kind` to an object of `className`.
    public static func routingKey(_ kind: Kind, className: String) -> String { "object.\(kind.rawValue).\(className)" }
    /// The event's CloudEvents `type`.
    public static func type(_ kind: Kind) -> String { "object.\(kind.rawValue).v1" }
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

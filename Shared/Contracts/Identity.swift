import ParseWire

/// Who a command acts for, as the gateway resolved it from the request's keys and session token.
/// Services enforce ACLs and class-level permissions with it and never re-check the keys.
public struct Identity: Codable, Sendable, Equatable {
    public var userId: String?
    public var roles: [String]
    public var isMaster: Bool
    public var isReadOnlyMaster: Bool
    public var sessionToken: String?
    /// The device's `X-Parse-Installation-Id`, which an `_Installation` write uses to find the device's row.
    public var installationId: String?

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey {
        case installationId, isMaster, isReadOnlyMaster, roles, sessionToken, userId
    }

    public init(userId: String? = nil, roles: [String] = [], isMaster: Bool = false,
                isReadOnlyMaster: Bool = false, sessionToken: String? = nil, installationId: String? = nil) {
        self.userId = userId
        self.roles = roles
        self.isMaster = isMaster
        self.isReadOnlyMaster = isReadOnlyMaster
        self.sessionToken = sessionToken
        self.installationId = installationId
    }

    public static let anonymous = Identity()
    public static let master = Identity(isMaster: true)
}

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
    /// parse-server's maintenance key (`X-Parse-Maintenance-Key`): the gateway lets it act as the master key on the
    /// data (with `isMaster`) and refuses it the master key's administration routes (`MaintenanceScope`).
    /// Written only when set, so every other identity's wire form stays as it was.
    public var isMaintenance: Bool

    // In key order: the encoder then writes the members where they stay (`ValueEncoding.finishObject`).
    private enum CodingKeys: String, CodingKey {
        case installationId, isMaintenance, isMaster, isReadOnlyMaster, roles, sessionToken, userId
    }

    public init(userId: String? = nil, roles: [String] = [], isMaster: Bool = false,
                isReadOnlyMaster: Bool = false, sessionToken: String? = nil, installationId: String? = nil,
                isMaintenance: Bool = false) {
        self.userId = userId
        self.roles = roles
        self.isMaster = isMaster
        self.isReadOnlyMaster = isReadOnlyMaster
        self.sessionToken = sessionToken
        self.installationId = installationId
        self.isMaintenance = isMaintenance
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        installationId = try container.decodeIfPresent(String.self, forKey: .installationId)
        isMaintenance = try container.decodeIfPresent(Bool.self, forKey: .isMaintenance) ?? false
        isMaster = try container.decode(Bool.self, forKey: .isMaster)
        isReadOnlyMaster = try container.decode(Bool.self, forKey: .isReadOnlyMaster)
        roles = try container.decode([String].self, forKey: .roles)
        sessionToken = try container.decodeIfPresent(String.self, forKey: .sessionToken)
        userId = try container.decodeIfPresent(String.self, forKey: .userId)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(installationId, forKey: .installationId)
        if isMaintenance { try container.encode(true, forKey: .isMaintenance) }
        try container.encode(isMaster, forKey: .isMaster)
        try container.encode(isReadOnlyMaster, forKey: .isReadOnlyMaster)
        try container.encode(roles, forKey: .roles)
        try container.encodeIfPresent(sessionToken, forKey: .sessionToken)
        try container.encodeIfPresent(userId, forKey: .userId)
    }

    public static let anonymous = Identity()
    public static let master = Identity(isMaster: true)
}

import Contracts

/// parse-server's `handleParseHeaders` decision, in its order: application id, then master key (only from the
/// allowed addresses), then the read-only master key, then client keys when any are configured. A wrong master
/// key is not an error: the request goes on as a client's. With either master key the session token travels
/// unresolved, for the routes that use it (`/users/me`, `/logout`).
struct AccessCheck: Sendable {
    enum Outcome: Equatable {
        case allowed(Identity)
        /// `403 {"error":"unauthorized"}`, exactly as parse-server answers.
        case unauthorized
    }

    let applicationId: String
    let masterKey: String?
    let masterKeyIPs: IPAllowList
    let clientKeys: ClientKeys
    /// parse-server's `readOnlyMasterKey`: reads as the master key, refused for writes by every service. Like
    /// parse-server, it is not limited to `masterKeyIPs`.
    var readOnlyMasterKey: String? = nil
    /// parse-server's `maintenanceKey`, from `maintenanceKeyIPs` only; from elsewhere the request goes on as if it
    /// had no such key. The identity it gets is narrowed per route by `MaintenanceScope`.
    var maintenanceKey: String? = nil
    var maintenanceKeyIPs = IPAllowList.loopback
    var readOnlyMasterKeyIPs: IPAllowList? = nil

    func evaluate(_ credentials: RequestCredentials, remoteAddress: String) -> Outcome {
        guard let appId = credentials.applicationId, ConstantTime.equals(appId, applicationId) else {
            return .unauthorized
        }
        if let configured = maintenanceKey, let sent = credentials.maintenanceKey, ConstantTime.equals(configured, sent),
           maintenanceKeyIPs.allows(remoteAddress) {
            return .allowed(Identity(isMaster: true, installationId: nil, isMaintenance: true))
        }
        if let configured = masterKey, let sent = credentials.masterKey, ConstantTime.equals(configured, sent) {
            guard masterKeyIPs.allows(remoteAddress) else { return .unauthorized }
            return .allowed(Identity(isMaster: true, sessionToken: credentials.sessionToken))
        }
        if let configured = readOnlyMasterKey, let sent = credentials.masterKey, ConstantTime.equals(configured, sent) {
            if let allowed = readOnlyMasterKeyIPs, !allowed.allows(remoteAddress) { return .unauthorized }
            return .allowed(Identity(isReadOnlyMaster: true, sessionToken: credentials.sessionToken))
        }
        if clientKeys.anyConfigured && !clientKeys.accepts(credentials) {
            return .unauthorized
        }
        return .allowed(Identity(sessionToken: credentials.sessionToken))
    }
}

extension AccessCheck {
    init(_ configuration: GatewayConfiguration) {
        self.init(applicationId: configuration.applicationId, masterKey: configuration.masterKey,
                  masterKeyIPs: configuration.masterKeyIPs, clientKeys: configuration.clientKeys,
                  readOnlyMasterKey: configuration.readOnlyMasterKey, maintenanceKey: configuration.maintenanceKey,
                  maintenanceKeyIPs: configuration.maintenanceKeyIPs, readOnlyMasterKeyIPs: configuration.readOnlyMasterKeyIPs)
    }
}

extension AccessCheck {
    /// An app created at run time: its own id and keys, the master key from the addresses the stack's allows.
    init(_ app: AppRecord, _ configuration: GatewayConfiguration) {
        self.init(applicationId: app.applicationId, masterKey: app.masterKey, masterKeyIPs: configuration.masterKeyIPs,
                  clientKeys: ClientKeys(clientKey: app.clientKey, restAPIKey: app.restApiKey,
                                         javascriptKey: app.javascriptKey, dotNetKey: app.dotNetKey))
    }
}

import Contracts

/// parse-server's `handleParseHeaders` decision, in its order: application id, then master key (only from the
/// allowed addresses), then client keys when any are configured. A wrong master key is not an error: the request
/// goes on as a client's.
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

    func evaluate(_ credentials: RequestCredentials, remoteAddress: String) -> Outcome {
        guard let appId = credentials.applicationId, ConstantTime.equals(appId, applicationId) else {
            return .unauthorized
        }
        if let configured = masterKey, let sent = credentials.masterKey, ConstantTime.equals(configured, sent) {
            guard masterKeyIPs.allows(remoteAddress) else { return .unauthorized }
            return .allowed(.master)
        }
        if clientKeys.anyConfigured && !clientKeys.accepts(credentials) {
            return .unauthorized
        }
        return .allowed(Identity(sessionToken: credentials.sessionToken))
    }
}

/// The keys a `connect` may carry, as parse-server's LiveQuery `keyPairs`: when client keys are configured one
/// of them (or the master key) must match; the master key, when it matches, lets the client see every object.
public struct LiveKeys: Sendable {
    public var applicationId: String
    public var masterKey: String?
    /// Request field (`clientKey`, `javascriptKey`, `restAPIKey`, `windowsKey`) to its value.
    public var clientKeys: [String: String]

    public init(applicationId: String, masterKey: String?, clientKeys: [String: String] = [:]) {
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.clientKeys = clientKeys
    }

    func hasMasterKey(_ request: [String: String]) -> Bool {
        guard let masterKey, let given = request["masterKey"] else { return false }
        return given == masterKey
    }

    func accepts(_ request: [String: String]) -> Bool {
        guard request["applicationId"] == applicationId else { return false }
        if clientKeys.isEmpty || hasMasterKey(request) { return true }
        return clientKeys.contains { name, value in request[name] == value }
    }
}

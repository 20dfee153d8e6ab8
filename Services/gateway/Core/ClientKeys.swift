/// The client keys parse-server knows. None configured (its default) means requests need none.
public struct ClientKeys: Sendable, Equatable {
    public var clientKey: String?
    public var restAPIKey: String?
    public var javascriptKey: String?
    public var dotNetKey: String?

    public init(clientKey: String? = nil, restAPIKey: String? = nil, javascriptKey: String? = nil, dotNetKey: String? = nil) {
        self.clientKey = clientKey
        self.restAPIKey = restAPIKey
        self.javascriptKey = javascriptKey
        self.dotNetKey = dotNetKey
    }

    public var anyConfigured: Bool { [clientKey, restAPIKey, javascriptKey, dotNetKey].contains { $0 != nil } }

    /// True when at least one key the request carries matches its configured counterpart.
    func accepts(_ credentials: RequestCredentials) -> Bool {
        func matches(_ configured: String?, _ sent: String?) -> Bool {
            guard let configured, let sent else { return false }
            return ConstantTime.equals(configured, sent)
        }
        return matches(clientKey, credentials.clientKey) || matches(restAPIKey, credentials.restAPIKey)
            || matches(javascriptKey, credentials.javascriptKey) || matches(dotNetKey, credentials.dotNetKey)
    }
}

/// Compares secrets in time that does not depend on where they first differ.
enum ConstantTime {
    static func equals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0 && left.count == right.count
    }
}

/// Where a server hands WebSocket upgrades under any of `pathPrefixes` (the gateway: its mount and its GraphQL path,
/// to the `live` service), so clients reach both on one port.
public struct UpgradeUpstream: Sendable, Equatable {
    public var host: String
    public var port: UInt16
    public var pathPrefixes: [String]

    public init(host: String, port: UInt16, pathPrefixes: [String]) {
        self.host = host
        self.port = port
        self.pathPrefixes = pathPrefixes
    }

    func handles(_ head: HTTPRequest) -> Bool {
        guard head.method == "GET", pathPrefixes.contains(where: { prefix in
            head.path == prefix || head.path.hasPrefix(prefix + "/") || prefix == "/"
        }) else {
            return false
        }
        return (head.headers["Upgrade"] ?? "").lowercased().contains("websocket")
    }
}

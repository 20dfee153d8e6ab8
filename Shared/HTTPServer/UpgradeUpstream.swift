/// Where a server hands WebSocket upgrades under `pathPrefix` (the gateway: to the `live` service), so clients
/// reach both on one port.
public struct UpgradeUpstream: Sendable, Equatable {
    public var host: String
    public var port: UInt16
    public var pathPrefix: String

    public init(host: String, port: UInt16, pathPrefix: String) {
        self.host = host
        self.port = port
        self.pathPrefix = pathPrefix
    }

    func handles(_ head: HTTPRequest) -> Bool {
        guard head.method == "GET", head.path == pathPrefix || head.path.hasPrefix(pathPrefix + "/") || pathPrefix == "/" else {
            return false
        }
        return (head.headers["Upgrade"] ?? "").lowercased().contains("websocket")
    }
}

import ParseWire

/// A `POST /batch` body as the gateway reads it to route each sub-request: `{"requests":[{"method","path","body"}],
/// "transaction":bool}`. Nil for a body that is not that shape; the owner of `batch` (posts) then answers with
/// parse-server's error for it.
struct BatchRequest: Sendable {
    struct Item: Sendable {
        var method: String
        /// As the client wrote it, mount included.
        var path: String
        /// Below the mount, without the leading slash; nil when the path does not start with the mount.
        var route: String?
        var body: String?
    }

    var items: [Item]
    var transactional: Bool

    init?(body: String?, mountPath: String) {
        self.init(fields: body.flatMap { JSONValue.parse($0)?.objectValue }, mountPath: mountPath)
    }

    /// `fields`: the body already parsed (nil when it is empty or not an object).
    init?(fields: [String: JSONValue]?, mountPath: String) {
        guard let object = fields, let requests = object["requests"]?.arrayValue else { return nil }
        let prefix = mountPath.hasSuffix("/") ? mountPath : mountPath + "/"
        var items: [Item] = []
        for request in requests {
            guard let method = request["method"]?.stringValue?.uppercased(), let path = request["path"]?.stringValue else {
                return nil
            }
            var route: String?
            if path.hasPrefix(prefix) {
                var rest = path.dropFirst(prefix.count)
                while rest.hasSuffix("/") { rest = rest.dropLast() }
                route = String(rest)
            }
            items.append(Item(method: method, path: path, route: route, body: request["body"].map(Self.bodyText)))
        }
        self.items = items
        transactional = object["transaction"]?.boolValue == true
    }

    /// PHP's SDK encodes an empty associative array, an object without fields, as `[]`; parse-server takes it
    /// for the empty object it stands for.
    static func bodyText(_ value: JSONValue) -> String {
        if case .array(let items) = value, items.isEmpty { return "{}" }
        return value.compactText
    }
}

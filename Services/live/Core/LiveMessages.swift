import ParseWire

/// The server's messages, shaped as parse-server's `Client` sends them: `op`, `clientId`, `installationId` (left
/// out when the client gave none), `requestId`, then `object` and `original`.
enum LiveMessages {
    static func error(code: Int, _ message: String, reconnect: Bool, requestId: JSONValue?) -> String {
        "{\"op\":\"error\",\"error\":\(JSONValue.string(message).compactText),\"code\":\(code),"
            + "\"reconnect\":\(reconnect),\"requestId\":\(requestId?.compactText ?? "null")}"
    }

    static func event(_ op: String, clientId: String, installationId: String?, requestId: JSONValue? = nil,
                      object: String? = nil, original: String? = nil) -> String {
        var text = "{\"op\":\"\(op)\",\"clientId\":\(JSONValue.string(clientId).compactText)"
        if let installationId { text += ",\"installationId\":" + JSONValue.string(installationId).compactText }
        if let requestId { text += ",\"requestId\":" + requestId.compactText }
        if let object { text += ",\"object\":" + object }
        if let original { text += ",\"original\":" + original }
        return text + "}"
    }
}

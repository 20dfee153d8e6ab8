import ParseWire

/// The server's messages, shaped as parse-server's `Client` sends them: `op`, `clientId`, `installationId` (left
/// out when the client gave none), `requestId`, then `object` and `original`.
enum LiveMessages {
    static func error(code: Int, _ message: String, reconnect: Bool, requestId: JSONValue?) -> String {
        "{\"op\":\"error\",\"error\":\(JSONValue.string(message).compactText),\"code\":\(code),"
            + "\"reconnect\":\(reconnect),\"requestId\":\(requestId?.compactText ?? "null")}"
    }

    /// An event's frame, ready for the socket: the payload `event` would make, built from parts encoded once (the
    /// subscription's `eventHead`, the object's text per shape), so a frame costs its copies and nothing else.
    static func eventFrame(_ op: EventOp, head: [UInt8], object: [UInt8], original: [UInt8]?) -> [UInt8] {
        let opening = op.opening
        var length = opening.count + head.count + objectKey.count + object.count + 1
        if let original { length += originalKey.count + original.count }
        var frame = WebSocketFrameWriter.header(opcode: 1, length: length, reserving: length)
        frame.append(contentsOf: opening)
        frame.append(contentsOf: head)
        frame.append(contentsOf: objectKey)
        frame.append(contentsOf: object)
        if let original {
            frame.append(contentsOf: originalKey)
            frame.append(contentsOf: original)
        }
        frame.append(UInt8(ascii: "}"))
        return frame
    }

    /// `,"clientId":...[,"installationId":...],"requestId":...`: what every event frame of one subscription repeats.
    static func eventHead(clientId: String, installationId: String?, requestId: JSONValue) -> [UInt8] {
        var text = ",\"clientId\":" + JSONValue.string(clientId).compactText
        if let installationId { text += ",\"installationId\":" + JSONValue.string(installationId).compactText }
        return Array((text + ",\"requestId\":" + requestId.compactText).utf8)
    }

    /// The ops of object events, each with its frame's first bytes.
    enum EventOp: String, CaseIterable {
        case create, update, enter, leave, delete

        var opening: [UInt8] {
            switch self {
            case .create: Self.openings[0]
            case .update: Self.openings[1]
            case .enter: Self.openings[2]
            case .leave: Self.openings[3]
            case .delete: Self.openings[4]
            }
        }

        private static let openings = allCases.map { Array("{\"op\":\"\($0.rawValue)\"".utf8) }
    }

    private static let objectKey = Array(",\"object\":".utf8)
    private static let originalKey = Array(",\"original\":".utf8)

    /// The messages without an object (`connected`, `subscribed`, `unsubscribed`); object events are `eventFrame`s.
    static func event(_ op: String, clientId: String, installationId: String?, requestId: JSONValue? = nil) -> String {
        var text = "{\"op\":\"\(op)\",\"clientId\":\(JSONValue.string(clientId).compactText)"
        if let installationId { text += ",\"installationId\":" + JSONValue.string(installationId).compactText }
        if let requestId { text += ",\"requestId\":" + requestId.compactText }
        return text + "}"
    }
}

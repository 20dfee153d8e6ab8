import CLibCrypto
import Foundation

/// The opening handshake (RFC 6455 section 4.2): reads the client's HTTP/1.1 request head and answers `101` with
/// `Sec-WebSocket-Accept`, or the HTTP error a client can read. Any path is accepted, as parse-server's LiveQuery
/// server does; a plain `GET` of a path ending in `/health` answers `200 {"status":"ok"}`, for health checks.
public enum WebSocketHandshake {
    public static let maximumHeadSize = 8_192
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The GraphQL over WebSocket protocol (github.com/enisdenjo/graphql-ws), for GraphQL subscriptions.
    public static let graphQLTransportWS = "graphql-transport-ws"

    public enum Outcome: Equatable, Sendable {
        /// More bytes are needed.
        case incomplete
        /// The 101 answer to send; `consumed` bytes of the input were the request head (what follows is frames);
        /// `subprotocol` the one agreed (`Sec-WebSocket-Protocol`), nil for LiveQuery's own.
        case upgrade(response: String, consumed: Int, subprotocol: String?)
        /// An HTTP answer after which the connection is closed.
        case reject(response: String)
    }

    public static func read(_ bytes: [UInt8]) -> Outcome {
        guard let end = headEnd(bytes) else {
            return bytes.count > maximumHeadSize ? .reject(response: answer(431, "Request Header Fields Too Large")) : .incomplete
        }
        guard let head = String(validating: bytes[..<end], as: UTF8.self) else {
            return .reject(response: answer(400, "Bad Request"))
        }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return .reject(response: answer(400, "Bad Request")) }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .reject(response: answer(400, "Bad Request")) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        guard requestLine[0] == "GET" else { return .reject(response: answer(405, "Method Not Allowed")) }
        let upgrade = tokens(headers["upgrade"]), connection = tokens(headers["connection"])
        guard upgrade.contains("websocket") else {
            if requestLine[1].hasSuffix("/health") { return .reject(response: healthAnswer) }
            return .reject(response: answer(426, "Upgrade Required", extraHeaders: "Upgrade: websocket\r\n"))
        }
        guard connection.contains("upgrade"), let key = headers["sec-websocket-key"],
              Data(base64Encoded: key)?.count == 16 else {
            return .reject(response: answer(400, "Bad Request"))
        }
        guard headers["sec-websocket-version"] == "13" else {
            return .reject(response: answer(426, "Upgrade Required", extraHeaders: "Sec-WebSocket-Version: 13\r\n"))
        }
        // LiveQuery clients ask for no subprotocol; GraphQL clients for graphql-transport-ws. A client that offers
        // only others is answered without one, as RFC 6455 has it, and closes if it cannot do without.
        let subprotocol = tokens(headers["sec-websocket-protocol"]).contains(graphQLTransportWS) ? graphQLTransportWS : nil
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(acceptValue(for: key))\r\n"
            + (subprotocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? "") + "\r\n"
        return .upgrade(response: response, consumed: end + 4, subprotocol: subprotocol)
    }

    /// SHA-1 of the key and the protocol's GUID, in base64.
    public static func acceptValue(for key: String) -> String {
        let input = Array((key + acceptGUID).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = SHA1(input, input.count, &digest)
        return Data(digest).base64EncodedString()
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10
            && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func tokens(_ value: String?) -> [String] {
        (value ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static let healthAnswer =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{\"status\":\"ok\"}"

    private static func answer(_ status: Int, _ reason: String, extraHeaders: String = "") -> String {
        return "HTTP/1.1 \(status) \(reason)\r\nContent-Length: 0\r\nConnection: close\r\n\(extraHeaders)\r\n"
    }
}

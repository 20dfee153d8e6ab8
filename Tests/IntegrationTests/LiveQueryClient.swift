import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real WebSocket client (PyPI's `websockets`, run by `Scripts/live_client.py`) that a test drives one command at a
/// time; `raw` is a bare socket for broken frames and clients that read nothing.
final class LiveQueryClient {
    static let url = TestStack.environment["PARSE_TEST_LIVE_QUERY_URL"] ?? "ws://127.0.0.1:21338/parse"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/live_client.py").path

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    /// What the handshake answered: true once upgraded.
    private(set) var opened = false
    /// The subprotocol the server agreed to, if any.
    private(set) var subprotocol: String?

    /// `subprotocol`: offered in the handshake (`graphql-transport-ws` for GraphQL subscriptions).
    init(raw: Bool = false, subprotocol: String? = nil, url: String = LiveQueryClient.url) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script] + (raw ? ["--raw"] : []) + (subprotocol.map { ["--subprotocol", $0] } ?? []) + [url]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let opening = try readLine()
        opened = opening["open"] as? Bool ?? false
        self.subprotocol = opening["subprotocol"] as? String
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    @discardableResult
    func command(_ line: String) throws -> [String: Any] {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        return try readLine()
    }

    func send(_ message: [String: Any]) throws {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]), as: UTF8.self)
        try command("send " + text)
    }

    func send(text: String) throws { try command("send " + text) }

    /// The next server message as JSON, nil on timeout or close.
    func receive(timeout: Double = 10) throws -> [String: Any]? {
        let reply = try command("recv \(timeout)")
        guard let text = reply["message"] as? String else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The next message whose `op` is `op`, skipping none: anything else is returned too, for the test to see.
    func expectNothing(for seconds: Double = 1.5) throws -> [String: Any]? { try receive(timeout: seconds) }

    /// `connect`, and the answer.
    @discardableResult
    func connect(sessionToken: String? = nil, masterKey: String? = nil, installationId: String? = nil) throws -> [String: Any]? {
        var message: [String: Any] = ["op": "connect", "applicationId": TestStack.applicationId]
        if let sessionToken { message["sessionToken"] = sessionToken }
        if let masterKey { message["masterKey"] = masterKey }
        if let installationId { message["installationId"] = installationId }
        try send(message)
        return try receive()
    }

    /// `subscribe`, and the answer.
    @discardableResult
    func subscribe(_ requestId: Int, className: String, where clause: [String: Any] = [:], keys: [String]? = nil,
                   watch: [String]? = nil, sessionToken: String? = nil) throws -> [String: Any]? {
        var query: [String: Any] = ["className": className, "where": clause]
        if let keys { query["keys"] = keys }
        if let watch { query["watch"] = watch }
        var message: [String: Any] = ["op": "subscribe", "requestId": requestId, "query": query]
        if let sessionToken { message["sessionToken"] = sessionToken }
        try send(message)
        return try receive()
    }

    /// The next frame on a raw client, skipping the server's pings.
    func frame(timeout: Double = 10) throws -> [String: Any] {
        while true {
            let frame = try command("frame \(timeout)")
            if frame["opcode"] as? Int != 9 { return frame }
        }
    }

    private func readLine() throws -> [String: Any] {
        while true {
            if let newline = buffered.firstIndex(of: 10) {
                let line = Array(buffered[..<newline])
                buffered.removeFirst(newline + 1)
                return (try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]) ?? [:]
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw LiveQueryClientError(description: "the WebSocket client exited") }
            buffered += chunk
        }
    }
}

struct LiveQueryClientError: Error, CustomStringConvertible { let description: String }

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An SMTP server on loopback for the mail tests (Python's aiosmtpd, which `deploy/stack` installs), storing
/// every message it accepts in a maildir the test reads.
struct TestMailServer {
    let port: Int
    let directory: URL
    let pid: pid_t

    static func start() throws -> TestMailServer {
        let gatewayPort = URLComponents(string: TestStack.serverURL)?.port ?? 21337
        let port = gatewayPort + 190
        // aiosmtpd makes the maildir itself and refuses one that exists without its sub-folders.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        let pid = try Spawned.start(["/usr/bin/python3", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)",
                                     "-c", "aiosmtpd.handlers.Mailbox", directory.path],
                                    environment: ["PATH": "/usr/bin:/bin"])
        let server = TestMailServer(port: port, directory: directory, pid: pid)
        // Ready once it accepts connections.
        for _ in 0..<100 {
            if (try? RawSocket.exchange("QUIT\r\n", host: "127.0.0.1", port: UInt16(port), timeoutSeconds: 2))?.hasPrefix("220") == true {
                return server
            }
            usleep(100_000)
        }
        server.stop()
        throw AuthTestError(description: "the test SMTP server did not start")
    }

    func stop() {
        // SIGKILL: the child inherits the test runner's signal mask, which may block SIGTERM.
        kill(pid, SIGKILL)
        _ = Spawned.wait(pid)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every message received so far, as text.
    func messages() -> [String] {
        let folder = directory.appendingPathComponent("new")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().compactMap { try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    }

    /// Waits for a message to `address` whose text contains `marker`, and returns it.
    func waitForMessage(to address: String, containing marker: String, excluding seen: Set<String> = []) async throws -> String {
        for _ in 0..<100 {
            if let message = messages().first(where: { $0.contains("X-RcptTo: \(address)") && $0.contains(marker) && !seen.contains($0) }) {
                return message
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw AuthTestError(description: "no mail to \(address) containing \(marker)")
    }

    static func link(in message: String) -> String? {
        message.split(whereSeparator: \.isNewline).map(String.init).first { $0.hasPrefix("http") }
    }
}

/// What a browser does with the pages: one request, no redirect followed, so each hop can be checked.
enum Browser {
    struct Page {
        let status: Int
        let headers: [String: String]
        let body: String
        var location: String? { headers["location"] }
    }

    static func get(_ url: String, headers: [String: String] = [:]) throws -> Page {
        try exchange("GET", url, body: nil, headers: headers)
    }

    static func postForm(_ url: String, _ fields: [(String, String)], headers: [String: String] = [:]) throws -> Page {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        return try exchange("POST", url, body: body, headers: headers)
    }

    private static func exchange(_ method: String, _ url: String, body: String?, headers extra: [String: String]) throws -> Page {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw AuthTestError(description: "bad url \(url)")
        }
        let target = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        if let body {
            request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            request += "\r\n"
        }
        let answer = try RawSocket.exchange(request, host: host == "localhost" ? "127.0.0.1" : host, port: UInt16(port))
        guard let split = answer.range(of: "\r\n\r\n") else { throw AuthTestError(description: "no HTTP answer from \(url)") }
        let lines = answer[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Page(status: status, headers: headers, body: String(answer[split.upperBound...]))
    }
}

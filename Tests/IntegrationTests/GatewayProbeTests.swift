import Foundation
import Testing

/// What an outside probe sent the gateway: NUL bytes that used to cut a path or a header value short, and a
/// `Transfer-Encoding` with whitespace before its colon. Each is refused with 400 and changes nothing.
extension IntegrationSuite {
    @Suite struct GatewayProbe {
        static func exchange(_ request: String) throws -> String {
            let url = try #require(URL(string: TestStack.serverURL))
            return try RawSocket.exchange(request, host: "127.0.0.1", port: UInt16(try #require(url.port)))
        }

        static var appId: String { "X-Parse-Application-Id: \(TestStack.applicationId)\r\n" }

        @Test func anEncodedNULInThePathIsRefusedAndCreatesNothing() async throws {
            let cls = PostsHTTP.uniqueClass("Probe")
            for target in ["/parse/classes/\(cls)%00evil", "/parse/classes/\(cls)%00"] {
                let answer = try Self.exchange("POST \(target) HTTP/1.1\r\nHost: x\r\n\(Self.appId)"
                                               + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            }
            let raw = try Self.exchange("POST /parse/classes/\(cls)\u{0}evil HTTP/1.1\r\nHost: x\r\n\(Self.appId)"
                                        + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            #expect(raw.hasPrefix("HTTP/1.1 400"), "\(raw)")
            let schema = try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true)
            #expect(schema.status == 400 && schema.json?["code"] as? Int == 103, "the class was created: \(schema.text)")
        }

        @Test func aMasterKeyFollowedByANULIsRefused() async throws {
            let junk = try Self.exchange("GET /parse/schemas HTTP/1.1\r\nHost: x\r\n\(Self.appId)"
                                         + "X-Parse-Master-Key: \(TestStack.masterKey)\u{0}junk\r\n\r\n")
            #expect(junk.hasPrefix("HTTP/1.1 400"), "\(junk)")
            // The same request without the NUL is the master key's.
            let clean = try Self.exchange("GET /parse/schemas HTTP/1.1\r\nHost: x\r\n\(Self.appId)"
                                          + "X-Parse-Master-Key: \(TestStack.masterKey)\r\nConnection: close\r\n\r\n")
            #expect(clean.hasPrefix("HTTP/1.1 200"), "\(clean)")
        }

        @Test func whitespaceBeforeAHeadersColonIsRefused() async throws {
            let cls = PostsHTTP.uniqueClass("Probe")
            let answer = try Self.exchange("POST /parse/classes/\(cls) HTTP/1.1\r\nHost: x\r\n\(Self.appId)"
                                           + "Content-Type: application/json\r\nTransfer-Encoding : chunked\r\n\r\n"
                                           + "2\r\n{}\r\n0\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(!answer.contains("HTTP/1.1 201"))
            let schema = try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true)
            #expect(schema.status == 400, "\(schema.text)")
        }
    }
}

import CCurl
import Foundation
import Runtime
import Synchronization

/// The one HTTP client for calls this server makes (webhooks, providers' keys, push endpoints, the Parse API from
/// Cloud Code workers, the import and example tools), over libcurl's multi interface: every transfer of a client
/// runs on one thread of its own (`CurlMultiLoop`), so no call holds a thread Swift's tasks need, and any number
/// run at once. Redirects are not followed; TLS is verified against the system's certificates; an answer larger
/// than `maxResponseBytes` fails the call. Connections are kept alive and reused between calls to the same host.
public final class HTTPClient: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var url: String
        /// Whole header lines, `Name: value`.
        public var headers: [String]
        public var body: [UInt8]?
        public var timeout: Duration

        public init(_ method: String, _ url: String, headers: [String] = [], body: [UInt8]? = nil,
                    timeout: Duration = .seconds(10)) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
        }
    }

    public struct Response: Sendable {
        public let status: Int
        public let body: [UInt8]
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case timedOut
        case tooLarge
        case notHTTP
        case failed(String)

        public var description: String {
            switch self {
            case .timedOut: "timed out"
            case .tooLarge: "the answer is larger than this client takes"
            case .notHTTP: "not an http(s) URL"
            case .failed(let why): why
            }
        }
    }

    public let maxResponseBytes: Int
    private let loop: CurlMultiLoop

    /// `label` names the client's thread (it shows in a thread dump); the thread starts with the first call.
    public init(label: String, maxResponseBytes: Int = 16 << 20) {
        self.maxResponseBytes = maxResponseBytes
        loop = CurlMultiLoop(label: label)
    }

    /// A GET of `url` with `headers`.
    public func get(_ url: String, headers: [String] = [], timeout: Duration = .seconds(10)) async throws -> Response {
        try await send(Request("GET", url, headers: headers, timeout: timeout))
    }

    public func send(_ request: Request) async throws -> Response {
        let scheme = request.url.prefix(8).lowercased()
        guard scheme.hasPrefix("http://") || scheme.hasPrefix("https://") else { throw Failure.notHTTP }
        return try await withCheckedThrowingContinuation { continuation in
            loop.submit(CurlTransfer(request: request, limit: maxResponseBytes, continuation: continuation))
        }
    }
}

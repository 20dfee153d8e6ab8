import CCurl
import Foundation
import Synchronization

/// HTTP POST of webhook calls with libcurl. libcurl's easy interface blocks, so each call runs on a dispatch
/// queue; finished handles are kept (reset, with their connection cache) for the next call, so calls to the same
/// receiver reuse their keep-alive connection as parse-server's agents do. Answers are capped at 16 MB.
final class WebhookClient: Sendable {
    struct Response: Sendable {
        let status: Int
        let body: [UInt8]
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case timedOut
        case failed(String)

        var description: String {
            switch self {
            case .timedOut: "timed out"
            case .failed(let why): why
            }
        }
    }

    static let maxBody = 16 << 20
    private static let queue = DispatchQueue(label: "cloud-webhooks", attributes: .concurrent)
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Idle easy handles; each is touched by one call at a time.
    private let idle = Mutex<[EasyHandle]>([])

    init() {}

    func post(_ url: String, body: [UInt8], headers: [String], timeout: Duration) async throws -> Response {
        let milliseconds = max(1, Int(timeout.totalMilliseconds.rounded(.up)))
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
            Self.queue.async {
                continuation.resume(with: Result { try self.perform(url, body: body, headers: headers, milliseconds: milliseconds) })
            }
        }
    }

    private final class Download {
        var bytes: [UInt8] = []
    }

    /// A libcurl easy handle; only the call that took it from `idle` uses it.
    private final class EasyHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer

        init?() {
            guard let pointer = curl_easy_init() else { return nil }
            self.pointer = pointer
        }

        deinit { curl_easy_cleanup(pointer) }
    }

    private func perform(_ url: String, body: [UInt8], headers: [String], milliseconds: Int) throws -> Response {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw Failure.failed("not an http(s) URL") }
        guard Self.initialised else { throw Failure.failed("libcurl did not start") }
        guard let handle = idle.withLock({ $0.popLast() }) ?? EasyHandle() else { throw Failure.failed("libcurl did not start") }
        var reusable = false
        defer {
            if reusable {
                curl_easy_reset(handle.pointer)
                idle.withLock { if $0.count < 64 { $0.append(handle) } }
            }
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Content-Type: application/json", "Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let download = Download()
        let code: CURLcode = withExtendedLifetime(download) {
            body.withUnsafeBytes { bytes in
                let curl = handle.pointer
                ccurl_setopt_string(curl, CURLOPT_URL, url)
                ccurl_setopt_long(curl, CURLOPT_TIMEOUT_MS, milliseconds)
                ccurl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
                ccurl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 0)
                ccurl_setopt_long(curl, CURLOPT_POST, 1)
                ccurl_setopt_long(curl, CURLOPT_POSTFIELDSIZE, bytes.count)
                ccurl_setopt_pointer(curl, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                if let list { ccurl_setopt_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)) }
                ccurl_setopt_callback(curl, CURLOPT_WRITEFUNCTION) { buffer, size, count, userdata in
                    guard let buffer, let userdata else { return 0 }
                    let download = Unmanaged<Download>.fromOpaque(userdata).takeUnretainedValue()
                    let length = size * count
                    guard download.bytes.count + length <= WebhookClient.maxBody else { return 0 }
                    download.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length))
                    return length
                }
                ccurl_setopt_pointer(curl, CURLOPT_WRITEDATA, Unmanaged.passUnretained(download).toOpaque())
                return curl_easy_perform(curl)
            }
        }
        if code == CURLE_OPERATION_TIMEDOUT { throw Failure.timedOut }
        guard code == CURLE_OK else { throw Failure.failed(String(cString: curl_easy_strerror(code))) }
        reusable = true
        var status = 0
        _ = withUnsafeMutablePointer(to: &status) { ccurl_getinfo_long(handle.pointer, CURLINFO_RESPONSE_CODE, $0) }
        return Response(status: status, body: download.bytes)
    }
}

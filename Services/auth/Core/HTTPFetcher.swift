import CCurl
import Foundation

/// HTTP GET with libcurl, for providers' keys (JWKS) and APIs. Each request runs on a dispatch queue (libcurl's
/// easy interface blocks); answers are capped at 1 MB.
struct HTTPFetcher: Sendable {
    struct Response: Sendable {
        let status: Int
        let body: [UInt8]
    }

    struct FetchError: Error, CustomStringConvertible {
        let description: String
    }

    var timeoutSeconds = 10
    static let maxBody = 1 << 20

    private static let queue = DispatchQueue(label: "http-fetch", attributes: .concurrent)
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    func get(_ url: String, headers: [String] = []) async throws -> Response {
        let timeout = timeoutSeconds
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
            Self.queue.async {
                continuation.resume(with: Result { try Self.perform(url, headers: headers, timeout: timeout) })
            }
        }
    }

    private final class Download {
        var bytes: [UInt8] = []
    }

    private static func perform(_ url: String, headers: [String], timeout: Int) throws -> Response {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw FetchError(description: "not an http(s) URL") }
        guard initialised, let handle = curl_easy_init() else { throw FetchError(description: "libcurl did not start") }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let download = Download()
        let code: CURLcode = withExtendedLifetime(download) {
            ccurl_setopt_string(handle, CURLOPT_URL, url)
            ccurl_setopt_long(handle, CURLOPT_TIMEOUT, timeout)
            ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            if let list { ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)) }
            ccurl_setopt_callback(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, userdata in
                guard let buffer, let userdata else { return 0 }
                let download = Unmanaged<Download>.fromOpaque(userdata).takeUnretainedValue()
                let length = size * count
                guard download.bytes.count + length <= HTTPFetcher.maxBody else { return 0 }
                download.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length))
                return length
            }
            ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(download).toOpaque())
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            throw FetchError(description: "GET failed: \(String(cString: curl_easy_strerror(code)))")
        }
        var status = 0
        _ = withUnsafeMutablePointer(to: &status) { ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, $0) }
        return Response(status: status, body: download.bytes)
    }
}

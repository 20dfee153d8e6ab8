import CCurl

/// One libcurl easy handle, with what every transfer here shares: libcurl started once per process, no signals,
/// redirects never followed.
/// Only one thread uses a handle at a time; `curl_easy_reset` keeps its connection cache for the next transfer.
public final class CurlEasy: @unchecked Sendable {
    public let pointer: UnsafeMutableRawPointer

    /// libcurl started, once per process, before any thread uses it.
    static let started: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// nil when libcurl did not start or has no handle to give.
    public init?() {
        guard Self.started, let pointer = curl_easy_init() else { return nil }
        self.pointer = pointer
    }

    deinit { curl_easy_cleanup(pointer) }

    /// Back to libcurl's defaults for the handle's next transfer (its connection cache stays).
    public func reset() {
        curl_easy_reset(pointer)
    }

    /// Sets what every transfer here has: no signals, no redirects, `timeoutMilliseconds` for the whole transfer.
    public func prepare(url: String, timeoutMilliseconds: Int) {
        ccurl_setopt_string(pointer, CURLOPT_URL, url)
        ccurl_setopt_long(pointer, CURLOPT_TIMEOUT_MS, max(1, timeoutMilliseconds))
        ccurl_setopt_long(pointer, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_long(pointer, CURLOPT_FOLLOWLOCATION, 0)
    }

    /// libcurl's words for `code`.
    public static func describe(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}

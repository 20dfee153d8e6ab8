import CCurl
import Runtime

/// One call on its way through `CurlMultiLoop`: what to send, what has come back, and who waits for it. Only the
/// loop's thread touches it once submitted.
final class CurlTransfer: CurlJob, @unchecked Sendable {
    let request: HTTPClient.Request
    let limit: Int
    private var continuation: CheckedContinuation<HTTPClient.Response, any Error>?
    var received: [UInt8] = []
    var overflowed = false
    /// The header list libcurl reads while the transfer runs; freed when it ends.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init(request: HTTPClient.Request, limit: Int, continuation: CheckedContinuation<HTTPClient.Response, any Error>) {
        self.request = request
        self.limit = limit
        self.continuation = continuation
    }

    /// Sets `handle` up for this call; libcurl copies the body.
    func configure(_ handle: CurlEasy) {
        let curl = handle.pointer
        handle.prepare(url: request.url, timeoutMilliseconds: Int(request.timeout.totalMilliseconds.rounded(.up)))
        switch request.method {
        case "GET": ccurl_setopt_long(curl, CURLOPT_HTTPGET, 1)
        case "HEAD": ccurl_setopt_long(curl, CURLOPT_NOBODY, 1)
        default: ccurl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            ccurl_setopt_long(curl, CURLOPT_POSTFIELDSIZE, body.count)
            _ = body.withUnsafeBytes { bytes in
                ccurl_setopt_pointer(curl, CURLOPT_COPYPOSTFIELDS,
                                     UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
        }
        // An empty `Expect:` stops libcurl waiting for `100 Continue` before it sends a body.
        for line in request.body == nil ? request.headers : request.headers + ["Expect:"] {
            headerList = curl_slist_append(headerList, line)
        }
        if let headerList { ccurl_setopt_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)) }
        ccurl_setopt_callback(curl, CURLOPT_WRITEFUNCTION) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let length = size * count
            guard transfer.received.count + length <= transfer.limit else {
                transfer.overflowed = true
                return 0
            }
            transfer.received.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length))
            return length
        }
        ccurl_setopt_pointer(curl, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Answers the caller with libcurl's outcome `code` for the transfer on `handle`.
    func finish(_ code: CURLcode, on handle: CurlEasy) {
        curl_slist_free_all(headerList)
        headerList = nil
        if overflowed {
            resume(.failure(HTTPClient.Failure.tooLarge))
        } else if code == CURLE_OPERATION_TIMEDOUT {
            resume(.failure(HTTPClient.Failure.timedOut))
        } else if code != CURLE_OK {
            resume(.failure(HTTPClient.Failure.failed(CurlEasy.describe(code))))
        } else {
            var status = 0
            _ = withUnsafeMutablePointer(to: &status) { ccurl_getinfo_long(handle.pointer, CURLINFO_RESPONSE_CODE, $0) }
            resume(.success(HTTPClient.Response(status: status, body: received)))
        }
    }

    func fail(_ why: String) {
        curl_slist_free_all(headerList)
        headerList = nil
        resume(.failure(HTTPClient.Failure.failed(why)))
    }

    private func resume(_ result: Result<HTTPClient.Response, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }
}

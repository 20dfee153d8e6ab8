import CCurl
import Foundation
import ParseWire

/// The Parse REST API over HTTP (libcurl), for handlers calling back into the server: with the master key, or as
/// a caller's session. A Parse error answer throws it as a `CloudError` with its code.
public struct ParseAPIClient: Sendable {
    public var serverURL: String
    public var applicationId: String
    public var masterKey: String?
    public var sessionToken: String?
    public var restAPIKey: String?
    public var timeoutMilliseconds = 10_000

    public init(serverURL: String, applicationId: String, masterKey: String? = nil, sessionToken: String? = nil,
                restAPIKey: String? = nil) {
        self.serverURL = serverURL.hasSuffix("/") ? String(serverURL.dropLast()) : serverURL
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.sessionToken = sessionToken
        self.restAPIKey = restAPIKey
    }

    /// `Parse.Cloud.run`: calls a function through the API and answers its `result`.
    public func run(_ function: String, params: JSONValue = .object([:])) async throws -> JSONValue {
        try await request("POST", "functions/\(function)", body: params)["result"] ?? .null
    }

    /// `method` on `path` below the mount (`classes/Cat`), with a query and a JSON body.
    public func request(_ method: String, _ path: String, query: [String: String] = [:],
                        body: JSONValue? = nil) async throws -> JSONValue {
        var url = serverURL + "/" + path
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            url += "?" + (components.percentEncodedQuery ?? "")
        }
        var headers = ["X-Parse-Application-Id: \(applicationId)", "Content-Type: application/json"]
        if let masterKey { headers.append("X-Parse-Master-Key: \(masterKey)") }
        if let sessionToken { headers.append("X-Parse-Session-Token: \(sessionToken)") }
        if let restAPIKey { headers.append("X-Parse-REST-API-Key: \(restAPIKey)") }
        let payload = body.map(JSONText.bytes)
        let (timeout, target, sentHeaders) = (timeoutMilliseconds, url, headers)
        let (status, bytes) = try await BlockingCall.run {
            try Self.perform(method, target, headers: sentHeaders, body: payload, timeoutMilliseconds: timeout)
        }
        let answer = JSONValue.parse(bytes) ?? .null
        guard (200..<300).contains(status) else {
            let code = answer["code"]?.numberValue.flatMap { Int(exactly: $0) } ?? (status >= 500 ? 1 : 141)
            throw CloudError(answer["error"]?.stringValue ?? "HTTP \(status)", code: code)
        }
        return answer
    }

    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private final class Download {
        var bytes: [UInt8] = []
    }

    private static func perform(_ method: String, _ url: String, headers: [String], body: [UInt8]?,
                                timeoutMilliseconds: Int) throws -> (Int, [UInt8]) {
        guard initialised, let handle = curl_easy_init() else { throw CloudError("libcurl did not start", code: 1) }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let download = Download()
        let sent = body ?? []
        let code: CURLcode = withExtendedLifetime(download) {
            sent.withUnsafeBytes { bytes in
                ccurl_setopt_string(handle, CURLOPT_URL, url)
                ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method)
                ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
                ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                if body != nil {
                    ccurl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count)
                    ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS,
                                         UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                }
                if let list { ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)) }
                ccurl_setopt_callback(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, userdata in
                    guard let buffer, let userdata else { return 0 }
                    let download = Unmanaged<Download>.fromOpaque(userdata).takeUnretainedValue()
                    download.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: size * count))
                    return size * count
                }
                ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(download).toOpaque())
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else { throw CloudError("API call failed: \(String(cString: curl_easy_strerror(code)))", code: 100) }
        var status = 0
        _ = withUnsafeMutablePointer(to: &status) { ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, $0) }
        return (status, download.bytes)
    }
}

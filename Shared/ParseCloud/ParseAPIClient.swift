import Foundation
import HTTPClient
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
        let response: HTTPClient.Response
        do {
            response = try await Self.http.send(.init(method, url, headers: headers, body: body.map(JSONText.bytes),
                                                      timeout: .milliseconds(timeoutMilliseconds)))
        } catch {
            throw CloudError("API call failed: \(error)", code: 100)
        }
        let answer = JSONValue.parse(response.body) ?? .null
        guard (200..<300).contains(response.status) else {
            let code = answer["code"]?.numberValue.flatMap { Int(exactly: $0) } ?? (response.status >= 500 ? 1 : 141)
            throw CloudError(answer["error"]?.stringValue ?? "HTTP \(response.status)", code: code)
        }
        return answer
    }

    /// One client for every call a worker makes back into the API.
    private static let http = HTTPClient(label: "parse-api")
}

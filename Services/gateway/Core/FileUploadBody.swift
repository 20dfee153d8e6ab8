import Foundation
import HTTPServer
import ParseWire

/// What an upload carries. Usually the raw body with the keys in headers; the JavaScript SDK instead sends a JSON
/// body `{"_ApplicationId",...,"_ContentType","base64","fileData":{"metadata","tags"}}` without the application
/// id header, which parse-server unwraps.
struct FileUploadBody {
    var bytes: [UInt8]
    var contentType: String?
    var envelope: [String: String] = [:]
    var metadata: JSONValue?
    var tags: JSONValue?

    /// Nil when the body is meant to be the JavaScript SDK's form but is not JSON (parse-server answers 403).
    init?(_ request: HTTPRequest, applicationId: String) {
        contentType = request.headers["Content-Type"]
        let headerAppId = request.headers["X-Parse-Application-Id"]
        guard headerAppId == nil || headerAppId != applicationId, !request.body.isEmpty else {
            bytes = request.body
            return
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            if headerAppId == nil { return nil }
            bytes = request.body
            return
        }
        for key in JSONBody.envelopeFields {
            if let value = object[key] as? String { envelope[key] = value }
        }
        let base64 = object["base64"] as? String ?? ""
        bytes = Data(base64Encoded: base64, options: .ignoreUnknownCharacters).map(Array.init) ?? []
        if let type = envelope["_ContentType"] { contentType = type }
        if let fileData = object["fileData"] as? [String: Any] {
            metadata = Self.jsonValue(fileData["metadata"])
            tags = Self.jsonValue(fileData["tags"])
        }
    }

    private static func jsonValue(_ value: Any?) -> JSONValue? {
        guard let value, JSONSerialization.isValidJSONObject([value]),
              let data = try? JSONSerialization.data(withJSONObject: [value]),
              case .array(let items)? = JSONValue.parse(Array(data)) else { return nil }
        return items.first
    }
}

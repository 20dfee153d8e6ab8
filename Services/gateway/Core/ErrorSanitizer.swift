import Foundation
import HTTPServer
import ParseWire
import Runtime

/// parse-server 9's `enableSanitizedErrorResponse` (on by default): a refusal tells the client `Permission denied`
/// and nothing about the rule that refused (which class, which field, which key), and the detail goes to the log.
/// parse-server sanitizes its `OPERATION_FORBIDDEN` (119) errors and its `unauthorized: master key is required`
/// 403; so does this, once, on the answers the services give, so that no service has to know the option.
struct ErrorSanitizer: Sendable {
    static let message = "Permission denied"
    private static let forbiddenCode = Array(#""code":119"#.utf8)
    private static let masterKeyRequired = Array(#"{"error":"unauthorized: master key is required"}"#.utf8)
    private static let sanitizedMasterKeyRequired = Array(#"{"error":"Permission denied"}"#.utf8)

    let logger: Logger

    /// `response`, with every refusal in it said as `Permission denied`. Only error statuses and the batch answer
    /// (whose items carry their own errors) are looked at, so a successful read costs nothing here.
    func sanitize(_ response: HTTPResponse, path: String) -> HTTPResponse {
        guard response.stream == nil, response.status >= 400 || path == "batch" else { return response }
        if response.status == 403, response.body == Self.masterKeyRequired {
            logger.warning("refused: unauthorized: master key is required")
            return Self.replacingBody(of: response, with: Self.sanitizedMasterKeyRequired)
        }
        guard Self.contains(response.body, Self.forbiddenCode),
              let json = try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
        else { return response }
        let clean = sanitized(json)
        guard let body = try? JSONSerialization.data(withJSONObject: clean, options: [.withoutEscapingSlashes, .sortedKeys]) else {
            return response
        }
        return Self.replacingBody(of: response, with: Array(body))
    }

    /// The JSON with each `{"code":119,"error":...}` object's message replaced, wherever it is (a batch answer puts
    /// its errors one level down, under `error`).
    private func sanitized(_ json: Any) -> Any {
        if let list = json as? [Any] { return list.map(sanitized) }
        guard var object = json as? [String: Any] else { return json }
        if (object["code"] as? NSNumber)?.intValue == ParseError.Code.operationForbidden.rawValue,
           let detail = object["error"] as? String {
            logger.warning("refused: \(detail)")
            object["error"] = Self.message
            return object
        }
        for (key, value) in object where value is [String: Any] || value is [Any] { object[key] = sanitized(value) }
        return object
    }

    /// Foundation's `firstRange(of:)` on bytes is generic, and walked the body at a cost that showed in the
    /// gateway's profile of answers that are errors; glibc's `memmem` is not exported to Swift.
    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return needle.isEmpty }
        return bytes.withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { needle in
                var index = 0
                while index <= haystack.count - needle.count {
                    if haystack[index] == first,
                       memcmp(haystack.baseAddress! + index, needle.baseAddress!, needle.count) == 0 { return true }
                    index += 1
                }
                return false
            }
        }
    }

    private static func replacingBody(of response: HTTPResponse, with body: [UInt8]) -> HTTPResponse {
        var copy = response
        copy.body = body
        return copy
    }
}

import Foundation
import HTTPServer
import ParseWire

/// Responses in the exact shapes parse-server writes, with its CORS headers on every one.
enum ParseResponses {
    static let corsHeaders: [(String, String)] = [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "GET,PUT,POST,DELETE,OPTIONS"),
        ("Access-Control-Allow-Headers", "X-Parse-Master-Key, X-Parse-REST-API-Key, X-Parse-Javascript-Key, "
            + "X-Parse-Application-Id, X-Parse-Client-Version, X-Parse-Session-Token, X-Requested-With, "
            + "X-Parse-Revocable-Session, X-Parse-Request-Id, Content-Type, Pragma, Cache-Control"),
        ("Access-Control-Expose-Headers", "X-Parse-Job-Status-Id, X-Parse-Push-Status-Id"),
    ]

    static func json(_ status: Int, _ body: [UInt8], extra: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status,
                     headers: HTTPHeaders(corsHeaders + [("Content-Type", "application/json; charset=utf-8")] + extra),
                     body: body)
    }

    static func json(_ status: Int, _ text: String, extra: [(String, String)] = []) -> HTTPResponse {
        json(status, Array(text.utf8), extra: extra)
    }

    /// A 503 (a transient fault: the broker, or a database a service needs) tells the client when to try again.
    static func error(_ error: ParseError, status: Int? = nil, extra: [(String, String)] = []) -> HTTPResponse {
        let status = status ?? (error.isNoSuchRoute ? 404 : error.httpStatus)
        return json(status, ParseErrorBody.json(error), extra: status == 503 ? extra + [("Retry-After", "1")] : extra)
    }

    /// Missing or wrong application id or keys: parse-server ends the response without a JSON content type.
    static let unauthorized = HTTPResponse(status: 403, headers: HTTPHeaders(corsHeaders),
                                           body: ParseErrorBody.bare("unauthorized"))

    /// parse-server's `enforceMasterKeyAccess` refusal: a bare message, no code.
    static let masterKeyRequired = json(403, #"{"error":"unauthorized: master key is required"}"#)

    static let preflight = HTTPResponse(status: 200, headers: HTTPHeaders(corsHeaders))

    static let healthy = json(200, #"{"status":"ok"}"#)

    static let payloadTooLarge = json(413, ParseErrorBody.bare("request entity too large"))

    static let badRequest = json(400, ParseErrorBody.bare("Bad Request"))

    static func unknownRoute(_ method: String, _ path: String) -> HTTPResponse {
        error(.noSuchRoute(method, path))
    }
}

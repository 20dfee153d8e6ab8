import Foundation
import HTTPServer
import ParseWire

/// The answers of the files routes in parse-server's shapes.
enum FileResponses {
    static let filenameNotProvided = ParseResponses.error(ParseError(.invalidFileName, "Filename not provided."))

    /// parse-server ends it as plain text.
    static let notFound = HTTPResponse(
        status: 404, headers: HTTPHeaders(ParseResponses.corsHeaders + [("Content-Type", "text/plain")]),
        body: Array("File not found.".utf8))

    /// 403, where the code alone would give 400.
    static let invalidApplicationId = ParseResponses.json(
        403, ParseErrorBody.json(ParseError(.operationForbidden, "Invalid application ID.")))

    static let masterKeyRequired = HTTPResponse(
        status: 403, headers: HTTPHeaders(ParseResponses.corsHeaders),
        body: Array(#"{"error":"unauthorized: master key is required"}"#.utf8))

    enum Write: String, Sendable { case create, delete }

    /// parse-server's file routes refuse the read-only master key themselves, with a 403 and an `error` alone
    /// (no code), unlike its other routes (119).
    struct ReadOnlyRefusal: Error {
        let operation: Write

        var response: HTTPResponse {
            HTTPResponse(status: 403, headers: HTTPHeaders(ParseResponses.corsHeaders),
                         body: Array(#"{"error":"read-only masterKey isn't allowed to \#(operation.rawValue) a file."}"#.utf8))
        }
    }

    static let deleted = HTTPResponse(status: 200, headers: HTTPHeaders(ParseResponses.corsHeaders))

    /// `{"url":...,"name":...}` in parse-server's key order.
    static func created(url: String, name: String) -> HTTPResponse {
        let body = #"{"url":"# + jsonString(url) + #","name":"# + jsonString(name) + "}"
        return ParseResponses.json(201, body, extra: [("Location", url)])
    }

    private static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// JavaScript's `encodeURIComponent`, as parse-server writes names into file URLs.
    static func encodeURIComponent(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

import Foundation
import HTTPServer

/// The dashboard's answers, each with the headers that keep its pages out of frames and its scripts to its own
/// files: a strict content security policy, `X-Frame-Options: DENY`, no sniffing, no referrer, no caching of
/// anything that depends on the login.
enum DashboardResponses {
    static func securityHeaders(for client: DashboardClient, imageSources: [String]) -> [(String, String)] {
        let images = (["'self'", "data:", "blob:"] + imageSources).joined(separator: " ")
        let sockets = "ws://\(client.host) wss://\(client.host)"
        return [
            ("Content-Security-Policy",
             "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images); connect-src 'self' blob: \(sockets); "
                + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"),
            ("X-Frame-Options", "DENY"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
        ]
    }

    static func json(_ status: Int, _ text: String, headers: [(String, String)], extra: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders(headers + [("Content-Type", "application/json; charset=utf-8"),
                                                                     ("Cache-Control", "no-store")] + extra),
                     body: Array(text.utf8))
    }

    static func error(_ status: Int, code: Int, _ message: String, headers: [(String, String)]) -> HTTPResponse {
        json(status, #"{"code":\#(code),"error":\#(jsonString(message))}"#, headers: headers)
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

import Foundation
import ParseWire
import Runtime

/// The SMTP server mail goes through: parse-server's `emailAdapter` options as JSON (`PARSE_SERVER_EMAIL_ADAPTER`,
/// `{"module":"smtp","options":{...}}` or the options alone): `host`, `port`, `secure` (TLS from the first byte,
/// usually port 465), `startTLS` (upgrade a plain connection, refusing to go on without TLS), `username` (or
/// `user`) and `password`, `fromAddress`.
struct SMTPOptions: Sendable, Equatable {
    var host: String
    var port: Int = 25
    var secure = false
    var startTLS = false
    var username: String?
    var password: String?
    var fromAddress: String
    /// Seconds a whole delivery may take.
    var timeout = 30

    /// `smtp://host:port` or `smtps://host:port`.
    var url: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "smtps" : "smtp")://\(shownHost):\(port)"
    }

    static func parse(_ text: String) throws -> SMTPOptions {
        let invalid = ConfigurationError(
            "PARSE_SERVER_EMAIL_ADAPTER must be JSON like {\"options\":{\"host\":\"smtp.example.com\",\"port\":587,\"startTLS\":true,\"username\":\"...\",\"password\":\"...\",\"fromAddress\":\"app@example.com\"}}")
        guard let object = JSONValue.parse(text)?.objectValue else { throw invalid }
        let options = object["options"]?.objectValue ?? object
        if let module = object["module"]?.stringValue, module.lowercased() != "smtp" {
            throw ConfigurationError("PARSE_SERVER_EMAIL_ADAPTER: only the SMTP adapter is built in, not \(module)")
        }
        guard let host = options["host"]?.stringValue, !host.isEmpty,
              let from = options["fromAddress"]?.stringValue, UserChanges.looksLikeEmail(from) else { throw invalid }
        var smtp = SMTPOptions(host: host, fromAddress: from)
        smtp.secure = options["secure"]?.boolValue ?? false
        smtp.startTLS = options["startTLS"]?.boolValue ?? false
        smtp.port = options["port"]?.numberValue.map { Int($0) } ?? (smtp.secure ? 465 : 25)
        guard (1...65_535).contains(smtp.port) else { throw invalid }
        smtp.username = (options["username"] ?? options["user"])?.stringValue
        smtp.password = options["password"]?.stringValue
        if let timeout = options["timeout"]?.numberValue { smtp.timeout = max(1, Int(timeout)) }
        return smtp
    }
}

import Foundation
import ParseWire
import Runtime

/// parse-server's `fileUpload.allowedFileUrlDomains`: the hosts a `File` value's `url` may name in what a client
/// stores or passes to Cloud Code, so that a crafted URL cannot make a server or another client fetch from
/// anywhere (server-side request forgery). `*` (the default) allows every host, `*.example.com` its subdomains,
/// an empty list none. Checked once, in the gateway, on every body a write or a function call carries.
struct FileURLDomains: Sendable, Equatable {
    /// Lowercased; nil allows every host.
    let allowed: [String]?

    static let any = FileURLDomains(allowed: nil)

    init(allowed: [String]?) {
        self.allowed = allowed.flatMap { $0.contains("*") ? nil : $0.map { $0.lowercased() } }
    }

    /// `PARSE_SERVER_FILE_UPLOAD_ALLOWED_FILE_URL_DOMAINS` (comma-separated), or the `allowedFileUrlDomains` list of
    /// `PARSE_SERVER_FILE_UPLOAD_OPTIONS` (the only way to give an empty list, as with parse-server).
    static func fromEnvironment(_ env: Environment) throws -> FileURLDomains {
        if let text = env.optional("PARSE_SERVER_FILE_UPLOAD_ALLOWED_FILE_URL_DOMAINS") {
            return FileURLDomains(allowed: text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        guard let text = env.optional("PARSE_SERVER_FILE_UPLOAD_OPTIONS"),
              let value = (try? JSONValue.parseReporting(Array(text.utf8)).get())?.objectValue?["allowedFileUrlDomains"]
        else { return .any }
        guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count else {
            throw ConfigurationError("PARSE_SERVER_FILE_UPLOAD_OPTIONS: allowedFileUrlDomains must be a list of host names")
        }
        return FileURLDomains(allowed: list)
    }

    /// Throws parse-server's 130 for the first `File` in `value`, at any depth, whose `url` names another host.
    func check(_ value: JSONValue) throws(ParseError) {
        guard let allowed else { return }
        switch value {
        case .array(let items):
            for item in items { try check(item) }
        case .object(let members):
            if members["__type"]?.stringValue == "File", let url = members["url"]?.stringValue {
                guard !url.isEmpty else { return }
                guard let host = URL(string: url)?.host, !host.isEmpty else {
                    throw ParseError(.fileSaveError, "Invalid file URL.")
                }
                let name = host.lowercased()
                guard allowed.contains(where: { $0 == name || ($0.hasPrefix("*.") && name.hasSuffix($0.dropFirst())) })
                else { throw ParseError(.fileSaveError, "File URL domain '\(host)' is not allowed.") }
                return
            }
            for member in members.values { try check(member) }
        default:
            return
        }
    }
}

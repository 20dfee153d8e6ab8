import Foundation
import Runtime

/// Who may upload what: parse-server's `fileUpload` option with its defaults (signed-in users yes, anonymous
/// users and the public no, `.html`/`.htm` refused) and its environment variables.
struct FileUploadPolicy: Sendable {
    var enableForPublic = false
    var enableForAnonymousUser = false
    var enableForAuthenticatedUser = true
    /// Regular expressions; an extension must match one of them (searched, as JavaScript's `RegExp.test`). `*`
    /// allows any.
    var fileExtensions = ["^(?!(h|H)(t|T)(m|M)(l|L)?$)"]
    /// parse-server's `preserveFileName`: store under the client's name without the random prefix.
    var preserveFileName = false

    /// `PARSE_SERVER_FILE_UPLOAD_OPTIONS` (JSON, parse-server's `fileUpload`), then the single settings
    /// `PARSE_SERVER_FILE_UPLOAD_ENABLE_FOR_PUBLIC`, `..._ENABLE_FOR_ANONYMOUS_USER`,
    /// `..._ENABLE_FOR_AUTHENTICATED_USER`, `..._FILE_EXTENSIONS` (JSON array or comma-separated) and
    /// `PARSE_SERVER_PRESERVE_FILE_NAME`, which win over it.
    static func fromEnvironment(_ env: Environment = Environment()) throws -> FileUploadPolicy {
        var policy = FileUploadPolicy()
        if let text = env.optional("PARSE_SERVER_FILE_UPLOAD_OPTIONS") {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
                throw ConfigurationError("PARSE_SERVER_FILE_UPLOAD_OPTIONS must be a JSON object")
            }
            if let value = object["enableForPublic"] as? Bool { policy.enableForPublic = value }
            if let value = object["enableForAnonymousUser"] as? Bool { policy.enableForAnonymousUser = value }
            if let value = object["enableForAuthenticatedUser"] as? Bool { policy.enableForAuthenticatedUser = value }
            if let value = object["fileExtensions"] as? [String] { policy.fileExtensions = value }
        }
        policy.enableForPublic = try flag(env, "PARSE_SERVER_FILE_UPLOAD_ENABLE_FOR_PUBLIC", policy.enableForPublic)
        policy.enableForAnonymousUser = try flag(env, "PARSE_SERVER_FILE_UPLOAD_ENABLE_FOR_ANONYMOUS_USER",
                                                 policy.enableForAnonymousUser)
        policy.enableForAuthenticatedUser = try flag(env, "PARSE_SERVER_FILE_UPLOAD_ENABLE_FOR_AUTHENTICATED_USER",
                                                     policy.enableForAuthenticatedUser)
        if let text = env.optional("PARSE_SERVER_FILE_UPLOAD_FILE_EXTENSIONS") {
            if let array = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String] {
                policy.fileExtensions = array
            } else {
                policy.fileExtensions = env.list("PARSE_SERVER_FILE_UPLOAD_FILE_EXTENSIONS", default: [])
            }
        }
        policy.preserveFileName = try flag(env, "PARSE_SERVER_PRESERVE_FILE_NAME", policy.preserveFileName)
        for pattern in policy.fileExtensions where pattern != "*" {
            guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                throw ConfigurationError("file extension pattern '\(pattern)' is not a valid regular expression")
            }
        }
        return policy
    }

    private static func flag(_ env: Environment, _ key: String, _ fallback: Bool) throws -> Bool {
        guard let text = env.optional(key) else { return fallback }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError("\(key) must be true or false, got '\(text)'")
        }
    }

    /// parse-server's refusal for this caller, if any. Anonymous users cannot be told apart from signed-in ones
    /// here (the identity carries no auth data), so they follow `enableForAuthenticatedUser`.
    func refusal(isMaster: Bool, userId: String?) -> String? {
        if isMaster { return nil }
        if userId != nil && !enableForAuthenticatedUser { return "File upload by authenticated user is disabled." }
        if userId == nil && !enableForPublic { return "File upload by public is disabled." }
        return nil
    }

    /// The extension parse-server checks: after the last `.` of the name, else the content type's subtype,
    /// spaces removed. Nil when there is nothing to check.
    static func checkedExtension(name: String, contentType: String?) -> String? {
        var candidate = contentType
        if let dot = name.lastIndex(of: ".") {
            candidate = String(name[name.index(after: dot)...])
        } else if let type = contentType, let slash = type.firstIndex(of: "/") {
            candidate = String(type[type.index(after: slash)...]).components(separatedBy: "/").first
        }
        guard let text = candidate?.replacingOccurrences(of: " ", with: ""), !text.isEmpty else { return nil }
        return text
    }

    func allowsExtension(_ ext: String) -> Bool {
        fileExtensions.contains { pattern in
            if pattern == "*" { return true }
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
            return regex.firstMatch(in: ext, range: NSRange(ext.startIndex..., in: ext)) != nil
        }
    }
}

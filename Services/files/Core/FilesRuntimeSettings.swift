import Contracts
import Foundation
import ParseWire
import ServiceKit

/// The setting files owns that `/settings` may change: parse-server's `fileUpload` (`enableForPublic`,
/// `enableForAnonymousUser`, `enableForAuthenticatedUser`, `fileExtensions`), each field given replacing the start-up
/// one. Read on each upload (`FileCommandHandler.create`).
struct FilesRuntimeSettings: RuntimeSettingsOwner {
    let startUp: FileUploadPolicy

    var names: Set<String> { RuntimeSettingNames.files }

    func settings(with overrides: [String: JSONValue]) throws(ParseError) -> [String: JSONValue] {
        let policy = try self.policy(overrides)
        return ["fileUpload": .object([
            "enableForPublic": .bool(policy.enableForPublic), "enableForAnonymousUser": .bool(policy.enableForAnonymousUser),
            "enableForAuthenticatedUser": .bool(policy.enableForAuthenticatedUser),
            "fileExtensions": .array(policy.fileExtensions.map(JSONValue.string)),
        ])]
    }

    func policy(_ overrides: [String: JSONValue]) throws(ParseError) -> FileUploadPolicy {
        var policy = startUp
        guard let value = overrides["fileUpload"] else { return policy }
        guard let fields = value.objectValue else { throw ParseError(.invalidJSON, "fileUpload must be an object.") }
        for (name, field) in fields {
            switch name {
            case "enableForPublic", "enableForAnonymousUser", "enableForAuthenticatedUser":
                guard let flag = field.boolValue else { throw ParseError(.invalidJSON, "fileUpload.\(name) must be a boolean.") }
                switch name {
                case "enableForPublic": policy.enableForPublic = flag
                case "enableForAnonymousUser": policy.enableForAnonymousUser = flag
                default: policy.enableForAuthenticatedUser = flag
                }
            case "fileExtensions":
                guard let patterns = field.arrayValue?.compactMap(\.stringValue), patterns.count == field.arrayValue?.count,
                      patterns.allSatisfy({ $0 == "*" || (try? NSRegularExpression(pattern: $0)) != nil }) else {
                    throw ParseError(.invalidJSON, "fileUpload.fileExtensions must be a list of regular expressions (or \"*\").")
                }
                policy.fileExtensions = patterns
            default:
                throw ParseError(.invalidJSON, "fileUpload.\(name) is not a file upload option that can change at run time.")
            }
        }
        return policy
    }
}

import Contracts
import ParseWire
import ServiceKit

/// The setting posts owns that `/settings` may change: `allowClientClassCreation`, checked only when a request of
/// a client names a class that does not exist (`RequestContext.mayUseMissingClass`).
struct PostsRuntimeSettings: RuntimeSettingsOwner {
    let startUp: PostsConfiguration

    var names: Set<String> { RuntimeSettingNames.posts }

    func settings(with overrides: [String: JSONValue]) throws(ParseError) -> [String: JSONValue] {
        ["allowClientClassCreation": .bool(try allowClientClassCreation(overrides))]
    }

    func allowClientClassCreation(_ overrides: [String: JSONValue]) throws(ParseError) -> Bool {
        guard let value = overrides["allowClientClassCreation"] else { return startUp.allowClientClassCreation }
        guard let flag = value.boolValue else { throw ParseError(.invalidJSON, "allowClientClassCreation must be a boolean.") }
        return flag
    }
}

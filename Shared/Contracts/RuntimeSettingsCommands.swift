import ParseWire

/// posts asks auth and files for the app settings each of them owns (`/settings`): their values now, and which of
/// them were changed at run time rather than set where the service started.
public struct ReadRuntimeSettings: Codable, Sendable, Equatable {
    public static let type = "settings.read.v1"

    public init() {}
}

/// Settings a service owns, changed at run time: a value replaces the one the service started with, `null` returns
/// to it. With `dryRun` the service only checks the values, so posts can refuse a change as a whole before any
/// owner stores its part.
public struct ChangeRuntimeSettings: Codable, Sendable, Equatable {
    public static let type = "settings.change.v1"

    public var changes: [String: JSONValue]
    public var dryRun: Bool

    public init(changes: [String: JSONValue], dryRun: Bool) {
        self.changes = changes
        self.dryRun = dryRun
    }
}

/// A service's answer to either command: every setting it owns with the value in force (after the change), and the
/// names changed at run time.
public struct RuntimeSettingsAnswer: Codable, Sendable, Equatable {
    public var settings: [String: JSONValue]
    public var changed: [String]

    public init(settings: [String: JSONValue], changed: [String]) {
        self.settings = settings
        self.changed = changed
    }
}

/// Which service owns each setting `/settings` can change, with parse-server's option names.
public enum RuntimeSettingNames {
    public static let posts: Set<String> = ["allowClientClassCreation"]
    public static let auth: Set<String> = ["sessionLength", "passwordPolicy", "verifyUserEmails",
                                           "preventLoginWithUnverifiedEmail", "emailVerifyTokenValidityDuration"]
    public static let files: Set<String> = ["fileUpload"]

    public static func owner(of name: String) -> ServiceName? {
        if posts.contains(name) { return .posts }
        if auth.contains(name) { return .auth }
        if files.contains(name) { return .files }
        return nil
    }
}

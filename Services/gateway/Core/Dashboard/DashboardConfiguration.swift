import Foundation
import Runtime

/// The built-in dashboard's settings. Off unless `PARSE_DASHBOARD_ENABLED` is set (the local stack sets it).
public struct DashboardConfiguration: Sendable {
    /// `PARSE_DASHBOARD_PATH`: where the web app is served, `/dashboard` by default.
    public var path: String
    /// `PARSE_DASHBOARD_USERS` (parse-dashboard's `users`): when set, people log in with a name and a bcrypt
    /// password instead of the master key.
    public var users: DashboardUsers
    /// `PARSE_DASHBOARD_ALLOW_INSECURE_HTTP` (parse-dashboard's `allowInsecureHTTP`): serve clients that are
    /// not on this machine over plain HTTP.
    public var allowInsecureHTTP: Bool
    /// `PARSE_DASHBOARD_ASSETS`: the folder of the web app's files.
    public var assetsDirectory: String
    /// How long a login lasts (`PARSE_DASHBOARD_SESSION_LENGTH`, seconds).
    public var sessionLength: Int
    /// The app's name in Settings: `PARSE_SERVER_APP_NAME`, the name its emails and pages use.
    public var appName: String?

    /// nil when the dashboard is off. Refuses, as parse-dashboard does, to serve on an address other machines
    /// reach unless HTTPS is in front (a `https://` `PARSE_PUBLIC_SERVER_URL`) or insecure HTTP is allowed.
    public static func fromEnvironment(_ env: Environment, host: String, publicServerURL: String?) throws -> DashboardConfiguration? {
        guard try flag(env, "PARSE_DASHBOARD_ENABLED") else { return nil }
        var path = env.string("PARSE_DASHBOARD_PATH", default: "/dashboard")
        if !path.hasPrefix("/") { path = "/" + path }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard path != "/", path.allSatisfy({ $0.isLetter || $0.isNumber || "/-_.".contains($0) }) else {
            throw ConfigurationError("PARSE_DASHBOARD_PATH must be a path below / such as /dashboard, got '\(path)'")
        }
        let allowInsecure = try flag(env, "PARSE_DASHBOARD_ALLOW_INSECURE_HTTP")
        let behindHTTPS = publicServerURL?.lowercased().hasPrefix("https://") ?? false
        if !DashboardClient.isLoopback(host) && !behindHTTPS && !allowInsecure {
            throw ConfigurationError("""
                the dashboard would be served over plain HTTP on \(host): put HTTPS in front (and set \
                PARSE_PUBLIC_SERVER_URL to its https:// address) or set PARSE_DASHBOARD_ALLOW_INSECURE_HTTP=1
                """)
        }
        let assets = env.optional("PARSE_DASHBOARD_ASSETS") ?? defaultAssetsDirectory()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: assets + "/index.html", isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ConfigurationError("PARSE_DASHBOARD_ASSETS: no index.html in '\(assets)'")
        }
        return DashboardConfiguration(
            path: path, users: try DashboardUsers(json: env.optional("PARSE_DASHBOARD_USERS")),
            allowInsecureHTTP: allowInsecure, assetsDirectory: assets,
            sessionLength: try env.int("PARSE_DASHBOARD_SESSION_LENGTH", default: 28_800, in: 60...2_592_000),
            appName: env.optional("PARSE_SERVER_APP_NAME"))
    }

    /// The image's copy of the files, else the repository's (a build run from its checkout).
    static func defaultAssetsDirectory() -> String {
        let installed = "/usr/local/share/parse/dashboard"
        if FileManager.default.fileExists(atPath: installed + "/index.html") { return installed }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Dashboard")
        return source.path
    }

    private static func flag(_ env: Environment, _ key: String) throws -> Bool {
        switch env.optional(key)?.lowercased() {
        case nil, "", "0", "false", "no", "off": return false
        case "1", "true", "yes", "on": return true
        case let other?: throw ConfigurationError("\(key) must be 1 or 0, got '\(other)'")
        }
    }
}

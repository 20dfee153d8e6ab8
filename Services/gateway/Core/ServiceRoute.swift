import Contracts

/// Which service owns a Parse route (the path below the mount), as docs/architecture.md divides the data.
enum ServiceRoute {
    static func owner(of path: String) -> ServiceName? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let first = parts.first ?? ""
        if first == "classes", parts.count > 1, ["_User", "_Session", "_Role"].contains(parts[1]) {
            return .auth
        }
        if first == "classes", parts.count > 1, parts[1] == "_JobStatus" { return .cloud }
        if first == "aggregate", parts.count == 2, parts[1] == "_User" { return .auth }
        switch first {
        case "users", "login", "logout", "sessions", "roles", "requestPasswordReset", "verifyPassword",
             "upgradeToRevocableSession", "verificationEmailRequest", "loginAs":
            return .auth
        case "classes", "batch", "schemas", "purge", "aggregate", "serverInfo", "config", "installations",
             "events", "push", "push_audiences", "analytics":
            return .posts
        case "files":
            return .files
        case "functions", "jobs", "hooks", "cloud_code":
            return .cloud
        default:
            return nil
        }
    }
}

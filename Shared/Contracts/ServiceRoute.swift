/// Which service owns a Parse route (the path below the mount), as docs/architecture.md divides the data.
public enum ServiceRoute {
    public static func owner(of path: String) -> ServiceName? {
        // The first two segments as substrings, found in the UTF-8 bytes: every request asks, and splitting the
        // whole path into an array of strings cost more than the rest of the decision.
        let slash = UInt8(ascii: "/")
        let firstEnd = path.utf8.firstIndex(of: slash) ?? path.endIndex
        let first = path[..<firstEnd]
        var second: Substring?
        if firstEnd != path.endIndex {
            let start = path.utf8.index(after: firstEnd)
            second = path[start..<(path.utf8[start...].firstIndex(of: slash) ?? path.endIndex)]
        }
        let secondIsLast = second?.endIndex == path.endIndex
        if first == "classes", let second { return ServiceName.owner(ofClass: second) }
        if first == "aggregate", second == "_User", secondIsLast { return .auth }
        switch first {
        case "users", "login", "logout", "sessions", "roles", "requestPasswordReset", "verifyPassword",
             "upgradeToRevocableSession", "verificationEmailRequest", "loginAs", "challenge":
            return .auth
        case "classes", "batch", "schemas", "purge", "aggregate", "serverInfo", "config", "installations",
             "events", "push", "push_audiences", "analytics", "settings", "graphql-config":
            return .posts
        case "files":
            return .files
        case "functions", "jobs", "hooks", "cloud_code", "scriptlog":
            return .cloud
        default:
            return nil
        }
    }
}

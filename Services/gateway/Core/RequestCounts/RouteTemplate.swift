/// A route below the mount as a template (`classes/Cat/abc` -> `/classes/:className/:objectId`), so the request
/// counts have one row per kind of call, not per object. Unknown routes share one template, so a client trying
/// paths cannot grow the counts without bound.
enum RouteTemplate {
    static func of(_ route: String) -> String {
        let parts = route.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = parts.first.map(String.init), let names = templates[first] else {
            return route.isEmpty ? "/" : "/(other)"
        }
        var template = "/" + first
        for (index, part) in parts.dropFirst().enumerated() {
            if let literal = literals[first], literal.contains(String(part)), index == 0 {
                template += "/" + part
            } else if index < names.count {
                template += "/:" + names[index]
            } else {
                template += "/:more"
                break
            }
        }
        return template
    }

    private static let templates: [String: [String]] = [
        "classes": ["className", "objectId"], "users": ["objectId"], "roles": ["objectId"], "sessions": ["objectId"],
        "installations": ["objectId"], "schemas": ["className"], "files": ["appId", "filename"],
        "events": ["eventName"], "push": [], "push_audiences": ["objectId"], "aggregate": ["className"],
        "purge": ["className"], "batch": [], "login": [], "logout": [], "config": [], "serverInfo": [],
        "health": ["check"], "functions": ["functionName"], "jobs": ["jobName"], "hooks": ["kind", "name"],
        "cloud_code": ["kind", "name"], "analytics": ["kind"], "requestPasswordReset": [], "verifyPassword": [],
        "verificationEmailRequest": [], "upgradeToRevocableSession": [], "loginAs": [], "apps": ["appId", "page"],
    ]

    /// Second segments kept as they are.
    private static let literals: [String: Set<String>] = [
        "users": ["me"], "sessions": ["me"], "health": ["ready"], "analytics": ["requests"], "cloud_code": ["jobs"],
    ]
}

import Contracts

/// What parse-server's maintenance key may do (`maintenanceKey`, for one-off migrations and data fixes): read and
/// write every object past ACLs and class-level permissions, as the master key does, and no more. The routes
/// parse-server guards with `enforceMasterKeyAccess` (schemas, hooks, push, jobs, logs, Config changes, ...) refuse
/// it as they refuse a client, and Cloud Code functions run for it as for a client without a session.
enum MaintenanceScope {
    /// The identity a maintenance request acts with on `path`, or nil where only the master key may go.
    static func identity(_ identity: Identity, method: String, path: String) -> Identity? {
        let first = path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        if masterOnly.contains(first) || (first == "config" && method != "GET") || (first == "aggregate") {
            return nil
        }
        var scoped = identity
        scoped.isMaintenance = true
        scoped.isMaster = first != "functions"
        return scoped
    }

    private static let masterOnly: Set<String> = [
        "schemas", "purge", "hooks", "push", "push_audiences", "jobs", "cloud_code", "scriptlog", "serverInfo",
        "loginAs", "analytics", "settings",
    ]
}

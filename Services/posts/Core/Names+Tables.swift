import Query

/// Where posts keeps a class's rows and its relations.
extension Names {
    /// Where a class's rows live: a schema of their own, so a class named like one of the service's tables
    /// (`outbox`) cannot collide with it.
    public static func table(_ className: String) -> String { "classes." + quoted(className) }

    /// The join table of a Relation field, named as parse-server names it.
    public static func joinTable(field: String, className: String) -> String {
        "classes." + quoted("_Join:\(field):\(className)")
    }
}
